/** The persistent input history file. */
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HistoryFile, historyFilePath, loadHistory } from '../../src/cli/chat/input-history.js';

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'mcphost-history-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('historyFilePath', () => {
  it('uses XDG_STATE_HOME when it is absolute, else ~/.local/state', () => {
    expect(historyFilePath({ XDG_STATE_HOME: '/state' }, '/home/me')).toBe('/state/mcphost/history');
    expect(historyFilePath({ XDG_STATE_HOME: 'relative' }, '/home/me')).toBe(
      '/home/me/.local/state/mcphost/history',
    );
    expect(historyFilePath({}, '/home/me')).toBe('/home/me/.local/state/mcphost/history');
  });
});

describe('HistoryFile', () => {
  it('keeps multi-line entries, skips damaged lines, and reads nothing from a missing file', async () => {
    const path = join(folder, 'deep', 'history');
    expect(await loadHistory(path)).toEqual([]);
    const file = new HistoryFile(path);
    await file.add('one');
    await file.add('two\nlines');
    await file.add('two\nlines');
    expect(await loadHistory(path)).toEqual(['one', 'two\nlines']);
    await writeFile(path, `${await readFile(path, 'utf8')}{not json\n42\n"three"\n`);
    expect(await loadHistory(path)).toEqual(['one', 'two\nlines', 'three']);
    // Private, and no temporary file left behind.
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readdir(join(folder, 'deep'))).toEqual(['history']);
  });

  it('caps the entries, and keeps the entries of two chats running at once', async () => {
    const path = join(folder, 'history');
    const first = new HistoryFile(path, 3);
    const second = new HistoryFile(path, 3);
    await Promise.all([first.add('a'), first.add('b')]);
    await second.add('c');
    await first.add('d');
    expect(await loadHistory(path)).toEqual(['b', 'c', 'd']);
  });

  it('reports a failed save and goes on saving', async () => {
    const blocker = join(folder, 'not-a-folder');
    await writeFile(blocker, 'x');
    const file = new HistoryFile(join(blocker, 'history'));
    await expect(file.add('lost')).rejects.toThrow();
    await file.flush();
  });
});
