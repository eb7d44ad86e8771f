/**
 * Durable workers survive a crash: two `mcphost worker` processes on one PostgreSQL run 200 jobs;
 * one is killed with SIGKILL mid-run and started again with its executor id. Every job completes
 * once, and no model call whose answer was recorded is asked again. Then a worker that never
 * comes back: `mcphost jobs recover` moves its jobs onto a live worker.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPostgres, type TestPostgres } from '../support/postgres.js';
import {
  jobCounts,
  jobs,
  newLedger,
  recordedModelCalls,
  startWorkerModel,
  startWorkerProcess,
  waitUntil,
  workerHome,
  writeJobsFile,
  type ModelLedger,
  type WorkerModel,
} from '../support/workers.js';
import type { RunningCli } from '../support/cli.js';

let postgres: TestPostgres;
let setup: Awaited<ReturnType<typeof workerHome>>;
const running: RunningCli[] = [];
const models: WorkerModel[] = [];

beforeAll(async () => {
  postgres = await startTestPostgres();
  setup = await workerHome();
}, 120_000);
afterAll(async () => {
  for (const worker of running) worker.child.kill('SIGKILL');
  await Promise.allSettled(running.map((worker) => worker.done));
  await Promise.all(models.map((model) => model.fake.close()));
  await setup.remove();
  await postgres.close();
});

async function model(ledger: ModelLedger): Promise<WorkerModel> {
  const started = await startWorkerModel(ledger);
  models.push(started);
  return started;
}

function worker(db: string, fake: WorkerModel, executorId: string, args: readonly string[] = []): RunningCli {
  const started = startWorkerProcess(setup.home.path, { db, modelUrl: fake.fake.url, executorId, args });
  running.push(started);
  return started;
}

function answeredTwice(ledger: ModelLedger): number {
  return [...ledger.answered.values()].filter((count) => count > 1).length;
}

describe('durable workers', () => {
  it('two workers, 200 jobs, one killed with SIGKILL mid-run: every job completes once, no recorded model call is asked again', async () => {
    const db = await postgres.freshDatabase();
    const ledger = newLedger();
    const modelA = await model(ledger);
    const modelB = await model(ledger);
    const file = await writeJobsFile(setup.home.path, 200, setup.note, 'crash');
    expect((await jobs(setup.home.path, db, 'submit', file, '--concurrency', '8')).code).toBe(0);
    const workerA = worker(db, modelA, 'w-a');
    worker(db, modelB, 'w-b');
    const describeState = async (): Promise<string> => JSON.stringify(await jobCounts(db));
    await waitUntil(async () => ((await jobCounts(db)).SUCCESS ?? 0) >= 40, describeState);

    // Worker A's model holds its next answers; once every answer it had is recorded, A is killed
    // with requests in flight that were never answered (those may be asked again, and are).
    modelA.hold();
    await waitUntil(
      async () => modelA.held() > 0 && (await recordedModelCalls(db, 'w-a')) === modelA.answeredCount(),
      async () =>
        `held ${modelA.held()}, answered ${modelA.answeredCount()}, recorded ${await recordedModelCalls(db, 'w-a')}`,
      60_000,
    );
    const heldAtKill = modelA.held();
    workerA.child.kill('SIGKILL');
    await workerA.done;
    modelA.release(true);
    const unfinished = (await jobCounts(db)).PENDING ?? 0;

    // The same executor id started again: DBOS recovers its workflows from their last recorded step.
    const modelA2 = await model(ledger);
    worker(db, modelA2, 'w-a');
    await waitUntil(async () => (await jobCounts(db)).SUCCESS === 200, describeState);

    expect(heldAtKill).toBeGreaterThan(0);
    expect(unfinished).toBeGreaterThan(0);
    expect(await jobCounts(db)).toEqual({ SUCCESS: 200 });
    // Each job: two model calls, each answered to a live worker exactly once, and recorded once.
    expect(answeredTwice(ledger)).toBe(0);
    expect(ledger.answered.size).toBe(400);
    expect(await recordedModelCalls(db)).toBe(400);
    // Some unanswered requests of the dead worker were asked again after the restart.
    expect([...ledger.seen.values()].some((count) => count > 1)).toBe(true);
    const results = (await jobs(setup.home.path, db, 'results')).stdout.trim().split('\n');
    const keys = results.map((line) => (JSON.parse(line) as { key: string; status: string }).key);
    expect(new Set(keys).size).toBe(200);
    expect(keys.length).toBe(200);
    expect(results.every((line) => (JSON.parse(line) as { status: string }).status === 'ok')).toBe(true);
  }, 600_000);

  it('jobs recover: the jobs of a worker that never comes back go to a live worker', async () => {
    const db = await postgres.freshDatabase();
    const ledger = newLedger();
    const modelA = await model(ledger);
    const modelB = await model(ledger);
    const file = await writeJobsFile(setup.home.path, 6, setup.note, 'gone');
    expect((await jobs(setup.home.path, db, 'submit', file)).code).toBe(0);
    modelA.hold();
    const workerA = worker(db, modelA, 'w-gone', ['--dead-after', '0']);
    await waitUntil(
      async () => modelA.held() === 6,
      async () => `held ${modelA.held()}: ${JSON.stringify(await jobCounts(db))}`,
      60_000,
    );
    workerA.child.kill('SIGKILL');
    await workerA.done;
    modelA.release(true);
    // The live worker recovers nobody on its own (--dead-after 0): the jobs wait for `jobs recover`.
    worker(db, modelB, 'w-live', ['--dead-after', '0']);
    expect(await jobCounts(db)).toEqual({ PENDING: 6 });
    const recovered = await jobs(setup.home.path, db, 'recover', '--executor', 'w-gone');
    expect(recovered.stderr).toContain('recovered 6 jobs of worker w-gone');
    expect(recovered.code).toBe(0);
    await waitUntil(
      async () => (await jobCounts(db)).SUCCESS === 6,
      async () => JSON.stringify(await jobCounts(db)),
    );
    expect(modelB.answeredCount()).toBe(12);
    expect(answeredTwice(ledger)).toBe(0);
  }, 180_000);

  it('automatic recovery: a live worker takes over the jobs of one not seen for --dead-after seconds', async () => {
    const db = await postgres.freshDatabase();
    const ledger = newLedger();
    const modelA = await model(ledger);
    const modelB = await model(ledger);
    const file = await writeJobsFile(setup.home.path, 4, setup.note, 'auto');
    expect((await jobs(setup.home.path, db, 'submit', file)).code).toBe(0);
    modelA.hold();
    const workerA = worker(db, modelA, 'w-dies', ['--dead-after', '2']);
    await waitUntil(
      async () => modelA.held() === 4,
      async () => `held ${modelA.held()}`,
      60_000,
    );
    workerA.child.kill('SIGKILL');
    await workerA.done;
    modelA.release(true);
    const workerB = worker(db, modelB, 'w-survives', ['--dead-after', '2']);
    await waitUntil(
      async () => (await jobCounts(db)).SUCCESS === 4,
      async () => `${JSON.stringify(await jobCounts(db))}\n${workerB.stderr()}`,
      120_000,
    );
    expect(workerB.stderr()).toContain('recovered 4 job(s) of worker w-dies, which is gone');
    expect(answeredTwice(ledger)).toBe(0);
  }, 180_000);

  it('jobs cancel stops a running job; jobs retry resumes it to the end', async () => {
    const db = await postgres.freshDatabase();
    const ledger = newLedger();
    const modelA = await model(ledger);
    const file = await writeJobsFile(setup.home.path, 1, setup.note, 'cancel');
    expect((await jobs(setup.home.path, db, 'submit', file)).code).toBe(0);
    modelA.hold();
    worker(db, modelA, 'w-cancel');
    await waitUntil(
      async () => modelA.held() === 1,
      async () => `held ${modelA.held()}`,
      60_000,
    );
    const cancelled = await jobs(setup.home.path, db, 'cancel', 'cancel-1');
    expect(cancelled.stderr).toContain('cancelled 1 job');
    modelA.release();
    await waitUntil(
      async () => (await jobCounts(db)).CANCELLED === 1,
      async () => JSON.stringify(await jobCounts(db)),
    );
    const retried = await jobs(setup.home.path, db, 'retry');
    expect(retried.stderr).toContain('retrying 1 job');
    await waitUntil(
      async () => (await jobCounts(db)).SUCCESS === 1,
      async () => JSON.stringify(await jobCounts(db)),
      60_000,
    );
    // DBOS discards the result of a step still running when its job is cancelled: the model call in
    // flight at the cancel is asked again by the retry (docs/workers.md); the next one only once.
    expect([...ledger.answered.values()].sort()).toEqual([1, 2]);
  }, 180_000);
});
