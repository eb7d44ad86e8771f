/**
 * What a failed request to a server says to the model: cancelled, the server died during it, a
 * timeout (and which one), a refusal, an oversized answer, or an unreachable remote server.
 */
import { ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import type { ToolResultOrigin } from '../core/types.js';
import type { ConnectionState } from './connection-state.js';
import { describeError, describeExit } from './describe.js';
import { oversizeIn, describeOversize } from './message-size.js';
import type { ServerSession } from './server-session.js';

/** Stderr lines quoted to the model when a server dies during a call. */
const STDERR_LINES_FOR_MODEL = 5;

/** Everything {@link describeCallFailure} reads. */
export interface CallFailureContext {
  readonly serverName: string;
  readonly tool: string;
  /** The session the call was sent on. */
  readonly session: ServerSession;
  /** The connection's state now, after the call failed. */
  readonly state: ConnectionState;
  readonly cancelled: boolean;
  readonly toolTimeoutMs: number;
  readonly maxToolTimeoutMs: number;
  /** `restarted` (stdio) or `reconnected` (remote). */
  readonly restartVerb: string;
}

/** The message, and whether the (remote) server should now count as unreachable. */
export interface CallFailure {
  readonly message: string;
  /**
   * `server` when the message quotes the server (its error message, its stderr): screened and
   * marked as untrusted like its results. `host` when it is the host's words alone.
   */
  readonly origin: ToolResultOrigin;
  /** Set when the (remote) server should now count as unreachable: why, in a few words. */
  readonly unreachable?: string;
}

/** How the session ended, in words, when it did. */
export function describeSessionEnd(session: ServerSession): string {
  const serverProcess = session.process;
  if (serverProcess?.closedStdoutWhileRunning === true) return 'it closed its stdout while still running';
  const exit = serverProcess?.exit;
  return exit === undefined ? 'the connection closed' : describeExit(exit);
}

export function describeCallFailure(error: unknown, context: CallFailureContext): CallFailure {
  const { serverName, tool, session, state } = context;
  const said = (message: string): CallFailure => ({ message, origin: 'host' });
  const quoting = (message: string): CallFailure => ({ message, origin: 'server' });
  if (context.cancelled) return said(`the call to "${tool}" was cancelled`);
  if (state.kind === 'closed') return said(`the MCP servers were shut down during the call to "${tool}"`);
  const sessionLive = state.kind === 'ready' && state.session === session;
  if (!sessionLive || session.process?.exit !== undefined) {
    const how = describeSessionEnd(session);
    const tail = (session.process?.stderrTail() ?? []).slice(-STDERR_LINES_FOR_MODEL);
    const stderr = tail.length === 0 ? '' : `\nLast stderr lines:\n${tail.join('\n')}`;
    const next =
      state.kind === 'failed'
        ? `it will not be ${context.restartVerb}`
        : `it will be ${context.restartVerb} on the next call`;
    const ended = how.startsWith('exited') || how.startsWith('was killed') ? `the server ${how}` : how;
    const stopped = `server "${serverName}" stopped during the call to "${tool}" (${ended}); ${next}.${stderr}`;
    return tail.length === 0 ? said(stopped) : quoting(stopped);
  }
  const oversize = oversizeIn(error);
  if (oversize !== undefined) return said(describeOversize(serverName, `the call to "${tool}"`, oversize));
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
    const { toolTimeoutMs, maxToolTimeoutMs } = context;
    // Progress notifications extend a call past toolTimeoutMs, up to the maximum. The SDK says
    // which limit ended it: the total cap's error carries `maxTotalTimeout` in its data.
    const maximum = Math.max(maxToolTimeoutMs, toolTimeoutMs);
    const limit = hitTotalTimeout(error) ? `the maximum of ${maximum} ms` : `${toolTimeoutMs} ms`;
    return said(`"${tool}" on server "${serverName}" did not finish within ${limit}; the call was cancelled`);
  }
  if (error instanceof ProtocolError)
    return quoting(`server "${serverName}" refused the call to "${tool}": ${error.message}`);
  const message = describeError(error);
  if (
    session.process === undefined &&
    !(error instanceof SdkError && error.code === SdkErrorCode.InvalidResult)
  ) {
    // A remote server we cannot reach any more: reconnect on the next call.
    return {
      message: `the call to "${tool}" on server "${serverName}" failed: ${message}; it will be reconnected on the next call`,
      origin: 'server',
      unreachable: message,
    };
  }
  // An error's message may carry what the server sent (an HTTP body, an invalid result).
  return quoting(`the call to "${tool}" on server "${serverName}" failed: ${message}`);
}

/** The SDK's timeout error for the total cap (not the per-progress one) carries `maxTotalTimeout`. */
function hitTotalTimeout(error: SdkError): boolean {
  const data: unknown = error.data;
  return typeof data === 'object' && data !== null && 'maxTotalTimeout' in data;
}
