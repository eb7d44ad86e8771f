/** The results file's lock leaves an owner file that is no longer its own in place on release. */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ResultsLock } from '../../src/cli/batch/results-lock.js';
import { useTemporaryFolder } from '../support/temporary-folder.js';

const folder = useTemporaryFolder('mcphost-results-lock-');

describe('ResultsLock', () => {
  it("removes its owner file on release, but not another run's that took the lock over", async () => {
    const results = join(folder.path, 'results.jsonl');
    const first = await ResultsLock.take(results, '--output results.jsonl');
    await first.release();
    await expect(readFile(`${results}.lock.owner`, 'utf8')).rejects.toThrow(/ENOENT/);

    const second = await ResultsLock.take(results, '--output results.jsonl');
    const other = `${JSON.stringify({ pid: 999_999, host: 'elsewhere', since: new Date().toISOString() })}\n`;
    await writeFile(`${results}.lock.owner`, other);
    await second.release();
    expect(await readFile(`${results}.lock.owner`, 'utf8')).toBe(other);
  });
});
