/** Tab completion of `@path` in the chat: names in the typed folder, folders with a slash. */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completePathMention } from '../../src/cli/chat/path-completion.js';
import type { AttachmentPlaces } from '../../src/cli/file-attachments.js';

let root: string;
let places: AttachmentPlaces;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'mcphost-complete-'));
  places = { cwd: join(root, 'cwd'), home: join(root, 'home') };
  await mkdir(join(places.cwd, 'src'), { recursive: true });
  await mkdir(places.home);
  await writeFile(join(places.cwd, 'notes.md'), '');
  await writeFile(join(places.cwd, 'notes.txt'), '');
  await writeFile(join(places.cwd, '.hidden'), '');
  await writeFile(join(places.cwd, 'src', 'main.ts'), '');
  await writeFile(join(places.home, 'todo.txt'), '');
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('completePathMention', () => {
  it('offers the names in the current folder after @./, folders ending in a slash, no hidden ones', async () => {
    expect(await completePathMention('look at @./', places)).toEqual([
      ['@./notes.md', '@./notes.txt', '@./src/'],
      '@./',
    ]);
  });

  it('narrows by the typed start, goes into folders and home', async () => {
    expect(await completePathMention('@notes.m', places)).toEqual([['@notes.md'], '@notes.m']);
    expect(await completePathMention('see @src/m', places)).toEqual([['@src/main.ts'], '@src/m']);
    expect(await completePathMention('@~/t', places)).toEqual([['@~/todo.txt'], '@~/t']);
    expect(await completePathMention('@./.h', places)).toEqual([['@./.hidden'], '@./.h']);
  });

  it('leaves server mentions, plain names and other words to the other completions', async () => {
    expect(await completePathMention('@everything:test://', places)).toBeUndefined();
    expect(await completePathMention('@alice', places)).toBeUndefined();
    expect(await completePathMention('hello', places)).toBeUndefined();
    expect(await completePathMention('@./nowhere/x', places)).toEqual([[], '@./nowhere/x']);
  });
});
