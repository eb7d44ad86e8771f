/**
 * The `jobs` commands as a user types them, right and wrong (the built CLI, a real PostgreSQL):
 * where the database comes from (`--db` > `MCPHOST_DATABASE_URL` > the config's `jobs.database`),
 * and bad input — a key that names no job, a mistyped or incomplete command, a bad config value —
 * each as one line naming what was wrong, with exit code 2.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCli, startCli, temporaryHome, type CliRun, type TemporaryHome } from '../support/cli.js';
import { startTestPostgres, type TestPostgres } from '../support/postgres.js';
import { JOB_MODEL, jobs, waitUntil } from '../support/workers.js';

let postgres: TestPostgres;
let home: TemporaryHome;

beforeAll(async () => {
  postgres = await startTestPostgres();
  home = await temporaryHome();
}, 120_000);
afterAll(async () => {
  await home.remove();
  await postgres.close();
});

/** `mcphost jobs …` with nothing in the environment but HOME and PATH. */
function jobsWithoutEnv(...args: string[]): Promise<CliRun> {
  return runCli(['jobs', ...args], home.path, { timeoutMs: 120_000 });
}

function jobCount(run: CliRun): string | undefined {
  return /^jobs: (\d+)$/m.exec(run.stdout)?.[1];
}

async function submitOne(db: string, id: string): Promise<void> {
  const file = join(home.path, `${id}.jsonl`);
  await writeFile(file, `${JSON.stringify({ id, prompt: 'hello' })}\n`);
  const run = await jobs(home.path, db, 'submit', file, '-m', JOB_MODEL);
  expect(run.stderr).toContain('submitted 1 job');
}

