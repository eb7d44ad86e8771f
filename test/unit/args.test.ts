import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseArguments, type CliOptions } from '../../src/cli/args.js';
import { ConfigError } from '../../src/errors.js';
import { readSystemPrompt } from '../../src/setup/system-prompt.js';

function options(...argv: string[]): CliOptions {
  const parsed = parseArguments(argv, '1.2.3');
  if (parsed.kind !== 'run') throw new Error(`printed instead of running: ${parsed.text}`);
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

  it('refuses a flag whose value was forgotten', () => {
    expect(failure('--config')).toBe('command line: --config needs a value (see mcphost --help)');
    expect(failure('-p', 'x', '--save-session=')).toBe('--save-session: needs a value');
  });

  it('says what is wrong with the command line in one line', () => {
    expect(failure('--bogus')).toBe('command line: unknown option --bogus (see mcphost --help)');
    expect(failure('-p')).toBe('command line: -p needs a value (see mcphost --help)');
    expect(failure('--temperature', '-1')).toBe(
      'command line: --temperature needs a value (for one starting with "-", write --temperature=VALUE) (see mcphost --help)',
    );
    expect(failure('-p', 'x', 'stray')).toBe(
      'command line: unexpected "stray" (a prompt goes after -p; see mcphost --help)',
    );
    expect(failure('--max-steps', 'many')).toBe('--max-steps: expected a number, got "many"');
    expect(failure('-p', 'x', '--output-format', 'xml')).toBe(
      '--output-format: "xml" is not one of text, json, stream-json',
    );
    expect(failure('-s', 'a.json', '--save-session', 'b.json')).toBe(
      '--session: not with --save-session or --load-session (it does both)',
    );
  });

  it('prints help and version instead of running', async () => {
    const help = parseArguments(['--help'], '1.2.3');
    expect(help.kind === 'print' && help.text.includes('--provider-url')).toBe(true);
    expect(parseArguments(['--version'], '1.2.3')).toEqual({ kind: 'print', text: '1.2.3' });
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
