/**
 * What the worker tests and the bench share: a fake model (the loopback Ollama) that answers a job
 * with one tool call and then a final answer, counting requests by a fingerprint of the request;
 * a HOME whose config has a real MCP server; and `mcphost worker` / `mcphost jobs` as processes.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import { startFakeOllama, textReply, toolCallReply, type FakeOllama } from '../fakes/ollama-server.js';
import {
  npmServerConfig,
  runCli,
  startCli,
  temporaryHome,
  type CliRun,
  type RunningCli,
  type TemporaryHome,
} from './cli.js';

export const JOB_MODEL = 'ollama:mistral-small';

/** Counts shared by every fake model of a test: what was asked, and what was answered. */
export interface ModelLedger {
  /** Requests received, by fingerprint (model and messages). */
  readonly seen: Map<string, number>;
  /** Requests answered to a live worker, by fingerprint. */
  readonly answered: Map<string, number>;
}

export function newLedger(): ModelLedger {
  return { seen: new Map(), answered: new Map() };
}

/** A fake model for one worker. `hold()` keeps new answers back; `release(dead)` lets them go. */
export interface WorkerModel {
  readonly fake: FakeOllama;
  /** Requests waiting behind `hold()`. */
  held(): number;
  /** Answers `hold()`-ed requests; `workerDied`: their worker is gone, so nothing counts as answered. */
  release(workerDied?: boolean): void;
  hold(): void;
  /** Requests answered by this fake. */
  answeredCount(): number;
}

/**
 * A fake model that reads the file named in the prompt with the filesystem server, then answers
 * `done: <prompt>`. `answerDelayMs` slows every answer (the bench's 200 ms model).
 */
export async function startWorkerModel(ledger: ModelLedger, answerDelayMs = 0): Promise<WorkerModel> {
  interface Gate {
    readonly promise: Promise<void>;
    readonly open: () => void;
    /** Set before the gate opens: the held requests' worker is gone. */
    died: boolean;
  }
  let gate: Gate | undefined;
  let waiting = 0;
  let answered = 0;
  const fake = await startFakeOllama([], {
    fallback: async (chat) => {
      const fingerprint = JSON.stringify({ model: chat.model, messages: chat.messages });
      ledger.seen.set(fingerprint, (ledger.seen.get(fingerprint) ?? 0) + 1);
      let workerDied = false;
      if (gate !== undefined) {
        const current = gate;
        waiting += 1;
        await current.promise;
        workerDied = current.died;
        waiting -= 1;
      }
      if (answerDelayMs > 0) await delay(answerDelayMs);
      if (workerDied) return textReply('(nobody is listening)');
      ledger.answered.set(fingerprint, (ledger.answered.get(fingerprint) ?? 0) + 1);
      answered += 1;
      const prompt = chat.messages.find((message) => message.role === 'user')?.content ?? '';
      // A job with an output schema: its follow-up without tools asks for JSON (Ollama's `format`);
      // `jobs` counts the model calls answered so far, this one included.
      if (chat.format !== undefined) return textReply(JSON.stringify({ word: 'mango', jobs: answered }));
      const last = chat.messages.at(-1);
      if (last?.role === 'tool') return textReply(`done: ${prompt} / ${last.content}`);
      const path = /read (\S+)/.exec(prompt)?.[1] ?? 'missing';
      return toolCallReply(['filesystem__read_text_file', { path }]);
    },
  });
  return {
    fake,
    held: () => waiting,
    answeredCount: () => answered,
    hold() {
      let open: () => void = () => undefined;
      const promise = new Promise<void>((resolve) => (open = resolve));
      gate = { promise, open, died: false };
    },
    release(workerDied = false) {
      const current = gate;
      gate = undefined;
      if (current === undefined) return;
      current.died = workerDied;
      current.open();
    },
  };
}

/**
 * A HOME whose `.mcp.json` has the filesystem server over `files`, and a file to read there;
 * `extraConfig` is added to the config (e.g. `budgets`).
 */
export async function workerHome(extraConfig: Record<string, unknown> = {}): Promise<{
  home: TemporaryHome;
  files: string;
  note: string;
  remove(): Promise<void>;
}> {
  const home = await temporaryHome();
  const files = await mkdtemp(join(tmpdir(), 'mcphost-worker-files-'));
  const note = join(files, 'note.txt');
  await writeFile(note, 'the secret word is mango\n');
  await home.writeConfig({
    model: JOB_MODEL,
    contextWindow: 131072,
    mcpServers: { filesystem: npmServerConfig('filesystem', files) },
    ...extraConfig,
  });
  return {
    home,
    files,
    note,
    async remove() {
      await home.remove();
      await rm(files, { recursive: true, force: true });
    },
  };
}

/** A jobs file of `count` jobs with ids `prefix-<n>`, each reading `note`. */
export async function writeJobsFile(
  directory: string,
  count: number,
  note: string,
  prefix = 'job',
): Promise<string> {
  const lines = Array.from({ length: count }, (_, index) =>
    JSON.stringify({ id: `${prefix}-${index + 1}`, prompt: `job ${index + 1}: read ${note}` }),
  );
  const file = join(directory, `${prefix}.jsonl`);
  await writeFile(file, `${lines.join('\n')}\n`);
  return file;
}

