import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CliOptions } from '../../src/cli/args.js';
import { splitScriptArguments } from '../../src/cli/script/script-arguments.js';
import { splitScript } from '../../src/cli/script/script-front-matter.js';
import { applyScript, loadScript } from '../../src/cli/script/script.js';
import { ConfigError } from '../../src/core/errors.js';

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'mcphost-script-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

async function script(text: string, name = 'task.md'): Promise<string> {
  const path = join(folder, name);
  await writeFile(path, text);
  return path;
}

async function failure(promise: Promise<unknown>): Promise<ConfigError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

describe('splitScript', () => {
  it('skips a shebang and splits the front matter from the body, with line numbers', () => {
    const parts = splitScript('#!/usr/bin/env -S mcphost script\n---\nmodel: a:b\n---\nHello\nthere\n', 'f');
    expect(parts.body).toBe('Hello\nthere\n');
    expect(parts.bodyLine).toBe(5);
    // Padded so that YAML reports the file's own line numbers.
    expect(parts.frontMatter?.split('\n')[2]).toBe('model: a:b');
  });

  it('takes a file without front matter (and CRLF line ends) as all prompt', () => {
    expect(splitScript('Just ask.\r\nTwo lines.', 'f')).toEqual({
      frontMatter: undefined,
      body: 'Just ask.\nTwo lines.',
      bodyLine: 1,
    });
  });

  it('reports front matter that is never closed', () => {
    expect(() => splitScript('---\nmodel: x\nHello', 'f.md')).toThrow(
      'f.md: the front matter opened by --- on line 1 is never closed (end it with a line of ---)',
    );
  });
});

describe('splitScriptArguments', () => {
  it('takes --args:name value and --args:name=value out of argv, as strings', () => {
    expect(
      splitScriptArguments([
        'script',
        'f.md',
        '--args:count',
        '007',
        '-m',
        'x',
        '--args:path=/a=b',
        '--args:empty=',
      ]),
    ).toEqual({
      argv: ['script', 'f.md', '-m', 'x'],
      scriptArguments: { count: '007', path: '/a=b', empty: '' },
      any: true,
    });
    expect(splitScriptArguments(['-p', 'x']).any).toBe(false);
  });

  it('rejects bad names, missing values and repeats', () => {
    expect(() => splitScriptArguments(['--args:1st', 'x'])).toThrow(/letters, digits and _/);
    expect(() => splitScriptArguments(['--args:name'])).toThrow('--args:name: needs a value');
    expect(() => splitScriptArguments(['--args:name', '--debug'])).toThrow(/needs a value/);
    expect(() => splitScriptArguments(['--args:a', '1', '--args:a', '2'])).toThrow(/given twice/);
  });
});

