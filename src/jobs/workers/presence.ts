/**
 * Which workers are alive, for moving a dead worker's jobs onto live ones. DBOS recovers a
 * worker's unfinished workflows when a process with the same executor id launches again; a worker
 * that never comes back needs someone else to notice. Each worker writes a heartbeat row; a row
 * older than the dead-after time marks its executor dead, and whoever deletes that row (one
 * statement, so exactly one of the live workers) hands its PENDING jobs back to their queues with
 * DBOS's own `resumeWorkflows` (see {@link recoverExecutor}).
 */
import type { DBOSClient } from '@dbos-inc/dbos-sdk';
import type pg from 'pg';
import { JOB_WORKFLOW_NAME } from './names.js';

const CREATE_TABLE = `
  CREATE SCHEMA IF NOT EXISTS mcphost;
  CREATE TABLE IF NOT EXISTS mcphost.worker_presence (
    executor_id text PRIMARY KEY,
    started_at timestamptz NOT NULL DEFAULT now(),
    last_seen timestamptz NOT NULL DEFAULT now()
  )`;

/** Creates the heartbeat table when missing. */
export async function ensurePresenceTable(pool: pg.Pool): Promise<void> {
  await pool.query(CREATE_TABLE);
}

/** Records that `executorId` is alive now. */
export async function beat(pool: pg.Pool, executorId: string): Promise<void> {
  await pool.query(
    `INSERT INTO mcphost.worker_presence (executor_id) VALUES ($1)
     ON CONFLICT (executor_id) DO UPDATE SET last_seen = now()`,
    [executorId],
  );
}

/**
 * Marks a worker gone (a graceful stop): the next live worker's heartbeat claims it at once and
 * recovers whatever it left unfinished, without waiting for the dead-after time.
 */
export async function markGone(pool: pg.Pool, executorId: string): Promise<void> {
  await pool.query(`UPDATE mcphost.worker_presence SET last_seen = '-infinity' WHERE executor_id = $1`, [
    executorId,
  ]);
}

/**
 * Claims the executors not seen for `deadAfterMs` (other than `self`): their rows are deleted in
 * one statement, so two workers never both claim one.
 */
export async function claimDeadExecutors(
  pool: pg.Pool,
  deadAfterMs: number,
  self?: string,
): Promise<string[]> {
  const result = await pool.query<{ executor_id: string }>(
    `DELETE FROM mcphost.worker_presence
     WHERE last_seen < now() - make_interval(secs => $1::double precision / 1000)
       AND executor_id IS DISTINCT FROM $2
     RETURNING executor_id`,
    [deadAfterMs, self ?? null],
  );
  return result.rows.map((row) => row.executor_id);
}

/** Workers and when each was last seen, for `jobs status`. */
export async function listWorkers(
  pool: pg.Pool,
): Promise<ReadonlyArray<{ readonly executorId: string; readonly lastSeen: Date }>> {
  const result = await pool.query<{ executor_id: string; last_seen: Date }>(
    'SELECT executor_id, last_seen FROM mcphost.worker_presence ORDER BY executor_id',
  );
  return result.rows.map((row) => ({ executorId: row.executor_id, lastSeen: row.last_seen }));
}

/**
 * Puts the jobs an executor was running (PENDING under its id) back on their model's queue, where
 * any live worker dequeues them and DBOS replays them from their last recorded step. Returns the
 * job ids moved. Only for an executor that is really gone: one still running would go on too, and
 * a step both run is paid for twice (docs/workers.md).
 */
export async function recoverExecutor(client: DBOSClient, executorId: string): Promise<string[]> {
  const pending = await client.listWorkflows({
    workflowName: JOB_WORKFLOW_NAME,
    status: 'PENDING',
    executorId,
    loadInput: false,
    loadOutput: false,
  });
  const byQueue = new Map<string, string[]>();
  for (const workflow of pending) {
    const queue = workflow.queueName ?? '';
    byQueue.set(queue, [...(byQueue.get(queue) ?? []), workflow.workflowID]);
  }
  for (const [queue, ids] of byQueue) {
    await client.resumeWorkflows(ids, queue === '' ? {} : { queueName: queue });
  }
  return pending.map((workflow) => workflow.workflowID);
}
