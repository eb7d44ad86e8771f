/**
 * Following one task to its end: polling `tasks/get` at the server's pace, reporting each status,
 * cancelling it (`tasks/cancel`) on an abort or when its time is up, and checking that what the
 * server says holds together. A loop bounded by the task's deadline.
 */
import { ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { setTimeout as sleep } from 'node:timers/promises';
import { messageOf } from '../../core/errors.js';
import {
  CANCEL_TIMEOUT_MS,
  DEFAULT_POLL_INTERVAL_MS,
  MAX_POLL_INTERVAL_MS,
  MIN_POLL_INTERVAL_MS,
  TASK_REQUEST_TIMEOUT_MS,
  TasksLeftRunning,
} from './tasks-mode.js';
import {
  detailedTaskSchema,
  isTerminal,
  parseTaskError,
  parseTaskResult,
  type DetailedTask,
  type Task,
  type TaskError,
  type TaskStatus,
  type TaskToolResult,
} from './task-wire.js';
import { definedProperties } from '../../util/defined-properties.js';

/** The two requests following a task takes (the SDK client in use, or a fake). */
export interface TaskRequests {
  /** `tasks/get`: the task now, unchecked. Rejects as the request does. */
  get(taskId: string, signal: AbortSignal, timeoutMs: number): Promise<unknown>;
  /** `tasks/cancel`: an acknowledgement only. */
  cancel(taskId: string, timeoutMs: number): Promise<void>;
}

/** How a followed task ended. */
export type TaskOutcome =
  | { readonly kind: 'completed'; readonly result: TaskToolResult; readonly statusMessage?: string }
  | { readonly kind: 'failed'; readonly error: TaskError }
  | { readonly kind: 'cancelled'; readonly by: 'server' | 'user'; readonly statusMessage?: string }
  | { readonly kind: 'timed-out'; readonly afterMs: number }
  /** The call was stopped with {@link TasksLeftRunning}: the task goes on on its server. */
  | { readonly kind: 'left-running' }
  /** The server broke the protocol (a lie about the task) or could no longer be asked. */
  | { readonly kind: 'broken'; readonly reason: string };

/** What {@link followTask} needs. */
export interface FollowTaskOptions {
  readonly requests: TaskRequests;
  /** The handle the call was answered with (checked). */
  readonly seed: Task;
  /** When the whole call must be over (the task timeout), on `now`'s clock. */
  readonly deadline: number;
  readonly now: () => number;
  readonly signal?: AbortSignal;
  /** Every status the task is seen in, the seed included (a status or its message changed). */
  readonly onStatus: (task: Task) => void;
}

/** Follows the task until it ends, is cancelled, times out or the server breaks the protocol. */
export async function followTask(options: FollowTaskOptions): Promise<TaskOutcome> {
  const { requests, seed, signal, now, deadline } = options;
  const taskId = seed.taskId;
  const startedAt = now();
  let last: Task = seed;
  options.onStatus(seed);
  // A handle that is already terminal still needs one `tasks/get` for its result.
  let wait = isTerminal(seed.status) ? 0 : pollInterval(seed);
  for (;;) {
    const remaining = deadline - now();
    if (remaining <= 0) {
      await cancelQuietly(requests, taskId);
      return { kind: 'timed-out', afterMs: now() - startedAt };
    }
    if (aborted(signal)) return cancelledByUser(requests, taskId, signal);
    try {
      await sleep(Math.min(wait, remaining), undefined, signal === undefined ? {} : { signal });
    } catch {
      return cancelledByUser(requests, taskId, signal);
    }
    if (deadline - now() <= 0) continue;
    let raw: unknown;
    const ask = new AbortController();
    const stop = (): void => ask.abort();
    signal?.addEventListener('abort', stop, { once: true });
    try {
      raw = await requests.get(
        taskId,
        ask.signal,
        Math.min(TASK_REQUEST_TIMEOUT_MS, Math.max(1, deadline - now())),
      );
    } catch (error) {
      if (aborted(signal)) return await cancelledByUser(requests, taskId, signal);
      if (deadline - now() <= 0) continue;
      return { kind: 'broken', reason: describeGetFailure(error, taskId) };
    } finally {
      signal?.removeEventListener('abort', stop);
    }
    const parsed = detailedTaskSchema.safeParse(raw);
    if (!parsed.success) {
      return {
        kind: 'broken',
        reason: `its answer to tasks/get for task ${taskId} is not a task (${parsed.error.issues[0]?.message ?? 'invalid'})`,
      };
    }
    const task = parsed.data;
    const lie = inconsistency(last, task, taskId);
    if (lie !== undefined) return { kind: 'broken', reason: lie };
    if (task.status !== last.status || task.statusMessage !== last.statusMessage) options.onStatus(task);
    last = task;
    const ended = outcomeOf(task);
    if (ended !== undefined) return ended;
    if (task.status === 'input_required') {
      // Answering a task's input requests (tasks/update) is not built yet: say so, and stop it
      // rather than leave it waiting for an answer that will not come.
      await cancelQuietly(requests, taskId);
      return {
        kind: 'broken',
        reason: `task ${taskId} asked for input (status "input_required"), which mcphost does not answer for tasks yet; it was cancelled`,
      };
    }
    wait = pollInterval(task);
  }
}

/** What the server said that cannot be true of the task it said before, if anything. */
function inconsistency(before: Task, now: DetailedTask, taskId: string): string | undefined {
  if (now.taskId !== taskId)
    return `it answered tasks/get for task ${taskId} with another task (${now.taskId})`;
  if (isTerminal(before.status) && now.status !== before.status) {
    return `task ${taskId} went from "${before.status}" back to "${now.status}" (a finished task does not change)`;
  }
  return undefined;
}

/** The outcome a terminal status gives, or undefined while the task goes on. */
function outcomeOf(task: DetailedTask): TaskOutcome | undefined {
  const status: TaskStatus = task.status;
  switch (status) {
    case 'working':
    case 'input_required':
      return undefined;
    case 'completed': {
      const result = parseTaskResult(task.result);
      if (typeof result === 'string') {
        return { kind: 'broken', reason: `task ${task.taskId} said "completed" but ${result}` };
      }
      return {
        kind: 'completed',
        result,
        ...definedProperties({ statusMessage: task.statusMessage }),
      };
    }
    case 'failed':
      return { kind: 'failed', error: parseTaskError(task.error) };
    case 'cancelled':
      return {
        kind: 'cancelled',
        by: 'server',
        ...definedProperties({ statusMessage: task.statusMessage }),
      };
    default: {
      const unreachable: never = status;
      return unreachable;
    }
  }
}

/** A function, not `signal.aborted` inline: the compiler would take an earlier check as still true. */
function aborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

function pollInterval(task: Task): number {
  const asked = task.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  return Math.min(MAX_POLL_INTERVAL_MS, Math.max(MIN_POLL_INTERVAL_MS, asked));
}

async function cancelledByUser(
  requests: TaskRequests,
  taskId: string,
  signal: AbortSignal | undefined,
): Promise<TaskOutcome> {
  if (signal?.reason instanceof TasksLeftRunning) return { kind: 'left-running' };
  await cancelQuietly(requests, taskId);
  return { kind: 'cancelled', by: 'user' };
}

/** Cancellation is cooperative and its answer an acknowledgement: a failure changes nothing here. */
async function cancelQuietly(requests: TaskRequests, taskId: string): Promise<void> {
  try {
    await requests.cancel(taskId, CANCEL_TIMEOUT_MS);
  } catch {
    // The server may be gone or may not know the task any more; either way it is not ours to run.
  }
}

function describeGetFailure(error: unknown, taskId: string): string {
  if (error instanceof ProtocolError) {
    return `tasks/get for task ${taskId} failed: ${error.message} (code ${error.code})`;
  }
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
    return `tasks/get for task ${taskId} went unanswered for ${TASK_REQUEST_TIMEOUT_MS / 1000} s`;
  }
  return `tasks/get for task ${taskId} failed: ${messageOf(error)}`;
}
