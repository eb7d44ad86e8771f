/**
 * The results file of `mcphost batch` on a real file: results handed over together share a flush
 * and each arrives whole, a torn last line is cut off from the next result, and the file is
 * locked while open (a second open fails naming the holder; after close it opens again).
 */
import { mkdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readResultKeys, type BatchResult } from '../../src/batch/result.js';
import { ResultsFile } from '../../src/cli/batch/results-file.js';
import { ConfigError } from '../../src/core/errors.js';
import { useTemporaryFolder } from '../support/temporary-folder.js';

const folder = useTemporaryFolder('mcphost-results-file-');

function result(index: number): BatchResult {
  return {
    key: `job-${index}`,
    id: `job-${index}`,
    status: 'ok',
    answer: `answer ${index} `.repeat(index % 7),
    toolCalls: [],
    usage: { inputTokens: index, outputTokens: 1 },
    durationMs: 1,
    attempts: 1,
  };
}

describe('ResultsFile', () => {
  it('writes every result handed over at once as a whole line, and each resolves once written', async () => {
    const path = join(folder.path, 'results.jsonl');
    const { file, done } = await ResultsFile.open(path);
    expect(done.size).toBe(0);
    const written: number[] = [];
    await Promise.all(
      Array.from({ length: 50 }, async (_, index) => {
        await file.append(result(index));
        // Resolved only when its own line is in the file.
        const text = await readFile(path, 'utf8');
        if (text.includes(`"key":"job-${index}"`)) written.push(index);
      }),
    );
    await file.close();
    expect(written.sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, index) => index));
    const lines = (await readFile(path, 'utf8')).split('\n');
    expect(lines.at(-1)).toBe('');
    expect(
      lines
        .slice(0, -1)
        .map((line) => (JSON.parse(line) as BatchResult).key)
        .sort(),
    ).toEqual(Array.from({ length: 50 }, (_, index) => `job-${index}`).sort());
  });

  it('reads the jobs already done, skips a torn last line and starts the next result on a line of its own', async () => {
    const path = join(folder.path, 'results.jsonl');
    await writeFile(path, `${JSON.stringify(result(1))}\n{"key":"job-2","sta`);
    const { file, done } = await ResultsFile.open(path);
    expect([...done]).toEqual([['job-1', 'ok']]);
    await file.append(result(3));
    await file.close();
    expect([...readResultKeys(await readFile(path, 'utf8')).keys()]).toEqual(['job-1', 'job-3']);
  });

  it('is locked while open: a second open fails naming the file and this process; after close it opens', async () => {
    const path = join(folder.path, 'results.jsonl');
    const first = await ResultsFile.open(path);
    const second = ResultsFile.open(path);
    await expect(second).rejects.toThrow(ConfigError);
    await expect(second).rejects.toThrow(
      `--out ${path}: in use by another mcphost batch (pid ${process.pid}, since `,
    );
    await first.file.close();
    const third = await ResultsFile.open(path);
    await third.file.close();
  });

  it('refuses a file mcphost batch did not write, naming its first such line, and leaves it as it was', async () => {
    const path = join(folder.path, 'other-jobs.jsonl');
    const text = `${JSON.stringify(result(1))}\n{"id": "a", "prompt": "Summarize README.md"}\n`;
    await writeFile(path, text);
    await expect(ResultsFile.open(path)).rejects.toThrow(
      `--out ${path}: line 2 is not a result of mcphost batch ("{\\"id\\": \\"a\\", \\"prompt\\": \\"Summarize README.…"); is it the right file?`,
    );
    expect(await readFile(path, 'utf8')).toBe(text);
    // Its lock was let go: the file is not held after the refusal.
    await writeFile(path, '');
    await (await ResultsFile.open(path)).file.close();
  });

  it('takes a write torn before its first characters, even with results after it, as its own', async () => {
    const path = join(folder.path, 'results.jsonl');
    await writeFile(path, `{"ke\n${JSON.stringify(result(2))}\n{`);
    const { file, done } = await ResultsFile.open(path);
    await file.close();
    expect([...done.keys()]).toEqual(['job-2']);
  });

  it('a lock of another host stops the run while it is fresh, and is taken over once it has gone stale', async () => {
    const path = join(folder.path, 'results.jsonl');
    await mkdir(`${path}.lock`);
    const since = '2026-01-01T00:00:00.000Z';
    await writeFile(`${path}.lock.owner`, JSON.stringify({ pid: 1, host: 'elsewhere.example', since }));
    await expect(ResultsFile.open(path)).rejects.toThrow(
      `--out ${path}: in use by another mcphost batch (pid 1 on elsewhere.example, since ${since})`,
    );
    // Not refreshed for a minute (its holder died): past the stale time, taken over.
    const minuteAgo = new Date(Date.now() - 60_000);
    await utimes(`${path}.lock`, minuteAgo, minuteAgo);
    const { file } = await ResultsFile.open(path);
    expect(JSON.parse(await readFile(`${path}.lock.owner`, 'utf8'))).toMatchObject({ pid: process.pid });
    await file.close();
  });

  it('says when the folder of the file does not exist', async () => {
    const path = join(folder.path, 'missing', 'results.jsonl');
    await expect(ResultsFile.open(path)).rejects.toThrow(`--out ${path}: its folder does not exist`);
  });
});
