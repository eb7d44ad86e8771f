/**
 * The `fs` built-in server through the real pool and the in-memory transport: each tool, and the
 * confinement rules (`..`, absolute paths outside, symbolic links to files and folders outside).
 */
import { chmod, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { McpPool } from '../../src/mcp/pool.js';
import { callTool, closePoolsAfterEach, startBuiltin } from './support.js';

closePoolsAfterEach();

let root: string;
let allowed: string;
let outside: string;
let pool: McpPool;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'mcphost-fs-'));
  allowed = join(root, 'allowed');
  outside = join(root, 'outside');
  await mkdir(join(allowed, 'src', 'deep'), { recursive: true });
  await mkdir(outside);
  await writeFile(join(allowed, 'notes.txt'), 'line one\nline two\nline three\n');
  await writeFile(join(allowed, 'src', 'a.ts'), 'export const answer = 42;\n');
  await writeFile(join(allowed, 'src', 'deep', 'b.ts'), 'const question = "?";\nexport const answer = 41;\n');
  await writeFile(join(outside, 'secret.txt'), 'the secret');
  await symlink(join(outside, 'secret.txt'), join(allowed, 'link-to-secret'));
  await symlink(outside, join(allowed, 'escape'));
  await symlink(join(allowed, 'notes.txt'), join(allowed, 'link-inside'));
  pool = await startBuiltin({ name: 'fs', options: { allowedDirectories: [allowed] } });
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('fs tools', () => {
  it('lists the tools under the server name', async () => {
    const names = (await pool.tools()).map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'fs__read_file',
        'fs__write_file',
        'fs__edit_file',
        'fs__list_directory',
        'fs__search_files',
        'fs__get_file_info',
        'fs__list_allowed_directories',
      ]),
    );
  });

  it('reads a file, whole or by lines, relative to the allowed directory', async () => {
    expect(await callTool(pool, 'fs__read_file', { path: 'notes.txt' })).toEqual({
      text: 'line one\nline two\nline three\n',
      isError: false,
    });
    const part = await callTool(pool, 'fs__read_file', {
      path: join(allowed, 'notes.txt'),
      offset: 2,
      limit: 1,
    });
    expect(part.text).toBe('line two');
  });

  it('follows a symbolic link that stays inside', async () => {
    expect((await callTool(pool, 'fs__read_file', { path: 'link-inside' })).text).toContain('line one');
  });

  it('writes a new file (creating folders) and replaces an existing one', async () => {
    const written = await callTool(pool, 'fs__write_file', { path: 'new/dir/file.md', content: '# hello\n' });
    expect(written.isError).toBe(false);
    expect(await readFile(join(allowed, 'new', 'dir', 'file.md'), 'utf8')).toBe('# hello\n');
    await callTool(pool, 'fs__write_file', { path: 'notes.txt', content: 'replaced' });
    expect(await readFile(join(allowed, 'notes.txt'), 'utf8')).toBe('replaced');
  });

  it("creates the user's files with the umask's permissions, as any editor does, not mcphost's private 0600", async () => {
    // A file made by Node's writeFile gets 0666 masked by this process's umask: the reference.
    await writeFile(join(root, 'reference'), '');
    const expected = (await stat(join(root, 'reference'))).mode & 0o777;
    expect(expected).not.toBe(0o600);
    await callTool(pool, 'fs__write_file', { path: 'made-by-the-model.txt', content: 'x' });
    expect((await stat(join(allowed, 'made-by-the-model.txt'))).mode & 0o777).toBe(expected);
    // An existing file keeps its own permissions when written or edited.
    await chmod(join(allowed, 'notes.txt'), 0o640);
    await callTool(pool, 'fs__edit_file', { path: 'notes.txt', old_text: 'line one', new_text: 'line 1' });
    expect((await stat(join(allowed, 'notes.txt'))).mode & 0o777).toBe(0o640);
  });

  it('edits by exact, unique replacement, and says why it will not', async () => {
    const edited = await callTool(pool, 'fs__edit_file', {
      path: 'notes.txt',
      old_text: 'line two',
      new_text: 'line 2 costs $& and $1',
    });
    expect(edited).toEqual({
      text: expect.stringContaining('replaced 1 occurrence') as string,
      isError: false,
    });
    expect(await readFile(join(allowed, 'notes.txt'), 'utf8')).toBe(
      'line one\nline 2 costs $& and $1\nline three\n',
    );

    const missing = await callTool(pool, 'fs__edit_file', {
      path: 'notes.txt',
      old_text: 'line four',
      new_text: 'x',
    });
    expect(missing.isError).toBe(true);
    expect(missing.text).toContain('not found');

    const ambiguous = await callTool(pool, 'fs__edit_file', {
      path: 'notes.txt',
      old_text: 'line',
      new_text: 'row',
    });
    expect(ambiguous.isError).toBe(true);
    expect(ambiguous.text).toContain('occurs 3 times');
    expect(await readFile(join(allowed, 'notes.txt'), 'utf8')).toContain('line one');

    const all = await callTool(pool, 'fs__edit_file', {
      path: 'notes.txt',
      old_text: 'line',
      new_text: 'row',
      replace_all: true,
    });
    expect(all.text).toContain('replaced 3 occurrences');
    expect(await readFile(join(allowed, 'notes.txt'), 'utf8')).toBe(
      'row one\nrow 2 costs $& and $1\nrow three\n',
    );
  });

  it('lists a folder with types and sizes', async () => {
    const { text } = await callTool(pool, 'fs__list_directory', {});
    expect(text.split('\n')).toEqual([
      `[link] escape -> ${outside}`,
      `[link] link-inside -> ${join(allowed, 'notes.txt')}`,
      `[link] link-to-secret -> ${join(outside, 'secret.txt')}`,
      '[file] notes.txt (29 bytes)',
      '[dir]  src',
    ]);
  });

  it('finds files by glob, and lines by content', async () => {
    expect((await callTool(pool, 'fs__search_files', { pattern: '**/*.ts' })).text).toBe(
      'src/a.ts\nsrc/deep/b.ts',
    );
    const { text } = await callTool(pool, 'fs__search_files', { pattern: '**/*.ts', contains: 'answer' });
    expect(text).toBe('src/a.ts:1: export const answer = 42;\nsrc/deep/b.ts:2: export const answer = 41;');
    expect((await callTool(pool, 'fs__search_files', { pattern: '*.ts', path: 'src/deep' })).text).toBe(
      'b.ts',
    );
  });

  it('describes a file, and names the allowed directories', async () => {
    const { text } = await callTool(pool, 'fs__get_file_info', { path: 'notes.txt' });
    expect(text).toContain('type: file');
    expect(text).toContain('size: 29');
    expect((await callTool(pool, 'fs__list_allowed_directories')).text).toBe(allowed);
  });
});

