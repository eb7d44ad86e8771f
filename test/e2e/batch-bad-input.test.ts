/**
 * Bad input to `mcphost batch` found by trying it as a user would: each is one line on stderr that
 * names the flag and the file, exit 2, and nothing written where it should not be.
 */
import { access, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { useCliFixture } from '../support/cli-fixture.js';

const fixture = useCliFixture();
// Nothing listens there: these runs must stop before any model is asked.
const MODEL = ['-m', 'ollama:mistral-small', '--provider-url', 'http://127.0.0.1:9'];

describe('mcphost batch: bad input', () => {
  it('refuses the jobs file itself (or a link to it) as --out, and leaves it as it was', async () => {
    const folder = await fixture.temporaryFolder('mcphost-batch-bad-');
    const jobs = join(folder, 'jobs.jsonl');
    await writeFile(jobs, 'Say hello\n');
    // The same path, and a link to it.
    const link = join(folder, 'results.jsonl');
    await symlink(jobs, link);
    for (const out of [jobs, link]) {
      const run = await runCli(['batch', jobs, '--out', out, ...MODEL], fixture.home.path);
      expect(run.code).toBe(2);
      expect(run.stderr.trim()).toBe(
        `mcphost: --out ${out}: is the jobs file itself; results need a file of their own`,
      );
    }
    expect(await readFile(jobs, 'utf8')).toBe('Say hello\n');
    await expect(access(`${jobs}.lock`)).rejects.toThrow();
  });

  it('refuses an --out that is not a results file (another batch’s jobs), leaving it as it was', async () => {
    const folder = await fixture.temporaryFolder('mcphost-batch-bad-');
    const jobs = join(folder, 'jobs.jsonl');
    await writeFile(jobs, 'Say hello\n');
    const other = join(folder, 'other-jobs.jsonl');
    await writeFile(other, 'Say goodbye\n');
    const run = await runCli(['batch', jobs, '--out', other, ...MODEL], fixture.home.path);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual([
      `mcphost: --out ${other}: line 1 is not a result of mcphost batch ("Say goodbye"); is it the right file? Results are not appended to another kind of file`,
    ]);
    expect(await readFile(other, 'utf8')).toBe('Say goodbye\n');
  });

  it('says when the folder of --out does not exist', async () => {
    const folder = await fixture.temporaryFolder('mcphost-batch-bad-');
    const jobs = join(folder, 'jobs.jsonl');
    await writeFile(jobs, 'Say hello\n');
    const out = join(folder, 'no-such-folder', 'results.jsonl');
    const run = await runCli(['batch', jobs, '--out', out, ...MODEL], fixture.home.path);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(`mcphost: --out ${out}: its folder does not exist`);
  });
});
