/**
 * `mcphost mcp add|add-json|list|get|remove` and `mcphost completion`, run as the built CLI with a
 * HOME of their own, against a real server from npm.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOllama, textReply } from '../fakes/ollama-server.js';
import { EVERYTHING_SERVER, npmServer, runCli, temporaryHome, type TemporaryHome } from '../support/cli.js';

let home: TemporaryHome;
beforeEach(async () => {
  home = await temporaryHome();
});
afterEach(async () => {
  await home.remove();
});

describe('mcphost mcp', () => {
  it('adds, lists with status, shows and removes servers, keeping the file as written', async () => {
    // The user's own formatting and keys: tabs, a key mcphost does not know, a server before ours.
    const original = '{\n\t"theme": "dark",\n\t"mcpServers": {\n\t\t"old": { "command": "true" }\n\t}\n}\n';
    const path = await home.writeConfig(original);
    const add = await runCli(
      [
        'mcp',
        'add',
        'memory',
        '-e',
        'MEMORY_FILE_PATH=/tmp/m.json',
        '--',
        process.execPath,
        npmServer('memory'),
      ],
      home.path,
    );
    expect(add.stderr).toBe('');
    expect(add.stdout).toBe(`added server "memory" to ${path}\n`);
    const added = await readFile(path, 'utf8');
    // jsonc-parser edits only the mcpServers object: other keys and the tab indentation stay.
    expect(added.startsWith('{\n\t"theme": "dark",\n\t"mcpServers": {\n\t\t"old": {')).toBe(true);
    expect(added).toContain('\n\t\t"memory": {\n\t\t\t"command": ');
    expect(JSON.parse(added)).toMatchObject({
      mcpServers: {
        memory: {
          command: process.execPath,
          args: [npmServer('memory')],
          env: { MEMORY_FILE_PATH: '/tmp/m.json' },
        },
      },
    });

    const web = await runCli(
      ['mcp', 'add-json', 'web', '{"type":"http","url":"http://127.0.0.1:9/mcp"}'],
      home.path,
    );
    expect(web.code).toBe(0);

    const list = await runCli(['mcp', 'list'], home.path, { timeoutMs: 40_000 });
    // Two of the three failed: the health check says so in its exit code.
    expect(list.code).toBe(5);
    expect(list.stdout).toMatch(/memory .*✓ ready, 9 tools/);
    expect(list.stdout).toMatch(/old .*✗ failed/);
    expect(list.stdout).toMatch(/web +http:\/\/127\.0\.0\.1:9\/mcp \(http\) +✗ failed/);

    const get = await runCli(['mcp', 'get', 'memory'], home.path);
    expect(get.stdout).toBe(
      `memory:\n  transport: stdio\n  command: ${process.execPath}\n  args: ${npmServer('memory')}\n  env: MEMORY_FILE_PATH\n  roots: ${home.path} (the working folder)\n`,
    );
    const names = await runCli(['mcp', 'list', '--names'], home.path);
    expect(names.stdout).toBe('old\nmemory\nweb\n');

    expect((await runCli(['mcp', 'remove', 'memory'], home.path)).code).toBe(0);
    expect((await runCli(['mcp', 'remove', 'web'], home.path)).code).toBe(0);
    const removed = await readFile(path, 'utf8');
    expect(JSON.parse(removed)).toEqual(JSON.parse(original));
    expect(removed.startsWith('{\n\t"theme": "dark",\n')).toBe(true);
  }, 60_000);

  it('lists the tools a run gets: the same count as the run, for a server that offers some only to capable clients', async () => {
    await home.writeConfig({ mcpServers: { everything: EVERYTHING_SERVER } });
    const list = await runCli(['mcp', 'list'], home.path, { timeoutMs: 40_000 });
    const listed = /everything .*✓ ready, (\d+) tools/.exec(list.stdout)?.[1];
    // server-everything offers get-roots-list, trigger-elicitation-request, trigger-url-elicitation
    // and trigger-sampling-request only to a client that declares roots, elicitation and sampling.
    expect(listed).toBe('17');
    const model = await startFakeOllama([textReply('ok')]);
    try {
      const run = await runCli(
        ['-p', 'hi', '--provider-url', model.url, '--output-format', 'stream-json'],
        home.path,
        { timeoutMs: 40_000 },
      );
      const start = JSON.parse(run.stdout.split('\n')[0] ?? '{}') as {
        type?: string;
        servers?: Array<{ name: string; tools: number }>;
      };
      expect(start.type).toBe('start');
      expect(start.servers).toEqual([expect.objectContaining({ name: 'everything', tools: Number(listed) })]);
    } finally {
      await model.close();
    }
  }, 90_000);

  it('refuses a name in use, an unknown name, an invalid entry and a file it cannot parse', async () => {
    await home.writeConfig({ mcpServers: { a: { command: 'x' } } });
    const taken = await runCli(['mcp', 'add', 'a', '--', 'y'], home.path);
    expect(taken.code).toBe(2);
    expect(taken.stderr).toMatch(/a server named "a" is already there \(mcphost mcp remove a first\)/);
    const missing = await runCli(['mcp', 'remove', 'b'], home.path);
    expect(missing.stderr).toMatch(/no server named "b" there/);
    const invalid = await runCli(['mcp', 'add-json', 'c', '{"command": 3}'], home.path);
    expect(invalid.stderr).toMatch(/mcpServers\.c\.command: expected string, got number/);
    const broken = '{ "mcpServers": { "a": {"command": "x",} } }';
    const path = await home.writeConfig(broken);
    const refused = await runCli(['mcp', 'add', 'd', '--', 'y'], home.path);
    expect(refused.stderr).toBe(
      `mcphost: ${path}: invalid JSON at line 1, column 39: trailing comma before "}"; not changing it\n`,
    );
    expect(await readFile(path, 'utf8')).toBe(broken);
  });

  it('writes a project server to .mcp.json in the working folder, and creates the file', async () => {
    const project = join(home.path, 'project');
    await mkdir(project);
    const add = await runCli(
      ['mcp', 'add', '--scope', 'project', 'p', '--', 'node', 'server.js'],
      home.path,
      { cwd: project },
    );
    expect(add.code).toBe(0);
    expect(JSON.parse(await readFile(join(project, '.mcp.json'), 'utf8'))).toEqual({
      mcpServers: { p: { command: 'node', args: ['server.js'] } },
    });
    // A YAML config is not edited: the user is told to do it by hand.
    await writeFile(join(home.path, '.mcphost.yml'), 'mcpServers: {}\n');
    const yaml = await runCli(['mcp', 'add', 'q', '--', 'x'], home.path);
    expect(yaml.stderr).toMatch(/\.mcphost\.yml: only JSON config files can be edited by mcphost mcp/);
  });

  it('suggests the nearest command for a typo', async () => {
    const typo = await runCli(['mcp', 'lsit'], home.path);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe(
      'mcphost: command line: unknown argument lsit: did you mean list? (see mcphost --help)\n',
    );
  });
});

describe('mcphost completion', () => {
  it('prints a bash script that completes commands, flags and server names', async () => {
    await home.writeConfig({ mcpServers: { alpha: { command: 'x' }, beta: { command: 'y' } } });
    const script = (await runCli(['completion', 'bash'], home.path)).stdout;
    expect(script).toMatch(/complete -o default -F _mcphost mcphost/);
    // Run the completion function in a real bash, with mcphost on the PATH.
    const bin = join(home.path, 'bin');
    await mkdir(bin);
    await writeFile(
      join(bin, 'mcphost'),
      `#!/bin/sh\nexec "${process.execPath}" "${join(process.cwd(), 'dist/bin/mcphost.js')}" "$@"\n`,
      { mode: 0o755 },
    );
    await writeFile(join(home.path, 'completion.bash'), script);
    const complete = (words: string[]) =>
      import('node:child_process').then(({ execFileSync }) =>
        execFileSync(
          'bash',
          [
            '-c',
            `source completion.bash; COMP_WORDS=(${words.map((word) => `'${word}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _mcphost; echo "\${COMPREPLY[@]}"`,
          ],
          {
            cwd: home.path,
            env: { PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: home.path },
          },
        )
          .toString()
          .trim(),
      );
    expect(await complete(['mcphost', 'mc'])).toBe('mcp');
    expect(await complete(['mcphost', 'mcp', 're'])).toBe('remove');
    expect(await complete(['mcphost', 'mcp', 'get', ''])).toBe('alpha beta');
    expect(await complete(['mcphost', 'au'])).toBe('auth');
    expect(await complete(['mcphost', 'auth', 'lo'])).toBe('login logout');
    expect(await complete(['mcphost', 'auth', 'logout', ''])).toBe('alpha beta');
    expect(await complete(['mcphost', '--max-s'])).toBe('--max-steps');
    expect(await complete(['mcphost', '-m', 'ol'])).toBe('ollama:');
    expect(await complete(['mcphost', '--tool-search', ''])).toBe('auto always never');
    expect((await runCli(['completion', 'fish'], home.path)).stderr).toBe(
      'mcphost: completion: "fish" is not bash or zsh\n',
    );
  });
});
