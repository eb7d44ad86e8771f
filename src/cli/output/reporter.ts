/**
 * How a one-shot run is shown: as text (the answer on stdout, activity on stderr), as one JSON
 * object, or as a stream of JSON lines. main.ts drives a {@link Reporter} through the command's
 * life; each format decides what reaches stdout and stderr.
 */
import type { RunResult, RunnerEvent } from '../../events.js';
import type { OfferingsChange } from '../../mcp/offerings-changes.js';
import type { ToolProgress } from '../../mcp/server-connection.js';
import type { ServerStatus } from '../../mcp/status.js';
import type { ExitCodeValue } from '../exit-codes.js';
import type { CliIO } from '../io.js';
import { JsonReporter, StreamJsonReporter } from './json.js';
import type { ToolAddress } from './records.js';
import { OUTPUT_FORMATS, type OutputFormat } from './schema.js';
import { TextReporter } from './text.js';

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

/** How to build a reporter. */
export interface ReporterOptions {
  readonly format: OutputFormat;
  /** The answer alone on stdout; on stderr, errors only. */
  readonly quiet: boolean;
  /** Stack traces in error lines. */
  readonly debug: boolean;
  /** The clock, for `durationMs`. */
  readonly now?: () => number;
}

export function createReporter(options: ReporterOptions, io: CliIO): Reporter {
  const now = options.now ?? Date.now;
  switch (options.format) {
    case 'text':
      return new TextReporter(io, options.quiet, options.debug);
    case 'json':
      return new JsonReporter(io, { ...options, now });
    case 'stream-json':
      return new StreamJsonReporter(io, { ...options, now });
    default: {
      const unexpected: never = options.format;
      throw new TypeError(`unknown output format ${String(unexpected)}`);
    }
  }
}

/**
 * The output format argv asks for, read without the parser: when the arguments themselves are wrong,
 * a script that asked for JSON must still get JSON. Anything unclear means text.
 */
export function outputFormatOfArgv(argv: readonly string[]): OutputFormat {
  let value: string | undefined;
  argv.forEach((argument, index) => {
    if (argument === '--output-format') value = argv[index + 1];
    else if (argument.startsWith('--output-format=')) value = argument.slice('--output-format='.length);
  });
  return OUTPUT_FORMATS.find((format) => format === value) ?? 'text';
}
