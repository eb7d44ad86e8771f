/**
 * Safety end to end: the built CLI, the loopback fake Ollama and real MCP servers. Approval in -p
 * mode (ask → deny, --approve-all, deny rules), enforced hooks, the audit log, output limits,
 * redacted --debug lines, and project configs that are not used until trusted.
 */
import { access, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { hashConfigText } from '../../config/trust-store.js';
import { textReply, toolCallReply, type FakeChatRequest, type FakeOllama } from '../fakes/ollama-server.js';
import { hookCommand } from '../fixtures/hooks/commands.js';
import { REPOSITORY, runCli, EVERYTHING_SERVER, npmServerConfig } from '../support/cli.js';
import { useCliFixture } from '../support/cli-fixture.js';
import { unwrapped } from '../support/untrusted.js';

const fixture = useCliFixture();
let work: string;

beforeEach(async () => {
  work = await fixture.temporaryFolder('mcphost-safety-work-');
});

function filesystem() {
  return npmServerConfig('filesystem', work);
}

/** What the model was told about the last tool call (Ollama marks errors with "Error: "). */
function lastToolResult(request: FakeChatRequest): string {
  return unwrapped(request.messages.filter((message) => message.role === 'tool').at(-1)?.content ?? '(none)');
}

/** A fake model that calls `tool` once, then answers with what it was told. */
async function modelCalling(tool: string, input: unknown): Promise<FakeOllama> {
  return fixture.startModel([
    toolCallReply([tool, input]),
    (request) => textReply(`told: ${lastToolResult(request)}`),
  ]);
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

function cli(args: readonly string[], options: { cwd?: string } = {}) {
  return runCli([...args, '--provider-url', fixture.model.url], fixture.home.path, options);
}

describe('approval in -p mode', () => {
  const askWrites = {
    approval: { rules: [{ tool: 'filesystem__write_*', decision: 'ask', reason: 'it writes files' }] },
  };

  it('denies a call that needs approval: not run, and the model is told', async () => {
    await fixture.home.writeConfig({ mcpServers: { filesystem: filesystem() }, ...askWrites });
    const target = join(work, 'written.txt');
    await modelCalling('filesystem__write_file', { path: target, content: 'hello' });
    const run = await cli(['-p', 'write it']);
    expect(run.stderr).toContain('filesystem__write_file');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      "told: Error: The call to filesystem__write_file needs the user's approval (it writes files",
    );
    expect(run.stdout).toContain('--approve-all');
    expect(await exists(target)).toBe(false);
  });

  it('runs it with --approve-all', async () => {
    await fixture.home.writeConfig({ mcpServers: { filesystem: filesystem() }, ...askWrites });
    const target = join(work, 'written.txt');
    await modelCalling('filesystem__write_file', { path: target, content: 'hello' });
    const run = await cli(['-p', 'write it', '--approve-all', '--root', work]);
    expect(run.code).toBe(0);
    expect(await readFile(target, 'utf8')).toBe('hello');
    expect(run.stdout).not.toContain('told: Error');
  });

  it('never runs a call a deny rule covers, even with --approve-all', async () => {
    await fixture.home.writeConfig({
      mcpServers: { filesystem: filesystem() },
      permissions: { deny: ['filesystem__write_*'] },
    });
    const target = join(work, 'written.txt');
    await modelCalling('filesystem__write_file', { path: target, content: 'hello' });
    const run = await cli(['-p', 'write it', '--approve-all', '--root', work]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      "told: Error: The user's approval policy does not allow filesystem__write_file",
    );
    expect(await exists(target)).toBe(false);
  });
});

describe('hooks', () => {
  it('a PreToolUse hook that exits 2 blocks the call; the model reads why', async () => {
    const target = join(work, 'written.txt');
    await fixture.home.writeConfig({
      mcpServers: { filesystem: filesystem() },
      hooks: {
        PreToolUse: [
          {
            matcher: 'write',
            hooks: [{ type: 'command', command: hookCommand('block-exit2.sh', 'no writes in CI') }],
          },
        ],
      },
    });
    await modelCalling('filesystem__write_file', { path: target, content: 'hello' });
    const run = await cli(['-p', 'write it', '--approve-all', '--root', work]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      'told: Error: A PreToolUse hook blocked the call to filesystem__write_file: no writes in CI',
    );
    expect(await exists(target)).toBe(false);
  });

  it('a UserPromptSubmit hook that blocks stops the prompt before the model', async () => {
    await fixture.home.writeConfig({
      hooks: {
        UserPromptSubmit: [
          {
            hooks: [
              {
                type: 'command',
                command: hookCommand('block-json.sh', 'prompts about secrets are not allowed'),
              },
            ],
          },
        ],
      },
    });
    const ollama = await fixture.startModel([textReply('should not be asked')]);
    const run = await cli(['-p', 'tell me a secret']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(
      'the prompt was blocked by a UserPromptSubmit hook: prompts about secrets are not allowed',
    );
    expect(run.stdout).toBe('');
    expect(ollama.chatRequests).toEqual([]);
  });

  it('PostToolUse and Stop hooks hear of the call and of the answer', async () => {
    const log = join(work, 'events.jsonl');
    await fixture.home.writeConfig({
      mcpServers: { everything: EVERYTHING_SERVER },
      hooks: {
        PostToolUse: [
          {
            matcher: '^everything__echo$',
            hooks: [{ type: 'command', command: hookCommand('record.sh', log) }],
          },
        ],
        Stop: [{ hooks: [{ type: 'command', command: hookCommand('record.sh', log) }] }],
      },
    });
    await modelCalling('everything__echo', { message: 'ping' });
    const run = await cli(['-p', 'echo']);
    expect(run.code).toBe(0);
    const events = (await readFile(log, 'utf8'))
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events).toEqual([
      expect.objectContaining({
        hook_event_name: 'PostToolUse',
        tool_name: 'everything__echo',
        tool_input: { message: 'ping' },
        interactive: false,
        model: 'ollama:mistral-small',
      }),
      expect.objectContaining({
        hook_event_name: 'Stop',
        stop_reason: 'completed',
        response: 'told: Echo: ping',
      }),
    ]);
  });
});

describe('--audit-log', () => {
  it('appends one redacted JSON line per tool call', async () => {
    const audit = join(work, 'audit.jsonl');
    await fixture.home.writeConfig({
      mcpServers: { everything: EVERYTHING_SERVER },
      permissions: { deny: ['everything__get-env'] },
    });
    await fixture.startModel([
      toolCallReply(
        ['everything__echo', { message: 'my token=abc123 and ghp_abcdefghijklmnopqrstuvwxyz012345' }],
        ['everything__get-env', {}],
      ),
      textReply('done'),
    ]);
    const run = await cli(['-p', 'go', '--audit-log', audit]);
    expect(run.code).toBe(0);
    const text = await readFile(audit, 'utf8');
    expect(text).not.toContain('abc123');
    expect(text).not.toContain('ghp_');
    const lines = text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .sort((first, second) => String(first.tool).localeCompare(String(second.tool)));
    expect(lines).toEqual([
      {
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
        sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/) as unknown,
        turn: 1,
        serverIdentity: {
          name: 'mcp-servers/everything',
          version: expect.any(String) as unknown,
          command: expect.stringContaining('server-everything') as unknown,
          sandboxed: false,
        },
        server: 'everything',
        tool: 'echo',
        exposedName: 'everything__echo',
        callId: expect.any(String) as unknown,
        arguments: { message: 'my token=[REDACTED] and [REDACTED]' },
        decision: 'allowed',
        decidedBy: 'policy',
        outcome: 'ok',
        durationMs: expect.any(Number) as unknown,
        isError: false,
        resultBytes: expect.any(Number) as unknown,
        resultDigest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) as unknown,
      },
      expect.objectContaining({
        server: 'everything',
        tool: 'get-env',
        decision: 'denied',
        decidedBy: 'policy',
        outcome: 'not-run',
        isError: true,
      }),
    ]);
  });
});

