/**
 * Roots through the library: the real server-filesystem started without folders takes its allowed
 * folders from mcphost's roots, and follows `runner.setRoots()`.
 */
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, createRunner, type McpRunner } from '../../src/index.js';
import { npmServerConfig, REPOSITORY } from '../support/cli.js';

const FILESYSTEM = npmServerConfig('filesystem');
const SAMPLER = { command: process.execPath, args: [join(REPOSITORY, 'test/fixtures/servers/sampler.mjs')] };

let folder: string;
let first: string;
let second: string;
const runners: McpRunner[] = [];

beforeAll(async () => {
  folder = await realpath(await mkdtemp(join(tmpdir(), 'mcphost-roots-')));
  first = join(folder, 'first');
  second = join(folder, 'second');
  await mkdir(first);
  await mkdir(second);
});
afterEach(async () => {
  await Promise.all(runners.splice(0).map((runner) => runner.close()));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

async function start(options: Parameters<typeof createRunner>[0]): Promise<McpRunner> {
  const runner = await createRunner({
    model: 'ollama:mistral-small',
    providerUrl: 'http://127.0.0.1:9',
    env: {},
    requireServers: true,
    ...options,
  });
  runners.push(runner);
  return runner;
}

async function callText(runner: McpRunner, name: string): Promise<string> {
  const result = await runner.pool.call({ type: 'tool-call', id: name, name, input: {} });
  const block = result.content[0];
  return block?.type === 'text' ? block.text : '';
}

/** Polls until `check` holds (a server asks for the roots again after the notification). */
async function eventually(read: () => Promise<string>, check: (text: string) => boolean): Promise<string> {
  let text = await read();
  for (let waited = 0; waited < 5000 && !check(text); waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    text = await read();
  }
  return text;
}

describe('roots', () => {
  it('give server-filesystem its folders, and it follows setRoots()', async () => {
    const runner = await start({ mcpServers: { files: FILESYSTEM }, roots: [first] });
    expect(runner.roots).toEqual([first]);
    const listed = await eventually(
      () => callText(runner, 'files__list_allowed_directories'),
      (text) => text.includes(first),
    );
    expect(listed).toContain(first);
    expect(listed).not.toContain(second);
    await runner.setRoots([second]);
    expect(runner.roots).toEqual([second]);
    const after = await eventually(
      () => callText(runner, 'files__list_allowed_directories'),
      (text) => text.includes(second) && !text.includes(first),
    );
    expect(after).toContain(second);
    expect(after).not.toContain(first);
  });

  it('are the project folder by default, as file:// URIs', async () => {
    const runner = await start({ mcpServers: { sampler: SAMPLER }, projectDir: first });
    expect(await callText(runner, 'sampler__list-roots')).toBe(
      `result: ${JSON.stringify({ roots: [{ uri: `file://${first}`, name: 'first' }] })}`,
    );
  });

  it('are not offered to a server whose entry says "roots": false: server-filesystem keeps its own folder', async () => {
    const runner = await start({
      mcpServers: {
        files: { ...FILESYSTEM, args: [...FILESYSTEM.args, second], roots: false },
        sampler: { ...SAMPLER, roots: false },
      },
      roots: [first],
    });
    expect(await callText(runner, 'files__list_allowed_directories')).toContain(second);
    await runner.setRoots([folder]);
    // Given time to ask again, had it been told: it keeps its own folder, never the roots.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const listed = await callText(runner, 'files__list_allowed_directories');
    expect(listed).toContain(second);
    expect(listed).not.toContain(first);
    expect(listed).not.toMatch(new RegExp(`${folder}$`, 'm'));
    // The client never declared roots to it, so its request for them is refused.
    expect(await callText(runner, 'sampler__list-roots')).toMatch(/^error: /);
  });

  it('refuse a folder that does not exist, naming it', async () => {
    await expect(start({ mcpServers: { sampler: SAMPLER }, roots: [join(folder, 'nope')] })).rejects.toThrow(
      new ConfigError('roots', `"${join(folder, 'nope')}" is not a directory`),
    );
    const runner = await start({ mcpServers: { sampler: SAMPLER }, roots: [first] });
    await expect(runner.setRoots(['/no/such/folder'])).rejects.toThrow(
      'setRoots: "/no/such/folder" is not a directory',
    );
    expect(runner.roots).toEqual([first]);
  });
});

describe('roots of a server that names its own folders (issue 26)', () => {
  it('server-filesystem keeps the folder of its arguments; the others get the working folder', async () => {
    const runner = await start({
      mcpServers: { files: { ...FILESYSTEM, args: [...FILESYSTEM.args, second] }, sampler: SAMPLER },
      projectDir: first,
    });
    expect(runner.rootsOf('files')).toEqual({
      folders: [second],
      shared: false,
      description: `${second} (named in its arguments)`,
    });
    expect(runner.rootsOf('sampler').description).toBe(`${first} (the working folder)`);
    const listed = await callText(runner, 'files__list_allowed_directories');
    expect(listed).toContain(second);
    expect(listed).not.toContain(first);
    expect(await callText(runner, 'sampler__list-roots')).toBe(
      `result: ${JSON.stringify({ roots: [{ uri: `file://${first}`, name: 'first' }] })}`,
    );
    // Changing the shared roots tells the servers that follow them, and leaves the others alone.
    await runner.setRoots([folder]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await callText(runner, 'files__list_allowed_directories')).toContain(second);
    expect(await callText(runner, 'sampler__list-roots')).toContain(`file://${folder}"`);
  });

  it('--root (the roots option) and the entry\'s own "roots" still decide', async () => {
    const runner = await start({
      mcpServers: {
        files: { ...FILESYSTEM, args: [...FILESYSTEM.args, second] },
        listed: { ...SAMPLER, roots: [second] },
        follows: { ...SAMPLER, roots: true },
      },
      roots: [first],
    });
    const listed = await eventually(
      () => callText(runner, 'files__list_allowed_directories'),
      (text) => text.includes(first),
    );
    expect(listed).toContain(first);
    expect(listed).not.toContain(second);
    expect(await callText(runner, 'listed__list-roots')).toContain(`file://${second}"`);
    expect(await callText(runner, 'follows__list-roots')).toContain(`file://${first}"`);
    expect(runner.rootsOf('listed').description).toBe(`${second} (its "roots")`);
    expect(runner.rootsOf('files').description).toBe(
      `${first} (the shared roots: --root, "roots" or /roots)`,
    );
  });

  it('refuses an entry\'s "roots" folder that does not exist, naming the server', async () => {
    await expect(
      start({ mcpServers: { sampler: { ...SAMPLER, roots: [join(folder, 'nope')] } } }),
    ).rejects.toThrow(`mcpServers: mcpServers.sampler.roots: "${join(folder, 'nope')}" is not a directory`);
  });
});