describe('mcphost jobs: the database and bad input', () => {
  it('takes the database from --db, else MCPHOST_DATABASE_URL, else the config’s jobs.database', async () => {
    const inConfig = await postgres.freshDatabase();
    const inEnv = await postgres.freshDatabase();
    await submitOne(inConfig, 'in-config');
    await home.writeConfig({ model: JOB_MODEL, jobs: { database: inConfig } });

    const fromConfig = await jobsWithoutEnv('status');
    expect(fromConfig.code).toBe(0);
    expect(jobCount(fromConfig)).toBe('1');
    // The environment wins over the config (the empty database has no job)…
    const fromEnv = await jobs(home.path, inEnv, 'status');
    expect(fromEnv.code).toBe(0);
    expect(jobCount(fromEnv)).toBe('0');
    // …and the flag over the environment.
    const fromFlag = await jobs(home.path, inEnv, 'status', '--db', inConfig);
    expect(jobCount(fromFlag)).toBe('1');
  });

  it("a worker takes the database from its --config file's jobs.database", async () => {
    const db = await postgres.freshDatabase();
    const config = await home.writeConfig({ model: JOB_MODEL, jobs: { database: db } }, 'worker.json');
    await home.writeConfig({});
    const worker = startCli(['worker', '--config', config, '--executor-id', 'w-config'], home.path, {
      timeoutMs: 120_000,
    });
    try {
      await waitUntil(
        () => Promise.resolve(worker.stderr().includes('worker w-config running jobs')),
        () => worker.stderr(),
        60_000,
      );
      // It registered itself in that database.
      expect((await jobs(home.path, db, 'status')).stdout).toContain('w-config\tlast seen');
    } finally {
      worker.child.kill('SIGTERM');
      expect((await worker.done).code).toBe(0);
    }
  });

  it('a bad database URL is one line naming where it came from (file and key, flag, variable); none at all says where to give one', async () => {
    const path = await home.writeConfig({ jobs: { database: 'mysql://db.internal/jobs' } });
    const bad = await jobsWithoutEnv('status');
    expect(bad.stderr.trim().split('\n')).toEqual([
      `mcphost: ${path}: jobs.database: must be a URL starting with postgres:// or postgresql://`,
    ]);
    expect(bad.code).toBe(2);
    await home.writeConfig({});
    const none = await jobsWithoutEnv('status');
    expect(none.stderr.trim().split('\n')).toEqual([
      'mcphost: --db: no jobs database: give --db postgres://…, set MCPHOST_DATABASE_URL, or "jobs": { "database": … } in the config',
    ]);
    expect(none.code).toBe(2);
    // A URL that is not PostgreSQL's, from the flag or the environment, names where it came from.
    const badFlag = await jobsWithoutEnv('status', '--db', 'mysql://db.internal/jobs');
    expect(badFlag.stderr.trim().split('\n')).toEqual([
      'mcphost: --db: must be a URL starting with postgres:// or postgresql://',
    ]);
    expect(badFlag.code).toBe(2);
    const badEnv = await jobs(home.path, 'db.internal/jobs', 'status');
    expect(badEnv.stderr.trim().split('\n')).toEqual([
      'mcphost: MCPHOST_DATABASE_URL: must be a URL starting with postgres:// or postgresql://',
    ]);
    expect(badEnv.code).toBe(2);
  });

  it('a key that names no job is one line naming it, for every command that takes keys', async () => {
    const db = await postgres.freshDatabase();
    await home.writeConfig({ model: JOB_MODEL });
    await submitOne(db, 'real');
    const address = new URL(db).host;
    for (const args of [
      ['status', 'nope'],
      ['status', '--follow', 'nope'],
      ['results', 'nope'],
      ['cancel', 'real', 'nope'],
      ['retry', 'nope'],
    ]) {
      const run = await jobs(home.path, db, ...args);
      expect(run.stderr.trim().split('\n'), args.join(' ')).toEqual([
        `mcphost: jobs ${args[0]}: no job "nope" in the jobs database at ${address} (mcphost jobs status lists them)`,
      ]);
      expect(run.code).toBe(2);
    }
    // Nothing was done to the job named beside the unknown one.
    expect((await jobs(home.path, db, 'status', 'real')).stdout).toMatch(/^real\tENQUEUED\t/);
    // A job without a result yet is named, not silently left out.
    const results = await jobs(home.path, db, 'results', 'real');
    expect(results.stdout).toBe('');
    expect(results.stderr.trim()).toBe('mcphost: jobs results: "real" has no result yet (ENQUEUED)');
    expect(results.code).toBe(0);
    // A job that cannot be retried says why, naming it.
    const retry = await jobs(home.path, db, 'retry', 'real');
    expect(retry.stderr).toContain(
      'mcphost: jobs retry: "real" is ENQUEUED; only failed or cancelled jobs are run again',
    );
    expect(retry.code).toBe(2);
  });

  it('a mistyped or incomplete jobs command is one line saying what is missing', async () => {
    const expected: ReadonlyArray<readonly [readonly string[], string]> = [
      [[], 'mcphost: jobs: needs a command: submit, status, results, cancel, retry, recover'],
      [
        ['stauts'],
        'mcphost: jobs: unknown command "stauts": did you mean status? (commands: submit, status, results, cancel, retry, recover)',
      ],
      [['submit'], 'mcphost: jobs submit: give the jobs file: mcphost jobs submit FILE.jsonl'],
      [['cancel'], 'mcphost: jobs cancel: give the jobs to cancel: mcphost jobs cancel KEY…'],
      [['status', '--follow'], 'mcphost: --follow: give one job: mcphost jobs status --follow KEY'],
      [
        ['recover', '--executor'],
        "mcphost: --executor: give a worker's executor id: mcphost jobs recover --executor ID",
      ],
      [['submit', '.'], 'mcphost: .: is a folder, not a jobs file'],
    ];
    const db = await postgres.freshDatabase();
    for (const [args, line] of expected) {
      const run = await jobs(home.path, db, ...args);
      expect(run.stderr.trim().split('\n')).toEqual([line]);
      expect(run.code).toBe(2);
    }
  });
});
