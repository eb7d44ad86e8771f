/**
 * `mcphost -p` end to end: the built CLI, a loopback fake Ollama driven through the real `ollama`
 * client, and real MCP servers from npm.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  errorReply,
  startFakeOllama,
  textReply,
  toolCallReply,
  type FakeChatRequest,
} from '../fakes/ollama-server.js';
import { unusedPort } from '../support/loopback.js';
import {
  CLI,
  isAlive,
  REPOSITORY,
  runCli,
  temporaryHome,
  EVERYTHING_SERVER,
  npmServerConfig,
} from '../support/cli.js';
import { useCliFixture } from '../support/cli-fixture.js';
import { unwrapped } from '../support/untrusted.js';

const fixture = useCliFixture();
let files: string;

beforeAll(async () => {
  files = await mkdtemp(join(tmpdir(), 'mcphost-files-'));
  await writeFile(join(files, 'note.txt'), 'the secret word is mango\n');
});
afterAll(async () => {
  await rm(files, { recursive: true, force: true });
});

function toolNames(request: FakeChatRequest): string[] {
  return (request.tools ?? []).map((tool) => tool.function.name);
}

describe('mcphost -p', () => {
  it('runs tools from several servers in one step, then across steps, and prints only the answer', async () => {
    await fixture.home.writeConfig({
      mcpServers: {
        everything: EVERYTHING_SERVER,
        filesystem: npmServerConfig('filesystem', files),
        memory: npmServerConfig('memory'),
      },
    });
    const offered: string[][] = [];
    const ollama = await fixture.startModel([
      (request) => {
        offered.push(toolNames(request));
        return toolCallReply(
          ['everything__echo', { message: 'ping' }],
          ['filesystem__read_text_file', { path: join(files, 'note.txt') }],
        );
      },
      toolCallReply([
        'memory__create_entities',
        { entities: [{ name: 'mango', entityType: 'fruit', observations: ['secret'] }] },
      ]),
      (request) => {
        const results = request.messages
          .filter((message) => message.role === 'tool')
          .map((message) => message.content);
        return textReply(`Results: ${results.join(' | ')}`);
      },
    ]);
    // The fake reports no num_ctx (Ollama's 4k default): the tool search would stand in for the
    // definitions. This test is about the servers: a large window sends them all.
    const run = await runCli(
      [
        '-m',
        'ollama:mistral-small',
        '-p',
        'do it',
        // server-filesystem takes its folders from the roots (the working directory by default).
        '--root',
        files,
        '--provider-url',
        ollama.url,
        '--context-window',
        '131072',
      ],
      fixture.home.path,
    );
    expect(run.stderr).not.toContain('failed');
    expect(run.code).toBe(0);
    expect(offered[0]).toEqual(
      expect.arrayContaining(['everything__echo', 'filesystem__read_text_file', 'memory__create_entities']),
    );
    expect(run.stdout).toContain('Echo: ping');
    expect(run.stdout).toContain('the secret word is mango');
    expect(run.stdout).toContain('mango');
    expect(run.stdout.startsWith('Results:')).toBe(true);
    // Tool activity goes to stderr, never into the answer.
    expect(run.stderr).toContain('→ everything__echo');
    expect(run.stdout).not.toContain('→');
  });

  it('answers an unknown tool with an error the model reads', async () => {
    await fixture.home.writeConfig({ mcpServers: { everything: EVERYTHING_SERVER } });
    const ollama = await fixture.startModel([
      toolCallReply(['everything__no_such_tool', {}]),
      (request) => textReply(`saw: ${unwrapped(request.messages.at(-1)?.content ?? '')}`),
    ]);
    const run = await runCli(['-p', 'x', '--provider-url', ollama.url], fixture.home.path);
    expect(run.code).toBe(0);
    // Ollama has no error flag on tool messages: the adapter marks failures with "Error: ".
    expect(run.stdout).toContain(
      'saw: Error: Unknown tool "everything__no_such_tool". Available tools: everything__echo',
    );
  });

  it('stops at --max-steps with exit code 4 and one clear line', async () => {
    const ollama = await fixture.startModel([
      toolCallReply(['nothing__here', {}]),
      toolCallReply(['nothing__here', {}]),
      toolCallReply(['nothing__here', {}]),
    ]);
    const run = await runCli(
      ['-p', 'loop', '--max-steps', '2', '--provider-url', ollama.url],
      fixture.home.path,
    );
    expect(run.code).toBe(4);
    expect(run.stderr).toContain('mcphost: stopped after 2 steps');
    expect(ollama.requests.filter((request) => request.path === '/api/chat')).toHaveLength(2);
  });

  it('retries a 503 and then answers', async () => {
    const ollama = await fixture.startModel([errorReply(503, 'server busy'), textReply('second time lucky')]);
    const run = await runCli(['-p', 'hi', '--provider-url', ollama.url], fixture.home.path, {
      timeoutMs: 20_000,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('second time lucky\n');
    expect(run.stderr).toMatch(/retrying in \d+\.\ds \(retry 1\)/);
  });

  it('fails fast on a non-retryable error with exit code 3', async () => {
    const ollama = await fixture.startModel([]);
    const run = await runCli(
      ['-m', 'ollama:not-pulled', '-p', 'hi', '--provider-url', ollama.url],
      fixture.home.path,
    );
    expect(run.code).toBe(3);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toHaveLength(2); // the no-config note, then the error
    expect(run.stderr).toContain('not-pulled');
    expect(run.stderr).not.toContain('    at ');
    // Asked once about the model (which it does not have), and not tried again.
    expect(ollama.requests.map((request) => request.path)).toEqual(['/api/show']);
  });

  it('says how to start Ollama when nothing listens', async () => {
    const url = `http://127.0.0.1:${await unusedPort()}`;
    const run = await runCli(['-p', 'hi', '--provider-url', url], fixture.home.path);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(`cannot reach Ollama at ${url} — is \`ollama serve\` running?`);
  });

  it('reads OLLAMA_HOST when no --provider-url is given', async () => {
    const ollama = await fixture.startModel([textReply('from env')]);
    const run = await runCli(['-p', 'hi'], fixture.home.path, { env: { OLLAMA_HOST: ollama.url } });
    expect(run.stdout).toBe('from env\n');
  });

  it('reports a malformed config file in one line naming the file and the position', async () => {
    const file = await fixture.home.writeConfig(
      '{\n  "mcpServers": {\n    "x": { "command": "a", }\n  }\n}\n',
    );
    const run = await runCli(['-p', 'hi'], fixture.home.path);
    expect(run.code).toBe(2);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(file);
    expect(lines[0]).toMatch(/line 3/);
  });

  it('uses the servers that start and reports the one that cannot, with its stderr', async () => {
    await fixture.home.writeConfig({
      mcpServers: {
        broken: {
          command: process.execPath,
          args: ['-e', 'console.error("missing DATABASE_URL"); process.exit(3)'],
        },
        everything: EVERYTHING_SERVER,
      },
    });
    const ollama = await fixture.startModel([
      (request) =>
        textReply(`tools: ${toolNames(request).filter((name) => name.startsWith('everything__')).length}`),
    ]);
    const run = await runCli(
      ['-p', 'hi', '--provider-url', ollama.url, '--context-window', '131072'], // as above: every definition
      fixture.home.path,
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^tools: [1-9]\d*\n$/);
    expect(run.stderr).toContain('broken');
    expect(run.stderr).toContain('missing DATABASE_URL');
  });

  it('leaves no server process behind, even one started through sh -c with a child of its own', async () => {
    const spawner = join(REPOSITORY, 'test/fixtures/servers/spawner.mjs');
    await fixture.home.writeConfig({
      mcpServers: { spawner: { command: 'sh', args: ['-c', `"${process.execPath}" "${spawner}"; exit $?`] } },
    });
    const ollama = await fixture.startModel([
      toolCallReply(['spawner__pids', {}]),
      (request) => textReply(unwrapped(request.messages.at(-1)?.content ?? '')),
    ]);
    const run = await runCli(['-p', 'pids?', '--provider-url', ollama.url], fixture.home.path);
    expect(run.code).toBe(0);
    const { pid, childPid } = JSON.parse(run.stdout) as { pid: number; childPid: number };
    expect(pid).toBeGreaterThan(1);
    expect(childPid).toBeGreaterThan(1);
    expect([isAlive(pid), isAlive(childPid)]).toEqual([false, false]);
  });

  it('cleans the stderr of a failing server of escape sequences and secrets before showing it', async () => {
    const noisy =
      'process.stderr.write("\\u001b[31mfatal\\u001b[0m: GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789\\n"); process.exit(1)';
    await fixture.home.writeConfig({
      mcpServers: { noisy: { command: process.execPath, args: ['-e', noisy] } },
    });
    const ollama = await fixture.startModel([textReply('fine')]);
    const run = await runCli(['-p', 'hi', '--provider-url', ollama.url], fixture.home.path);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('fatal');
    expect(run.stderr).not.toContain('\u001b');
    expect(run.stderr).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
  });

  it('rejects bad flags with exit code 2 naming the flag', async () => {
    const run = await runCli(['-p', 'x', '--max-steps', '0'], fixture.home.path);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe('mcphost: --max-steps: expected a positive whole number, got 0');
    const unknown = await runCli(['-m', 'nope:model', '-p', 'x'], fixture.home.path);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown provider "nope"');
  });

  it('prints help and version without starting anything', async () => {
    const help = await runCli(['--help'], fixture.home.path);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--provider-url');
    const version = await runCli(['--version'], fixture.home.path);
    const { version: expected } = JSON.parse(
      await readFile(new URL('../../package.json', import.meta.url), 'utf8'),
    ) as {
      version: string;
    };
    expect(version.stdout.trim()).toBe(expected);
  });
});

describe('a reader that goes away', () => {
  it('ends mcphost quietly with 141 (as SIGPIPE would), servers included', async () => {
    const spawner = join(REPOSITORY, 'test/fixtures/servers/spawner.mjs');
    const home = await temporaryHome();
    await home.writeConfig({
      mcpServers: { spawner: { command: 'sh', args: ['-c', `"${process.execPath}" "${spawner}"; exit $?`] } },
    });
    const fake = await startFakeOllama([
      toolCallReply(['spawner__pids', {}]),
      (request) => ({
        type: 'answer',
        text: [
          `${unwrapped(request.messages.at(-1)?.content ?? '')}\n`,
          ...Array.from({ length: 400 }, (_, index) => `line ${index}\n`),
        ],
        chunkDelayMs: 5,
      }),
    ]);
    try {
      const child = spawn(process.execPath, [CLI, '-p', 'go', '--provider-url', fake.url], {
        cwd: home.path,
        env: { PATH: process.env.PATH ?? '', HOME: home.path },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      // Read the first line (the server's pids), then hang up, as `head -1` does.
      const firstLine = await new Promise<string>((resolve) => {
        let stdout = '';
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          const end = stdout.indexOf('\n');
          if (end !== -1) {
            child.stdout.destroy();
            resolve(stdout.slice(0, end));
          }
        });
      });
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(code).toBe(141);
      expect(stderr).not.toContain('EPIPE');
      expect(stderr).not.toContain('    at ');
      const { pid, childPid } = JSON.parse(firstLine) as { pid: number; childPid: number };
      // The exit hook signals the server's process group as mcphost exits; the group's processes end
      // a moment later, which on a loaded machine can be after the 'close' event. Bounded wait.
      const deadline = Date.now() + 3000;
      while ((isAlive(pid) || isAlive(childPid)) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect([isAlive(pid), isAlive(childPid)]).toEqual([false, false]);
    } finally {
      await fake.close();
      await home.remove();
    }
  });
});
