/**
 * Durable workers (docs/workers.md): the same jobs on one worker and on two, against one real
 * PostgreSQL, the fake model slowed to 200 ms an answer. Each job is one tool round (two model
 * calls, one filesystem call). Workers are started and ready before the clock starts; the time is
 * from `jobs submit` to the last job's SUCCESS. Target: two workers ≤ 0.6 × one.
 *
 * Beside the time it prints what explains it, from DBOS's own tables: how many jobs each worker ran
 * and how many it ran at once at most (against the queue's per-worker limit), how long the submit
 * took, and how busy the workers' slots were (the rest is the wait for the next queue poll).
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { queueNameForModel } from '../../src/jobs/workers/names.js';
import type { RunningCli } from '../support/cli.js';
import { processTreeCpuSeconds } from './process-cpu.js';
import { startTestPostgres } from '../support/postgres.js';
import {
  JOB_MODEL,
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
/** Jobs one worker runs at once (the model queue's worker concurrency, set by `jobs submit --concurrency`). */
const PER_WORKER = Number(process.env.BENCH_WORKER_CONCURRENCY ?? 4);
const ANSWER_DELAY_MS = 200;
/**
 * More limits for the model's queue, as `jobs submit` takes them (e.g. `--global-concurrency 8` or
 * `--rate 100/1`), to see what a shared limit costs two workers; none by default.
 */
const QUEUE_ARGS = (process.env.BENCH_WORKER_QUEUE_ARGS ?? '').split(' ').filter((arg) => arg !== '');

/** What one worker did with the bench's jobs, from `dbos.workflow_status`. */
interface WorkerShare {
  readonly executorId: string;
  readonly jobs: number;
  /** The most of its jobs that ran at the same moment. */
  readonly peakAtOnce: number;
  /** Milliseconds its jobs ran, summed. */
  readonly busyMs: number;
}

/** The queue's limits as DBOS stored them, and where the bench's jobs ran. */
interface Placement {
  readonly workerConcurrency: number | null;
  /** The queue's other limits, as `jobs submit` words them (`--global-concurrency 8`, `--rate 100/1`). */
  readonly sharedLimits: string;
  readonly pollingMs: number;
  readonly shares: readonly WorkerShare[];
  /** From the first job's enqueue to the last job's end (ms), as the database saw it. */
  readonly enqueuedToDoneMs: number;
}

/** CPU seconds used so far by the workers (with their MCP servers), PostgreSQL, and this process (the fake model). */
interface CpuUse {
  readonly workers: number;
  readonly postgres: number;
  readonly bench: number;
}

async function cpuNow(workers: readonly RunningCli[], postgresPid: number | undefined): Promise<CpuUse> {
  const perWorker = await Promise.all(workers.map((worker) => processTreeCpuSeconds(worker.child.pid)));
  const own = process.cpuUsage();
  return {
    workers: perWorker.reduce((sum, seconds) => sum + seconds, 0),
    postgres: await processTreeCpuSeconds(postgresPid),
    bench: (own.user + own.system) / 1e6,
  };
}

/** CPU a job, by where it went, and how many cores that kept busy over the timed run. */
function describeCpu(before: CpuUse, after: CpuUse, elapsedMs: number): string {
  const used = {
    workers: after.workers - before.workers,
    postgres: after.postgres - before.postgres,
    bench: after.bench - before.bench,
  };
  const total = used.workers + used.postgres + used.bench;
  const perJob = (seconds: number): string => `${((1000 * seconds) / JOBS).toFixed(0)} ms`;
  return (
    `CPU a job: workers and their servers ${perJob(used.workers)}, PostgreSQL ${perJob(used.postgres)}, ` +
    `the fake model and this bench ${perJob(used.bench)}; in all ${perJob(total)}, ` +
    `${(total / (elapsedMs / 1000)).toFixed(2)} cores busy on average`
  );
}

/** Finished jobs, counted over a connection the caller keeps open. */
async function successCount(client: pg.Client): Promise<number> {
  const result = await client.query<{ count: string }>(
    `SELECT count(*) AS count FROM dbos.workflow_status WHERE name = 'mcphostJob' AND status = 'SUCCESS'`,
  );
  return Number(result.rows[0]?.count ?? NaN);
}

/** The largest number of [start, end) intervals that overlap at one moment. */
function peakOverlap(intervals: readonly (readonly [number, number])[]): number {
  // Ends sort before starts at the same instant: a slot freed and taken again is not two at once.
  const edges = intervals
    .flatMap(([start, end]) => [
      [start, 1],
      [end, -1],
    ])
    .sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0) || (a[1] ?? 0) - (b[1] ?? 0));
  let running = 0;
  let peak = 0;
  for (const [, step] of edges) {
    running += step ?? 0;
    peak = Math.max(peak, running);
  }
  return peak;
}

