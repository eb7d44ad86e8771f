import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseArguments, type CliOptions } from '../../src/cli/args.js';
import { ConfigError } from '../../src/errors.js';
import { readSystemPrompt } from '../../src/setup/system-prompt.js';

async function options(...argv: string[]): Promise<CliOptions> {
  const parsed = await parseArguments(argv, '1.2.3');
  if (parsed.kind !== 'run') throw new Error(`printed instead of running: ${parsed.text}`);
  return parsed.options;
}

async function failure(...argv: string[]): Promise<string> {
  const error = await parseArguments(argv, '1.2.3').catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ConfigError);
  return (error as ConfigError).message;
}

describe('command-line flags', () => {
  it('takes the last value of a flag given twice', async () => {
    expect(await options('-p', 'first', '-p', 'second')).toMatchObject({ prompt: 'second' });
    expect(
      await options('-m', 'ollama:a', '-m', 'ollama:b', '--max-steps', '3', '--max-steps', '4'),
    ).toMatchObject({
      model: 'ollama:b',
      maxSteps: 4,
    });
  });

  it('checks sampling settings with the bounds the config file uses', async () => {
    expect(await failure('--temperature', '-1')).toBe('--temperature: expected a number at least 0, got -1');
    expect(await failure('--top-p', '5')).toBe('--top-p: expected a number from 0 to 1, got 5');
    expect(await options('--top-p', '0.9', '--temperature', '0')).toMatchObject({
      topP: 0.9,
      temperature: 0,
    });
    expect(await failure('--stop-sequences')).toBe('--stop-sequences: give at least one sequence');
  });

  it('refuses a flag whose value was forgotten', async () => {
    expect(await failure('--config')).toBe('--config: needs a value');
    expect(await failure('-p', 'x', '--save-session=')).toBe('--save-session: needs a value');
  });

  it('names the command line once in yargs errors', async () => {
    expect(await failure('--bogus')).toBe('command line: Unknown argument: bogus (see mcphost --help)');
  });

  it('prints help and version instead of running', async () => {
    const help = await parseArguments(['--help'], '1.2.3');
    expect(help.kind === 'print' && help.text.includes('--provider-url')).toBe(true);
    expect(await parseArguments(['--version'], '1.2.3')).toEqual({ kind: 'print', text: '1.2.3' });
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
