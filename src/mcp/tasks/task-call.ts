/**
 * A tool call that became a task, from the handle to the result the model reads: followed with
 * {@link followTask} on the server's live client, shown as tool progress (with its `task` field),
 * listed in {@link RunningTasks} while it runs, and every ending said in one line.
 */
import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import * as z from 'zod';
import type { ToolResultOrigin } from '../../core/types.js';
import type { ToolProgress } from '../connection-options.js';
import { toToolResultBody, type ToolResultBody } from '../content.js';
import { followTask, type TaskOutcome, type TaskRequests } from './follow-task.js';
import type { RunningTasks } from './running-tasks.js';
import { parseCreatedTask, type Task } from './task-wire.js';
import { TASK_LEFT_RUNNING } from './tasks-mode.js';
import { definedProperties } from '../../util/defined-properties.js';

/** What {@link followTaskCall} needs. */
export interface TaskCallOptions {
  readonly client: Client;
  readonly server: string;
  readonly tool: string;
  readonly toolCallId?: string;
  /** The raw handle the call was answered with, or (resuming) the task id alone. */
  readonly handle: unknown;
  readonly signal?: AbortSignal;
  /** When the call began, and how long it may take in all (the task timeout). */
  readonly startedAt: number;
  readonly timeoutMs: number;
  readonly now: () => number;
  readonly running: RunningTasks;
  readonly onProgress?: (progress: ToolProgress) => void;
}

/** Any answer: `tasks/get` is checked by followTask, `tasks/cancel` is an acknowledgement. */
const anyResult = z.looseObject({});

/** `tasks/get` and `tasks/cancel` on the SDK client (the SDK lets these two through on the 2026-07-28 era when given a schema). */
export function clientTaskRequests(client: Client): TaskRequests {
  return {
    get: (taskId, signal, timeoutMs) =>
      client.request({ method: 'tasks/get', params: { taskId } }, anyResult, { signal, timeout: timeoutMs }),
    cancel: async (taskId, timeoutMs) => {
      await client.request({ method: 'tasks/cancel', params: { taskId } }, anyResult, { timeout: timeoutMs });
    },
  };
}

/** Follows the task to its end; never throws: every ending is a result body. */
export async function followTaskCall(options: TaskCallOptions): Promise<ToolResultBody> {
  const { server, tool, toolCallId, running } = options;
  const seed = parseCreatedTask(options.handle);
  if (typeof seed === 'string') {
    return errorBody(`server "${server}" answered "${tool}" with a task, but ${seed}`, 'server');
  }
  let reports = 0;
  const onStatus = (task: Task): void => {
    running.set({
      server,
      tool,
      taskId: seed.taskId,
      ...definedProperties({ toolCallId }),
      status: task.status,
      ...definedProperties({ statusMessage: task.statusMessage }),
      startedAt: options.startedAt,
    });
    reports += 1;
    options.onProgress?.({
      server,
      tool,
      ...definedProperties({ toolCallId }),
      progress: reports,
      message:
        task.statusMessage === undefined
          ? `task ${task.status}`
          : `task ${task.status}: ${task.statusMessage}`,
      task: { taskId: seed.taskId, status: task.status },
    });
  };
  let outcome: TaskOutcome;
  try {
    outcome = await followTask({
      requests: clientTaskRequests(options.client),
      seed,
      deadline: options.startedAt + options.timeoutMs,
      now: options.now,
      ...definedProperties({ signal: options.signal }),
      onStatus,
    });
  } finally {
    running.delete(server, seed.taskId);
  }
  return describeOutcome(outcome, { server, tool, taskId: seed.taskId, timeoutMs: options.timeoutMs });
}

function describeOutcome(
  outcome: TaskOutcome,
  call: { server: string; tool: string; taskId: string; timeoutMs: number },
): ToolResultBody {
  const { server, tool, taskId } = call;
  switch (outcome.kind) {
    case 'completed':
      // The result is what the call would have returned at once (the spec): used as any result.
      return toToolResultBody(outcome.result as CallToolResult);
    case 'failed':
      return errorBody(
        `"${tool}" (task ${taskId} on server "${server}") failed: ${outcome.error.message} (code ${outcome.error.code})`,
        'server',
      );
    case 'cancelled':
      return outcome.by === 'user'
        ? errorBody(`the call to "${tool}" was cancelled (task ${taskId} was told to stop)`, 'host')
        : errorBody(
            `server "${server}" cancelled task ${taskId} of "${tool}"${outcome.statusMessage === undefined ? '' : `: ${outcome.statusMessage}`}`,
            'server',
          );
    case 'timed-out':
      return errorBody(
        `"${tool}" (task ${taskId} on server "${server}") did not finish within ${formatDuration(call.timeoutMs)} (the task timeout, "taskTimeout"); it was told to stop`,
        'host',
      );
    case 'broken':
      return errorBody(`server "${server}": ${outcome.reason}`, 'server');
    case 'left-running':
      return errorBody(
        `${TASK_LEFT_RUNNING}: task ${taskId} on server "${server}" was left running when mcphost stopped (mcphost -c follows it)`,
        'host',
      );
    default: {
      const unreachable: never = outcome;
      return unreachable;
    }
  }
}

function formatDuration(ms: number): string {
  return ms % 60_000 === 0 ? `${ms / 60_000} min` : `${ms / 1000} s`;
}

function errorBody(message: string, origin: ToolResultOrigin): ToolResultBody {
  return { content: [{ type: 'text', text: message }], isError: true, origin };
}
