/**
 * One `tools/call` over a live session, kept out of server-connection.ts: the request with its
 * timeouts and progress, the sign-in retry, a call the server turned into a task, and the one line
 * a failure becomes. The connection keeps the session's life (start, crash, restart).
 */
import type { Client } from '@modelcontextprotocol/client';
import { toToolResultBody, type ToolResultBody } from './content.js';
import type { ServerConnectionOptions } from './connection-options.js';
import { describeCallFailure } from './call-failure.js';
import type { ConnectionState } from './connection-state.js';
import type { ServerSession } from './server-session.js';
import { signInRequiredIn } from './remote-transport.js';
import { withSignInRetry } from './auth/step-up.js';
import {
  answerAsTask,
  refusalWithoutTasks,
  resumeTaskCall,
  type ConnectionCall,
} from './tasks/connection-tasks.js';
import type { RunningTasks } from './tasks/running-tasks.js';
import type { ToolResultOrigin } from '../core/types.js';
import { definedProperties } from '../util/defined-properties.js';

/** What a call needs to know of the connection it goes through. */
export interface SessionToolCallContext {
  readonly serverName: string;
  readonly options: ServerConnectionOptions;
  /** Where its tasks are listed when the pool keeps no list of its own. */
  readonly ownTasks: RunningTasks;
  /** The sign-in a refused call may run (see sharedSignIn), if someone can be asked. */
  readonly stepUpSignIn: ((scope: string | undefined) => Promise<void>) | undefined;
  /** The connection's state when the call failed (it may have changed during the call). */
  readonly state: () => ConnectionState;
  /** "restarted" or "reconnected". */
  readonly restartVerb: () => string;
  readonly debug: (message: string) => void;
  /** The server answered: its run of failures ends. */
  readonly succeeded: () => void;
  /** The server cannot be reached any more: the session is over. */
  readonly unreachable: (client: Client, reason: string) => void;
}

/** One call, as the model asked it. */
export interface SessionToolCall {
  readonly tool: string;
  readonly input: Readonly<Record<string, unknown>>;
  readonly signal?: AbortSignal;
  readonly toolCallId?: string;
  readonly meta?: Readonly<Record<string, unknown>>;
}

/** Runs one tool on a live session. Never throws: every failure is an error body the model can read. */
export async function callToolOnSession(
  session: ServerSession,
  call: SessionToolCall,
  context: SessionToolCallContext,
): Promise<ToolResultBody> {
  const { tool, input, signal, toolCallId, meta } = call;
  const taskCall = connectionCall(session.client, tool, signal, toolCallId, context);
  const refusal = refusalWithoutTasks(taskCall);
  if (refusal !== undefined) return refusal;
  const { toolTimeoutMs, maxToolTimeoutMs } = context.options;
  const send = () =>
    session.client.callTool(
      { name: tool, arguments: { ...input }, ...(meta === undefined ? {} : { _meta: { ...meta } }) },
      {
        ...(signal ? { signal } : {}),
        timeout: toolTimeoutMs,
        // Progress notifications show the tool is alive: each one restarts the timeout, up to a cap.
        resetTimeoutOnProgress: true,
        maxTotalTimeout: Math.max(maxToolTimeoutMs, toolTimeoutMs),
        onprogress: (progress) => {
          context.debug(
            `"${tool}" progress ${progress.progress}${progress.total === undefined ? '' : `/${progress.total}`}`,
          );
          context.options.onProgress?.({
            server: context.serverName,
            tool,
            ...definedProperties({ toolCallId }),
            progress: progress.progress,
            ...definedProperties({ total: progress.total, message: progress.message }),
          });
        },
      },
    );
  try {
    // A step-up (403 insufficient_scope) or a refused token mid-session: sign in, send again.
    const result = await withSignInRetry({ send, signIn: context.stepUpSignIn });
    context.succeeded();
    return toToolResultBody(result);
  } catch (error) {
    // The server answered with a task (or wants the extension): followed there, to its end.
    const asTask = await answerAsTask(error, taskCall);
    if (asTask !== undefined) {
      if (!asTask.isError) context.succeeded();
      return asTask;
    }
    // Not an outage: the session stays, and the one line says what to do.
    const signInRequired = signInRequiredIn(error);
    if (signInRequired !== undefined && !signal?.aborted) return errorBody(signInRequired.message, 'host');
    const failure = describeCallFailure(error, {
      serverName: context.serverName,
      tool,
      session,
      state: context.state(),
      cancelled: signal?.aborted === true,
      toolTimeoutMs,
      maxToolTimeoutMs,
      restartVerb: context.restartVerb(),
    });
    if (failure.unreachable !== undefined)
      context.unreachable(session.client, `unreachable: ${failure.unreachable}`);
    return errorBody(failure.message, failure.origin);
  }
}

/** Follows a task a previous session left running to its end. Never throws. */
export function resumeTaskOnSession(
  session: ServerSession,
  task: {
    readonly tool: string;
    readonly taskId: string;
    readonly toolCallId: string;
    readonly signal?: AbortSignal;
  },
  context: SessionToolCallContext,
): Promise<ToolResultBody> {
  return resumeTaskCall(
    connectionCall(session.client, task.tool, task.signal, task.toolCallId, context),
    task.taskId,
  );
}

/** What the tasks part of a call needs to know of it. */
function connectionCall(
  client: Client,
  tool: string,
  signal: AbortSignal | undefined,
  toolCallId: string | undefined,
  context: SessionToolCallContext,
): ConnectionCall {
  const { options } = context;
  return {
    client,
    server: context.serverName,
    definition: options.definition,
    tool,
    ...definedProperties({ toolCallId, signal }),
    startedAt: options.now(),
    now: options.now,
    running: options.runningTasks ?? context.ownTasks,
    ...definedProperties({ onProgress: options.onProgress }),
  };
}

export function errorBody(message: string, origin: ToolResultOrigin): ToolResultBody {
  return { content: [{ type: 'text', text: message }], isError: true, origin };
}