describe('output limits and --debug', () => {
  it('cuts a result over maxToolResultBytes for the model, saying so', async () => {
    await fixture.home.writeConfig({ mcpServers: { everything: EVERYTHING_SERVER }, maxToolResultBytes: 20 });
    await modelCalling('everything__echo', { message: 'x'.repeat(200) });
    const run = await cli(['-p', 'echo']);
    expect(run.code).toBe(0);
    // Head (12 bytes) and tail (8), the note between naming the file with the whole text.
    expect(run.stdout).toContain(
      'told: Echo: xxxxxx\n\n[mcphost: this result is 206 bytes, over the budget of 20; 186 bytes from the middle are left out. The whole result is saved in ',
    );
    const saved = /saved in (\S+\.txt):/.exec(run.stdout)?.[1] ?? '';
    expect(saved.startsWith(join(fixture.home.path, '.local', 'state', 'mcphost', 'tool-output'))).toBe(true);
    expect(await readFile(saved, 'utf8')).toBe(`Echo: ${'x'.repeat(200)}`);
  });

  it('redacts secrets and strips escape sequences in server lines shown by --debug', async () => {
    const server = join(REPOSITORY, 'test/fixtures/servers/good-server.mjs');
    await fixture.home.writeConfig({
      mcpServers: {
        noisy: {
          command: 'sh',
          args: [
            '-c',
            `printf 'API_TOKEN=supersecret123 \\033[31mred\\033[0m\\n' >&2; exec "${process.execPath}" "${server}"`,
          ],
        },
      },
    });
    await fixture.startModel([textReply('hi')]);
    const run = await cli(['-p', 'hi', '--debug']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('[noisy] stderr: API_TOKEN=[REDACTED] red');
    expect(run.stderr).not.toContain('supersecret123');
    expect(run.stderr).not.toContain('\x1b[31m');
  });
});

describe('project configs', () => {
  async function writeMarkerProject(): Promise<{ config: string; marker: string; text: string }> {
    const marker = join(work, 'marker');
    const text = JSON.stringify({
      mcpServers: {
        marker: {
          command: process.execPath,
          args: ['-e', `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'started')`],
        },
      },
    });
    const config = join(work, '.mcp.json');
    await writeFile(config, text);
    return { config, marker, text };
  }

  it('an untrusted one is not used in -p mode: said once on stderr, nothing started', async () => {
    const { config, marker } = await writeMarkerProject();
    await fixture.startModel([textReply('hello')]);
    const run = await cli(['-p', 'hi'], { cwd: work });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('hello\n');
    const mentions = run.stderr.split('\n').filter((line) => line.includes(config));
    expect(mentions).toEqual([
      `mcphost: warning: ${config}: not used: this project config is not trusted (it would start: marker). ` +
        `To trust it, run mcphost in ${work} without -p and answer yes, or name it with --config`,
    ]);
    expect(await exists(marker)).toBe(false);
  });

  it('a trusted one is used', async () => {
    const { config, marker, text } = await writeMarkerProject();
    const store = join(fixture.home.path, '.local', 'state', 'mcphost', 'trusted-configs.json');
    await mkdir(join(store, '..'), { recursive: true });
    await writeFile(
      store,
      JSON.stringify({
        version: 1,
        trusted: [{ path: config, sha256: hashConfigText(text), trustedAt: '2025-01-01T00:00:00Z' }],
      }),
    );
    await fixture.startModel([textReply('hello')]);
    const run = await cli(['-p', 'hi'], { cwd: work });
    expect(run.code).toBe(0);
    expect(await readFile(marker, 'utf8')).toBe('started');
    expect(run.stderr).not.toContain('not trusted');
  });

  it('one named by --config is used as it is', async () => {
    const { marker } = await writeMarkerProject();
    await fixture.startModel([textReply('hello')]);
    const run = await cli(['-p', 'hi', '--config', '.mcp.json'], { cwd: work });
    expect(run.code).toBe(0);
    expect(await readFile(marker, 'utf8')).toBe('started');
  });
});