/** `mcphost worker` as a user starts it: HOME's config, the model's host and the database from the environment. */
export function startWorkerProcess(
  home: string,
  options: {
    readonly db: string;
    readonly modelUrl: string;
    readonly executorId: string;
    readonly args?: readonly string[];
    /** More environment (an OTLP endpoint…). */
    readonly env?: Readonly<Record<string, string>>;
  },
): RunningCli {
  return startCli(['worker', '--executor-id', options.executorId, ...(options.args ?? [])], home, {
    env: { ...options.env, MCPHOST_DATABASE_URL: options.db, OLLAMA_HOST: options.modelUrl },
    timeoutMs: 600_000,
  });
}

/** What a test does with a worker {@link withWorker} started. */
export interface WorkerSession {
  readonly worker: RunningCli;
  /** Waits until the jobs' counts by status include `expected` (the worker's stderr on a timeout). */
  readonly waitForJobs: (expected: Readonly<Record<string, number>>, timeoutMs?: number) => Promise<void>;
}

/**
 * Runs `body` with a worker started as a user starts it (see {@link startWorkerProcess}); then
 * stops it with SIGTERM, waits for it to end and closes the fake model. Returns what `body`
 * returned and how the worker ended.
 */
export async function withWorker<T>(
  options: {
    readonly home: string;
    readonly db: string;
    readonly model: { readonly url: string; close(): Promise<void> };
    readonly executorId: string;
    readonly args?: readonly string[];
  },
  body: (session: WorkerSession) => Promise<T>,
): Promise<{ readonly value: T; readonly stopped: CliRun }> {
  const worker = startWorkerProcess(options.home, {
    db: options.db,
    modelUrl: options.model.url,
    executorId: options.executorId,
    ...(options.args === undefined ? {} : { args: options.args }),
  });
  const waitForJobs = (expected: Readonly<Record<string, number>>, timeoutMs = 60_000): Promise<void> =>
    waitUntil(
      async () => {
        const counts = await jobCounts(options.db);
        return Object.entries(expected).every(([status, count]) => counts[status] === count);
      },
      async () => `${JSON.stringify(await jobCounts(options.db))}\n${worker.stderr()}`,
      timeoutMs,
    );
  try {
    const value = await body({ worker, waitForJobs });
    worker.child.kill('SIGTERM');
    return { value, stopped: await worker.done };
  } finally {
    worker.child.kill('SIGTERM');
    await worker.done;
    await options.model.close();
  }
}

/** The JSON lines of `jobs results`, by key. */
export async function resultsByKey(home: string, db: string): Promise<Map<string, Record<string, unknown>>> {
  const run = await jobs(home, db, 'results');
  return new Map(
    run.stdout
      .trim()
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .map((line) => [String(line.key), line] as const),
  );
}

/** `mcphost jobs …` with the database from the environment. */
export function jobs(home: string, db: string, ...args: string[]): Promise<CliRun> {
  return runCli(['jobs', ...args], home, { env: { MCPHOST_DATABASE_URL: db }, timeoutMs: 120_000 });
}

/** Counts of the job workflows by status, straight from DBOS's tables. */
export async function jobCounts(db: string): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: db });
  await client.connect();
  try {
    const result = await client.query<{ status: string; count: string }>(
      `SELECT status, count(*) AS count FROM dbos.workflow_status WHERE name = 'mcphostJob' GROUP BY status`,
    );
    return Object.fromEntries(result.rows.map((row) => [row.status, Number(row.count)]));
  } finally {
    await client.end();
  }
}

/** Recorded model-call steps of the jobs an executor holds. */
export async function recordedModelCalls(db: string, executorId?: string): Promise<number> {
  const client = new pg.Client({ connectionString: db });
  await client.connect();
  try {
    const result = await client.query<{ count: string }>(
      `SELECT count(*) AS count FROM dbos.operation_outputs o
       JOIN dbos.workflow_status w ON w.workflow_uuid = o.workflow_uuid
       WHERE o.function_name = 'model-call' AND ($1::text IS NULL OR w.executor_id = $1)`,
      [executorId ?? null],
    );
    return Number(result.rows[0]?.count ?? 0);
  } finally {
    await client.end();
  }
}

/** Waits until `test` holds, checking every `everyMs`; throws with `describe()` after `timeoutMs`. */
export async function waitUntil(
  test: () => Promise<boolean>,
  describe: () => Promise<string> | string,
  timeoutMs = 240_000,
  everyMs = 250,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${await describe()}`);
    await delay(everyMs);
  }
}

/** Where a finished job's time went, averaged over the jobs (ms): waiting in the queue, running, and in model-call steps. */
export async function jobTimings(
  db: string,
): Promise<{ queued: number; running: number; modelStep: number; toolStep: number }> {
  const client = new pg.Client({ connectionString: db });
  await client.connect();
  try {
    const jobs = await client.query<{ queued: string; running: string }>(
      `SELECT avg(started_at_epoch_ms - created_at) AS queued, avg(updated_at - started_at_epoch_ms) AS running
       FROM dbos.workflow_status WHERE name = 'mcphostJob' AND status = 'SUCCESS'`,
    );
    const steps = await client.query<{ name: string; duration: string }>(
      `SELECT CASE WHEN function_name = 'model-call' THEN 'model' ELSE 'tool' END AS name,
              avg(completed_at_epoch_ms - started_at_epoch_ms) AS duration
       FROM dbos.operation_outputs WHERE function_name = 'model-call' OR function_name LIKE 'tool:%' GROUP BY 1`,
    );
    const step = (name: string): number =>
      Number(steps.rows.find((row) => row.name === name)?.duration ?? NaN);
    return {
      queued: Number(jobs.rows[0]?.queued ?? NaN),
      running: Number(jobs.rows[0]?.running ?? NaN),
      modelStep: step('model'),
      toolStep: step('tool'),
    };
  } finally {
    await client.end();
  }
}
