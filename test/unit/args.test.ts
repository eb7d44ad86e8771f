import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseArguments, type CliOptions } from '../../src/cli/args.js';
import { ConfigError } from '../../src/core/errors.js';
import { readSystemPrompt } from '../../src/setup/system-prompt.js';

function options(...argv: string[]): CliOptions {
  const parsed = parseArguments(argv, '1.2.3');
  if (parsed.kind !== 'run') throw new Error(`did not run: ${JSON.stringify(parsed)}`);
  return parsed.options;
}

function failure(...argv: string[]): string {
  let error: unknown;
  try {
    parseArguments(argv, '1.2.3');
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(ConfigError);
  return (error as ConfigError).message;
}

describe('command-line flags', () => {
  it('takes the last value of a flag given twice', () => {
    expect(options('-p', 'first', '-p', 'second')).toMatchObject({ prompt: 'second' });
    expect(options('-m', 'ollama:a', '-m', 'ollama:b', '--max-steps', '3', '--max-steps', '4')).toMatchObject(
      {
        model: 'ollama:b',
        maxSteps: 4,
      },
    );
  });

  it('checks sampling settings with the bounds the config file uses', () => {
    expect(failure('--temperature=-1')).toBe('--temperature: expected a number at least 0, got -1');
    expect(failure('--top-p', '5')).toBe('--top-p: expected a number from 0 to 1, got 5');
    expect(options('--top-p', '0.9', '--temperature', '0')).toMatchObject({
      topP: 0.9,
      temperature: 0,
    });
    expect(options('--stop-sequences', 'END', '--stop-sequences', 'STOP')).toMatchObject({
      stopSequences: ['END', 'STOP'],
    });
  });

  it('takes --context-window as a positive whole number of tokens', () => {
    expect(options('--context-window', '32768')).toMatchObject({ contextWindow: 32_768 });
    expect(failure('--context-window', '0')).toBe(
      '--context-window: expected a positive whole number, got 0',
    );
    expect(failure('--context-window', '1.5')).toBe(
      '--context-window: expected a positive whole number, got 1.5',
    );
    expect(failure('--context-window', 'big')).toBe('--context-window: expected a number, got "big"');
  });

  it('refuses a flag whose value was forgotten', () => {
    expect(failure('--config')).toBe('--config: needs a value');
    expect(failure('-p', 'x', '--save-session=')).toBe('--save-session: needs a value');
  });

  it('says what is wrong with the command line in one line', () => {
    expect(failure('--bogus')).toBe('command line: unknown argument --bogus (see mcphost --help)');
    expect(failure('-p')).toBe('--prompt: needs a value');
    expect(failure('--temperature', '-1')).toBe('--temperature: expected a number at least 0, got -1');
    expect(failure('-p', 'x', 'stray')).toBe('command line: unknown argument --stray (see mcphost --help)');
    expect(failure('--max-steps', 'many')).toBe('--max-steps: expected a number, got "many"');
    expect(failure('-p', 'x', '--output-format', 'xml')).toBe(
      '--output-format: "xml" is not one of text, json, stream-json',
    );
    expect(failure('-s', 'a.json', '--save-session', 'b.json')).toBe(
      '--session: not with --save-session or --load-session (it does both)',
    );
  });

  it('suggests the nearest flag or command for a typo', () => {
    expect(failure('--colr')).toBe(
      'command line: unknown argument --colr: did you mean --color? (see mcphost --help)',
    );
    // yargs reads --no-X as X negated, so the suggestion is about X.
    expect(failure('--no-colour')).toBe(
      'command line: unknown argument --colour: did you mean --color? (see mcphost --help)',
    );
    expect(failure('--max-step', '3')).toMatch(/did you mean --max-steps\?/);
    expect(failure('mpc', 'list')).toMatch(/unknown argument mpc: did you mean mcp\?/);
    expect(failure('mcp', 'lst')).toMatch(/unknown argument lst: did you mean list\?/);
    expect(failure('mcp')).toBe(
      'command line: mcp needs a command: add, add-json, list, get, remove or pins (see mcphost --help)',
    );
  });

  it('takes negated flags', () => {
    expect(options('-p', 'x', '--no-exit', '--no-color')).toMatchObject({ noExit: true, noColor: true });
    expect(options('--no-session-persistence')).toMatchObject({ sessionPersistence: false });
    expect(options('--debug', '--no-debug')).toMatchObject({ debug: false });
    expect(options('--session-persistence')).toMatchObject({ sessionPersistence: true });
    expect(options()).toMatchObject({ noExit: false, noColor: false });
    // Unset, so that the home config's `sessionPersistence` can apply.
    expect(options().sessionPersistence).toBeUndefined();
  });

  it('picks a saved conversation with --continue or --resume, one way at a time', () => {
    expect(options('-c')).toMatchObject({ continueLatest: true });
    expect(options('--resume')).toMatchObject({ resume: '' });
    expect(options('--resume', 'abc', '-p', 'hi')).toMatchObject({ resume: 'abc', prompt: 'hi' });
    expect(failure('-c', '--resume', 'abc')).toBe(
      '--continue: give one of --continue, --resume, -s and --load-session',
    );
    expect(failure('-c', '-s', 'x.json')).toMatch(/^--continue: give one of/);
  });

  it('parses the mcp commands into server entries', () => {
    expect(
      parseArguments(['mcp', 'add', 'files', '-e', 'A=1', '--', 'npx', '-y', 'srv', '--flag'], '1'),
    ).toEqual({
      kind: 'mcp',
      command: {
        action: 'add',
        name: 'files',
        entry: { command: 'npx', args: ['-y', 'srv', '--flag'], env: { A: '1' } },
        scope: 'user',
        vscode: false,
      },
    });
    expect(
      parseArguments(
        ['mcp', 'add', 'web', '-t', 'sse', '--url', 'https://h/sse', '-H', 'X-Key: v', '-s', 'project'],
        '1',
      ),
    ).toMatchObject({
      command: { entry: { type: 'sse', url: 'https://h/sse', headers: { 'X-Key': 'v' } }, scope: 'project' },
    });
    expect(parseArguments(['mcp', 'add-json', 'm', '{"command":"node","args":["s.js"]}'], '1')).toMatchObject(
      {
        command: { action: 'add', name: 'm', entry: { command: 'node', args: ['s.js'] } },
      },
    );
    expect(parseArguments(['mcp', 'remove', 'm', '--config', 'c.json'], '1')).toEqual({
      kind: 'mcp',
      command: { action: 'remove', name: 'm', scope: 'user', vscode: false },
      configPath: 'c.json',
    });
    expect(parseArguments(['mcp', 'add', 'n', '--vscode', '-s', 'project', '--', 'node'], '1')).toMatchObject(
      {
        command: { action: 'add', scope: 'project', vscode: true },
      },
    );
    expect(failure('mcp', 'add', 'x')).toBe('mcp add: needs a command: mcphost mcp add x -- COMMAND [ARGS…]');
    expect(failure('mcp', 'add', 'x', '-t', 'http')).toBe('--url: needed with --transport http');
    expect(failure('mcp', 'add', 'x', '-e', 'NOVALUE', '--', 'node')).toBe(
      '--env: expected KEY=VALUE, got "NOVALUE"',
    );
    expect(failure('mcp', 'add-json', 'x', '[1]')).toMatch(/^mcp add-json: the entry must be a JSON object/);
  });

  it('parses mcp pins and mcp pins reset [SERVER [TOOL]]', () => {
    expect(parseArguments(['mcp', 'pins'], '1')).toEqual({ kind: 'mcp', command: { action: 'pins' } });
    expect(parseArguments(['mcp', 'pins', 'reset'], '1')).toEqual({
      kind: 'mcp',
      command: { action: 'pins-reset' },
    });
    expect(parseArguments(['mcp', 'pins', 'reset', 'dict', 'lookup'], '1')).toEqual({
      kind: 'mcp',
      command: { action: 'pins-reset', server: 'dict', tool: 'lookup' },
    });
  });

  it('prints help and version instead of running', async () => {
    const help = parseArguments(['--help'], '1.2.3');
    expect(help.kind === 'print' && help.text.includes('--provider-url')).toBe(true);
    const mcpHelp = parseArguments(['mcp', 'add', '--help'], '1.2.3');
    expect(mcpHelp.kind === 'print' && mcpHelp.text.includes('--transport')).toBe(true);
    expect(parseArguments(['completion', 'zsh'], '1.2.3')).toEqual({ kind: 'completion', shell: 'zsh' });
    expect(parseArguments(['--version'], '1.2.3')).toEqual({ kind: 'print', text: '1.2.3' });
  });
});

describe('mcphost auth', () => {
  it('parses login, status and logout, with --config', () => {
    expect(parseArguments(['auth', 'login', 'linear'], '1.2.3')).toEqual({
      kind: 'auth',
      command: { action: 'login', server: 'linear' },
    });
    expect(parseArguments(['auth', 'status', '--config', 'x.json'], '1.2.3')).toEqual({
      kind: 'auth',
      command: { action: 'status' },
      configPath: 'x.json',
    });
    expect(parseArguments(['auth', 'logout', 'linear'], '1.2.3')).toEqual({
      kind: 'auth',
      command: { action: 'logout', server: 'linear' },
    });
  });

  it('is in the help, has its own, and suggests the sub-command meant', () => {
    const help = parseArguments(['--help'], '1.2.3');
    expect(help.kind === 'print' && help.text.includes('mcphost auth')).toBe(true);
    const authHelp = parseArguments(['auth', '--help'], '1.2.3');
    expect(authHelp.kind === 'print' ? authHelp.text : '').toMatch(/auth login <server>[\s\S]*auth logout/);
    const loginHelp = parseArguments(['auth', 'login', '--help'], '1.2.3');
    expect(loginHelp.kind === 'print' ? loginHelp.text : '').toContain('sign in to a remote server');
    expect(failure('auth', 'lgin')).toBe(
      'command line: unknown argument lgin: did you mean login? (see mcphost --help)',
    );
    expect(failure('auht', 'status')).toBe(
      'command line: unknown argument auht: did you mean auth? (see mcphost --help)',
    );
    expect(failure('auth')).toBe(
      'command line: auth needs a command: login, status or logout (see mcphost --help)',
    );
    expect(failure('auth', 'login')).toMatch(/^command line: Not enough non-option arguments/);
  });
});

describe('--system-prompt', () => {
  it('reads a file, keeps text, and refuses a file name that does not exist', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'mcphost-prompt-'));
    try {
      await writeFile(join(folder, 'prompt.md'), 'Be brief.');
      expect(await readSystemPrompt('prompt.md', folder)).toBe('Be brief.');
      expect(await readSystemPrompt('Answer in French.', folder)).toBe('Answer in French.');
      expect(await readSystemPrompt('terse', folder)).toBe('terse');
      await expect(readSystemPrompt('./promt.md', folder)).rejects.toThrow(
        `--system-prompt: no such file: ${join(folder, 'promt.md')}`,
      );
      await expect(readSystemPrompt('notes.txt', folder, '/c.json: systemPrompt')).rejects.toThrow(
        '/c.json: systemPrompt: no such file',
      );
      await mkdir(join(folder, 'prompts'));
      await expect(readSystemPrompt('prompts', folder)).rejects.toThrow(
        `--system-prompt: ${join(folder, 'prompts')} is a directory, not a file`,
      );
      await writeFile(join(folder, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
      await expect(readSystemPrompt('latin1.txt', folder)).rejects.toThrow(
        `--system-prompt: ${join(folder, 'latin1.txt')} is not UTF-8 text`,
      );
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});

describe('--builtin', () => {
  it('takes comma-separated names, repeated flags and the Go spelling http, each once', () => {
    expect(options('--builtin', 'fs,todo')).toMatchObject({ builtin: ['fs', 'todo'] });
    expect(options('--builtin', 'fs', '--builtin', 'http, fs')).toMatchObject({ builtin: ['fs', 'fetch'] });
    expect(options().builtin).toBeUndefined();
  });

  it('names an unknown server and lists the known ones', () => {
    expect(failure('--builtin', 'fs,git')).toBe(
      '--builtin: "git" is not a built-in server (fs, bash, todo, fetch)',
    );
    expect(failure('--builtin', 'fs,')).toBe(
      '--builtin: an empty name is not a built-in server (fs, bash, todo, fetch)',
    );
  });
});
