/**
 * The contract between a run and the format that shows it (text, json, stream-json): what a
 * {@link Reporter} is told. Apart from reporter.ts so that each format can implement it without
 * importing the factory that picks among them.
 */
import type { RunResult, RunnerEvent } from '../../core/events.js';
import type { OfferingsChange } from '../../mcp/offerings-changes.js';
import type { ToolProgress } from '../../mcp/server-connection.js';
import type { ServerStatus } from '../../mcp/status.js';
import type { ExitCodeValue } from '../exit-codes.js';
import type { ToolAddress } from './records.js';

/** What a run starts with. */
export interface RunContext {
  /** `provider:model`. */
  readonly model: string;
  /** Every configured server. */
  readonly servers: readonly ServerStatus[];
  /** The tools offered, with the server each belongs to. */
  readonly tools: ReadonlyArray<ToolAddress & { readonly exposedName: string }>;
}

/** Facts learned before the run starts, reported even if it never does. */
export interface KnownDetails {
  readonly model?: string;
  readonly sessionFile?: string;
}

/** Shows one command's run. Every method may be called at most once, except `event` and `note`. */
export interface Reporter {
  /** Records facts as they become known (the session file, the model). */
  identify(details: KnownDetails): void;
  /** The servers are up; the prompt is about to be sent. */
  start(context: RunContext): void;
  /** One event of the run, as it happens. */
  event(event: RunnerEvent): void;
  /** A note for the user, on stderr (never under --quiet); several lines are shown under the first. */
  note(message: string | readonly string[]): void;
  /** A running tool call's progress (only formats that show it implement this). */
  progress?(report: ToolProgress): void;
  /**
   * A server's list changed or a subscribed resource was updated. A format that implements this
   * wants updates: the resources a prompt attaches are then subscribed to.
   */
  offeringsChange?(change: OfferingsChange): void;
  /** The model answered. */
  succeed(result: RunResult): void;
  /** The command failed, at any point (also before `start`). */
  fail(error: unknown, exitCode: ExitCodeValue): void;
}