describe('loadScript', () => {
  it('fills ${name} and ${name:-default} from --args, ${env://NAME} from the environment, $${ as ${', async () => {
    const path = await script(
      '---\nmodel: ollama:qwen2.5:3b\nmaxSteps: 3\ntemperature: 0.2\nstop-sequences: [END]\n---\n' +
        'Summarize ${file} in ${words:-50} words for ${env://USER_NAME}. Keep $${literal}.\n',
    );
    const loaded = await loadScript(path, { file: 'README.md' }, { USER_NAME: 'Ada' });
    expect(loaded.prompt).toBe('Summarize README.md in 50 words for Ada. Keep ${literal}.');
    expect(loaded).toMatchObject({
      model: 'ollama:qwen2.5:3b',
      maxSteps: 3,
      generation: { temperature: 0.2, stopSequences: ['END'] },
      warnings: [],
    });
    expect(loaded.servers).toBeUndefined();
  });

  it('names a missing variable, the file and the line', async () => {
    const path = await script('---\nmodel: a:b\n---\nFirst line.\nUse ${target} now.\n');
    const error = await failure(loadScript(path, {}, { target: 'from-env-is-not-used-in-the-body' }));
    expect(error.message).toBe(
      `${path}: line 5: variable "target" has no value: pass --args:target VALUE, or give it a default (\${target:-…})`,
    );
  });

  it('reads mcpServers (or mcp-servers) with the config parser, expanding --args then the environment', async () => {
    const path = await script(
      [
        '---',
        'mcp-servers:',
        '  files:',
        '    command: node',
        '    args: ["server.js", "${root}", "${HOME}"]',
        'model: ${model:-ollama:llama3.2}',
        '---',
        'List the files.',
      ].join('\n'),
    );
    const loaded = await loadScript(path, { root: '/data' }, { HOME: '/home/ada' });
    expect(loaded.model).toBe('ollama:llama3.2');
    expect(Object.keys(loaded.servers ?? {})).toEqual(['files']);
    expect(loaded.servers?.files).toMatchObject({
      command: 'node',
      args: ['server.js', '/data', '/home/ada'],
    });
  });

  it("reports what is wrong in the front matter in the config's words", async () => {
    const badType = await script('---\nmaxSteps: 0\n---\nHi');
    expect((await failure(loadScript(badType, {}, {}))).message).toBe(
      `${badType}: maxSteps: expected number > 0, got 0`,
    );
    const badServer = await script('---\nmcpServers:\n  x:\n    command: 7\n---\nHi', 'server.md');
    expect((await failure(loadScript(badServer, {}, {}))).message).toContain(
      `${badServer}: mcpServers.x.command`,
    );
    const unknown = await script('---\nmodle: a:b\n---\nHi', 'unknown.md');
    expect((await failure(loadScript(unknown, {}, {}))).message).toMatch(/front matter: unknown key "modle"/);
    const notHere = await script('---\nproviderApiKey: sk-123\n---\nHi', 'key.md');
    expect((await failure(loadScript(notHere, {}, {}))).message).toMatch(
      /a setting for the config file, not a script: "providerApiKey"/,
    );
    const yaml = await script('---\nmodel: [unclosed\n---\nHi', 'yaml.md');
    expect((await failure(loadScript(yaml, {}, {}))).message).toMatch(
      new RegExp(`^${yaml}: invalid YAML at line \\d`),
    );
  });

  it('finds a system prompt file next to the script, and warns about --args it never uses', async () => {
    await writeFile(join(folder, 'system.txt'), 'You are terse.');
    const path = await script('---\nsystemPrompt: system.txt\n---\nHi ${name:-you}');
    const loaded = await loadScript(path, { name: 'Bo', nmae: 'typo' }, {});
    expect(loaded.systemPrompt).toBe(join(folder, 'system.txt'));
    expect(loaded.prompt).toBe('Hi Bo');
    expect(loaded.warnings).toEqual([`${path}: --args:nmae is not used by the script`]);
  });

  it('suggests the variable a mistyped --args name meant', async () => {
    const path = await script('Review ${file} for ${reason:-bugs}', 'review.md');
    const error = await failure(loadScript(path, { fiel: 'src/main.ts' }, {}));
    expect(error.message).toBe(`--args:fiel: ${path} has no variable "fiel": did you mean --args:file?`);
  });

  it('refuses a script without a prompt, and a missing file', async () => {
    const empty = await script('---\nmodel: a:b\n---\n\n  \n');
    expect((await failure(loadScript(empty, {}, {}))).detail).toMatch(/has no prompt/);
    expect((await failure(loadScript(join(folder, 'nope.md'), {}, {}))).detail).toBe('no such script file');
  });
});

describe('applyScript', () => {
  it('lets flags win over the front matter', async () => {
    const path = await script('---\nmodel: a:front\nmaxSteps: 3\ntemperature: 0.5\ntopK: 4\n---\nGo');
    const loaded = await loadScript(path, {}, {});
    const flags: CliOptions = {
      model: 'b:flag',
      temperature: 0.9,
      debug: false,
      quiet: false,
      outputFormat: 'text',
      noExit: false,
      approveAll: false,
    };
    expect(applyScript(flags, loaded)).toEqual({
      ...flags,
      prompt: 'Go',
      maxSteps: 3,
      topK: 4,
    });
  });
});