async function placement(db: string, prefix: string, queue: string): Promise<Placement> {
  const client = new pg.Client({ connectionString: db });
  await client.connect();
  try {
    const limits = await client.query<{
      worker_concurrency: number | null;
      concurrency: number | null;
      rate_limit_max: number | null;
      rate_limit_period_sec: number | null;
      polling_interval_sec: number;
    }>(
      `SELECT worker_concurrency, concurrency, rate_limit_max, rate_limit_period_sec, polling_interval_sec
       FROM dbos.queues WHERE name = $1`,
      [queue],
    );
    const limit = limits.rows[0];
    const rows = await client.query<{
      executor_id: string;
      created_at: string;
      started_at_epoch_ms: string;
      completed_at: string;
    }>(
      `SELECT executor_id, created_at, started_at_epoch_ms, completed_at FROM dbos.workflow_status
       WHERE name = 'mcphostJob' AND status = 'SUCCESS' AND workflow_uuid LIKE $1`,
      [`${prefix}-%`],
    );
    const byWorker = new Map<string, [number, number][]>();
    for (const row of rows.rows) {
      const list = byWorker.get(row.executor_id) ?? [];
      list.push([Number(row.started_at_epoch_ms), Number(row.completed_at)]);
      byWorker.set(row.executor_id, list);
    }
    const shares = [...byWorker.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([executorId, intervals]) => ({
        executorId,
        jobs: intervals.length,
        peakAtOnce: peakOverlap(intervals),
        busyMs: intervals.reduce((sum, [start, end]) => sum + (end - start), 0),
      }));
    const first = Math.min(...rows.rows.map((row) => Number(row.created_at)));
    const last = Math.max(...rows.rows.map((row) => Number(row.completed_at)));
    return {
      workerConcurrency: limit?.worker_concurrency ?? null,
      sharedLimits: [
        limit?.concurrency == null ? '' : `--global-concurrency ${limit.concurrency}`,
        limit?.rate_limit_max == null ? '' : `--rate ${limit.rate_limit_max}/${limit.rate_limit_period_sec}`,
      ]
        .filter((part) => part !== '')
        .join(' '),
      pollingMs: (limit?.polling_interval_sec ?? NaN) * 1000,
      shares,
      enqueuedToDoneMs: last - first,
    };
  } finally {
    await client.end();
  }
}

function describePlacement(found: Placement, workers: readonly RunningCli[]): string {
  const slots = (found.workerConcurrency ?? Infinity) * workers.length;
  // DBOS backs a queue's polling off (doubling its interval) when workers collide claiming jobs,
  // which only queues with a limit shared by all workers do; it says so as a warning.
  const contention = workers.reduce(
    (sum, worker) => sum + worker.stderr().split('Contention detected').length - 1,
    0,
  );
  const busy = found.shares.reduce((sum, share) => sum + share.busyMs, 0);
  const split = found.shares
    .map((share) => `${share.executorId} ran ${share.jobs} (at most ${share.peakAtOnce} at once)`)
    .join(', ');
  return (
    `    jobs per worker: ${split}; queue limit ${found.workerConcurrency ?? 'none'} per worker` +
    `${found.sharedLimits === '' ? '' : ` (${found.sharedLimits})`}, polled every ${found.pollingMs} ms` +
    `, ${contention} contention backoffs\n` +
    `    first enqueue to last done ${(found.enqueuedToDoneMs / 1000).toFixed(2)} s; ` +
    `slots busy ${((100 * busy) / (found.enqueuedToDoneMs * slots)).toFixed(0)}% of it`
  );
}

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
    await jobs(setup.home.path, db, 'submit', warm, '--concurrency', String(PER_WORKER), ...QUEUE_ARGS);
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
    const prefix = `bench${count}`;
    const file = await writeJobsFile(setup.home.path, JOBS, setup.note, prefix);
    const loadBefore = loadavg()[0] ?? NaN;
    const cpuBefore = await cpuNow(workers, postgres.serverPid);
    const started = performance.now();
    await jobs(setup.home.path, db, 'submit', file);
    const submitted = performance.now();
    // One connection for the whole wait: a new one every 50 ms would fork a PostgreSQL backend each
    // time, CPU taken from the workers being measured.
    const watcher = new pg.Client({ connectionString: db });
    await watcher.connect();
    try {
      await waitUntil(
        async () => (await successCount(watcher)) === JOBS + 1,
        async () => JSON.stringify(await jobCounts(db)),
        600_000,
        50,
      );
    } finally {
      await watcher.end();
    }
    const elapsed = performance.now() - started;
    const cpuAfter = await cpuNow(workers, postgres.serverPid);
    const timings = await jobTimings(db);
    const found = await placement(db, prefix, queueNameForModel(JOB_MODEL));
    console.log(
      `  ${count} worker(s): ${(elapsed / 1000).toFixed(2)} s (the submit process ${((submitted - started) / 1000).toFixed(2)} s of it); ` +
        `per job on average ${timings.queued.toFixed(0)} ms queued, ${timings.running.toFixed(0)} ms running ` +
        `(model step ${timings.modelStep.toFixed(0)} ms, tool step ${timings.toolStep.toFixed(0)} ms)\n` +
        describePlacement(found, workers) +
        `\n    ${describeCpu(cpuBefore, cpuAfter, elapsed)}; load average ${loadBefore.toFixed(1)} before, ${(loadavg()[0] ?? NaN).toFixed(1)} after`,
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
