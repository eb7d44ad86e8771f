/**
 * What the host tells a createRunner caller, as one tagged union passed to one `onEvent` callback
 * (CreateRunnerOptions.onEvent): a notice is a new member here, not a new option. Each member
 * carries what the callback it replaced carried, under its own field, so that a payload's own
 * `type` (an offerings change has one) never clashes with the event's.
 */
import type { ElicitationOutcome } from '../mcp/elicitation.js';
import type { OfferingsChange } from '../mcp/offerings-changes.js';
import type { PoolLogEntry, ToolProgress } from '../mcp/pool.js';
import type { SamplingOutcome } from '../mcp/sampling.js';
import type { ServerLogMessage } from '../mcp/server-logs.js';
import type { FlagReport } from '../safety/untrusted-content.js';
import type { ToolChangeNotice } from '../safety/tool-pin-check.js';

export type HostEvent =
  /** A server's stderr line, junk output (`debug`) or failure (`warn`). */
  | { readonly type: 'server-log'; readonly entry: PoolLogEntry }
  /**
   * A server's log message (`notifications/message`); it also comes as a `server-log` event of
   * level `debug`.
   */
  | { readonly type: 'server-log-message'; readonly server: string; readonly message: ServerLogMessage }
  /** A note for the user (an unsupported setting, a hook that failed without blocking…). */
  | { readonly type: 'warning'; readonly message: string }
  /** How a server's elicitation was answered (and why, when the host answered for the user). */
  | { readonly type: 'elicitation-outcome'; readonly outcome: ElicitationOutcome }
  /** What became of a server's sampling request (sent, or declined and why). */
  | { readonly type: 'sampling-outcome'; readonly outcome: SamplingOutcome }
  /** A progress report of a running tool call (every call carries a progress token). */
  | { readonly type: 'tool-progress'; readonly progress: ToolProgress }
  /**
   * A server's resource or prompt list changed, or a subscribed resource was updated. Listeners
   * added later go through `runner.mcp.onChange`.
   */
  | { readonly type: 'offerings-change'; readonly change: OfferingsChange }
  /** The untrusted-content detector flagged a tool result, an attached resource, a prompt or a sampling request. */
  | { readonly type: 'content-flagged'; readonly report: FlagReport }
  /**
   * A server changed a tool's definition since it was pinned: what changed, and what the
   * `toolChanges` policy (or the user) did about it (src/safety/tool-pin-check.ts).
   */
  | { readonly type: 'tool-change'; readonly notice: ToolChangeNotice };

/** The `type`s of {@link HostEvent}. */
export type HostEventType = HostEvent['type'];

/** Receives every {@link HostEvent}. */
export type HostEventListener = (event: HostEvent) => void;

/**
 * The callbacks the host's parts take (the pool's `log`, the guard's `onFlagged`…), each passing
 * its notice on as one event; none when no listener is given, so that the parts behave as they
 * do without a callback.
 */
export interface HostNotices {
  readonly serverLog?: (entry: PoolLogEntry) => void;
  readonly serverLogMessage?: (server: string, message: ServerLogMessage) => void;
  readonly warning?: (message: string) => void;
  readonly elicitationOutcome?: (outcome: ElicitationOutcome) => void;
  readonly samplingOutcome?: (outcome: SamplingOutcome) => void;
  readonly toolProgress?: (progress: ToolProgress) => void;
  readonly offeringsChange?: (change: OfferingsChange) => void;
  readonly contentFlagged?: (report: FlagReport) => void;
  readonly toolChange?: (notice: ToolChangeNotice) => void;
}

export function hostNotices(onEvent: HostEventListener | undefined): HostNotices {
  if (onEvent === undefined) return {};
  return {
    serverLog: (entry) => onEvent({ type: 'server-log', entry }),
    serverLogMessage: (server, message) => onEvent({ type: 'server-log-message', server, message }),
    warning: (message) => onEvent({ type: 'warning', message }),
    elicitationOutcome: (outcome) => onEvent({ type: 'elicitation-outcome', outcome }),
    samplingOutcome: (outcome) => onEvent({ type: 'sampling-outcome', outcome }),
    toolProgress: (progress) => onEvent({ type: 'tool-progress', progress }),
    offeringsChange: (change) => onEvent({ type: 'offerings-change', change }),
    contentFlagged: (report) => onEvent({ type: 'content-flagged', report }),
    toolChange: (notice) => onEvent({ type: 'tool-change', notice }),
  };
}
