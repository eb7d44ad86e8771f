/**
 * The tasks part of one tool call on a connection, kept out of server-connection.ts: refusing a
 * server that offers no tasks under `tasks: "always"`, following a call the server turned into a
 * task, and saying why a server that runs a tool only as a task got nothing under `"never"`.
 */
import type { Client } from '@modelcontextprotocol/client';
import type { ToolProgress } from '../connection-options.js';
import type { ToolResultBody } from '../content.js';
import type { ServerDefinition } from '../definition.js';
import type { RunningTasks } from './running-tasks.js';
import { offersTasks, tasksModeOf } from './session-tasks.js';
import { followTaskCall, type TaskCallOptions } from './task-call.js';
import { requiresTasks, taskHandleIn } from './task-handles.js';
import { DEFAULT_TASK_TIMEOUT_MS, TASKS_EXTENSION } from './tasks-mode.js';
import { definedProperties } from '../../util/defined-properties.js';

/** One call, as the connection knows it. */
export interface ConnectionCall {
  readonly client: Client;
  readonly server: string;
  readonly definition: ServerDefinition;
  readonly tool: string;
  readonly toolCallId?: string;
  readonly signal?: AbortSignal;
  readonly startedAt: number;
  readonly now: () => number;
  readonly running: RunningTasks;
  readonly onProgress?: (progress: ToolProgress) => void;
}

/** A task to follow again: where it runs and for which tool (the journal's record). */
export interface ResumableTask {
  readonly server: string;
  readonly tool: string;
  readonly taskId: string;
}

/** Follows a task a previous session left running: its status is asked at once. */
export async function resumeTaskCall(call: ConnectionCall, taskId: string): Promise<ToolResultBody> {
  return followTaskCall(taskCallOptions(call, { taskId, status: 'working', pollIntervalMs: 0 }));
}

/** Under `tasks: "always"`, the refusal of a server that does not offer the extension. */
export function refusalWithoutTasks(call: ConnectionCall): ToolResultBody | undefined {
  if (tasksModeOf(call.definition) !== 'always' || offersTasks(call.client)) return undefined;
  return errorBody(
    `server "${call.server}" does not offer tasks (${TASKS_EXTENSION}), and its config says "tasks": "always"; "${call.tool}" was not called`,
  );
}

/**
 * What a failed `tools/call` means for tasks: the call became a task (followed to its end here),
 * or the server wants the extension we did not declare. Undefined: a failure like any other.
 */
export async function answerAsTask(
  error: unknown,
  call: ConnectionCall,
): Promise<ToolResultBody | undefined> {
  const handle = taskHandleIn(error);
  if (handle !== undefined) {
    return followTaskCall(taskCallOptions(call, handle));
  }
  if (requiresTasks(error, TASKS_EXTENSION)) {
    const mode = tasksModeOf(call.definition);
    return errorBody(
      mode === 'never'
        ? `server "${call.server}" runs "${call.tool}" only as a task, and its config says "tasks": "never"`
        : `server "${call.server}" runs "${call.tool}" only as a task and says the tasks extension was not declared`,
    );
  }
  return undefined;
}

function taskCallOptions(call: ConnectionCall, handle: unknown): TaskCallOptions {
  return {
    client: call.client,
    server: call.server,
    tool: call.tool,
    ...definedProperties({ toolCallId: call.toolCallId }),
    handle,
    ...definedProperties({ signal: call.signal }),
    startedAt: call.startedAt,
    timeoutMs: call.definition.taskTimeoutMs ?? DEFAULT_TASK_TIMEOUT_MS,
    now: call.now,
    running: call.running,
    ...definedProperties({ onProgress: call.onProgress }),
  };
}

function errorBody(message: string): ToolResultBody {
  return { content: [{ type: 'text', text: message }], isError: true, origin: 'host' };
}
