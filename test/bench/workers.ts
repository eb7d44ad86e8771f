/**
 * Durable workers (docs/workers.md): the same jobs on one worker and on two, against one real
 * PostgreSQL, the fake model slowed to 200 ms an answer. Each job is one tool round (two model
 * calls, one filesystem call). Workers are started and ready before the clock starts; the time is
 * from `jobs submit` to the last job's SUCCESS. Target: two workers ≤ 0.6 × one.
 */
import { performance } from 'node:perf_hooks';
import type { RunningCli } from '../support/cli.js';
import { startTestPostgres } from '../support/postgres.js';
import {
  jobCounts,
  jobs,
  jobTimings,
  newLedger,
  startWorkerModel,
  startWorkerProcess,
  waitUntil,
  workerHome,
  writeJobsFile,
} from '../support/workers.js';

const JOBS = Number(process.env.BENCH_WORKER_JOBS ?? 80);
/** Jobs one worker runs at once (the model queue's worker concurrency). */
const PER_WORKER = 4;
const ANSWER_DELAY_MS = 200;

async function timeWorkers(count: number): Promise<number> {
  const postgres = await startTestPostgres();
  const setup = await workerHome();
  const ledger = newLedger();
  const model = await startWorkerModel(ledger, ANSWER_DELAY_MS);
  const workers: RunningCli[] = [];
  try {
    const db = await postgres.freshDatabase();
    // The queue is made (with its limit) before the workers start, so both see it at once.
    const warm = await writeJobsFile(setup.home.path, 1, setup.note, `warm${count}`);
    await jobs(setup.home.path, db, 'submit', warm, '--concurrency', String(PER_WORKER));
    for (let index = 0; index < count; index++) {
      const worker = startWorkerProcess(setup.home.path, {
        db,
        modelUrl: model.fake.url,
        executorId: `bench-${index}`,
      });
      workers.push(worker);
    }
    await waitUntil(
      async () => (await jobCounts(db)).SUCCESS === 1,
      async () => JSON.stringify(await jobCounts(db)),
    );
    await Promise.all(
      workers.map((worker) =>
        waitUntil(
          () => Promise.resolve(worker.stderr().includes('running jobs')),
          () => worker.stderr(),
        ),
      ),
    );
    const file = await writeJobsFile(setup.home.path, JOBS, setup.note, `bench${count}`);
    const started = performance.now();
    await jobs(setup.home.path, db, 'submit', file);
    await waitUntil(
      async () => (await jobCounts(db)).SUCCESS === JOBS + 1,
      async () => JSON.stringify(await jobCounts(db)),
      600_000,
      50,
    );
    const elapsed = performance.now() - started;
    const timings = await jobTimings(db);
    console.log(
      `  ${count} worker(s): ${(elapsed / 1000).toFixed(2)} s; per job on average ${timings.queued.toFixed(0)} ms queued, ` +
        `${timings.running.toFixed(0)} ms running (model step ${timings.modelStep.toFixed(0)} ms, tool step ${timings.toolStep.toFixed(0)} ms)`,
    );
    return elapsed;
  } finally {
    for (const worker of workers) worker.child.kill('SIGTERM');
    await Promise.allSettled(workers.map((worker) => worker.done));
    await model.fake.close();
    await setup.remove();
    await postgres.close();
  }
}

export async function durableWorkers(): Promise<{ one: number; two: number }> {
  const one = await timeWorkers(1);
  const two = await timeWorkers(2);
  const ratio = two / one;
  console.log(
    `durable workers: ${JOBS} jobs of one tool round, model answering in ${ANSWER_DELAY_MS} ms, ${PER_WORKER} jobs per worker at once\n` +
      `  one worker ${(one / 1000).toFixed(2)} s, two workers ${(two / 1000).toFixed(2)} s\n` +
      `  ${ratio.toFixed(2)}× (target ≤ 0.6×: ${ratio <= 0.6 ? 'meets' : 'MISSES'})\n`,
  );
  return { one, two };
}