describe('fs confinement', () => {
  it('refuses a path that leaves with ..', async () => {
    const result = await callTool(pool, 'fs__read_file', { path: '../outside/secret.txt' });
    expect(result.isError).toBe(true);
    expect(result.text).toContain('access denied');
    expect(result.text).not.toContain('the secret');
    const written = await callTool(pool, 'fs__write_file', {
      path: 'src/../../outside/new.txt',
      content: 'x',
    });
    expect(written.isError).toBe(true);
    expect(existsSync(join(outside, 'new.txt'))).toBe(false);
  });

  it('refuses an absolute path outside', async () => {
    const result = await callTool(pool, 'fs__read_file', { path: join(outside, 'secret.txt') });
    expect(result).toEqual({
      text: expect.stringContaining('outside the allowed directories') as string,
      isError: true,
    });
  });

  it('refuses a symbolic link to a file outside, for reading, editing and info', async () => {
    for (const [tool, input] of [
      ['fs__read_file', {}],
      ['fs__edit_file', { old_text: 'the', new_text: 'a' }],
      ['fs__get_file_info', {}],
    ] as const) {
      const result = await callTool(pool, tool, { path: 'link-to-secret', ...input });
      expect(result.isError, tool).toBe(true);
      expect(result.text, tool).toContain(`(really ${join(outside, 'secret.txt')})`);
    }
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('the secret');
  });

  it('refuses a symbolic link to a folder outside, for reading, writing, listing and searching', async () => {
    expect((await callTool(pool, 'fs__read_file', { path: 'escape/secret.txt' })).isError).toBe(true);
    expect((await callTool(pool, 'fs__list_directory', { path: 'escape' })).isError).toBe(true);
    const written = await callTool(pool, 'fs__write_file', { path: 'escape/planted.txt', content: 'x' });
    expect(written.isError).toBe(true);
    expect(existsSync(join(outside, 'planted.txt'))).toBe(false);
    expect((await callTool(pool, 'fs__search_files', { pattern: 'escape/*' })).text).toBe('no matches');
    expect((await callTool(pool, 'fs__search_files', { pattern: '**/*', contains: 'secret' })).text).toBe(
      'no matches',
    );
    const upward = await callTool(pool, 'fs__search_files', { pattern: '../outside/*' });
    expect(upward.isError).toBe(true);
  });

  it('fails to start with an allowed directory that does not exist, and says which', async () => {
    const { McpPool } = await import('../../src/mcp/pool.js');
    const missing = join(root, 'missing');
    const broken = await McpPool.start({
      servers: {
        fs: { transport: 'builtin', builtin: { name: 'fs', options: { allowedDirectories: [missing] } } },
      },
      env: {},
    });
    try {
      const [status] = broken.status();
      expect(status?.state).toBe('failed');
      expect(status?.lastError).toContain(missing);
    } finally {
      await broken.close();
    }
  });
});
