/** Exit codes, documented in docs/scripting.md. Each says whose fault the failure was. */
import { oneLine } from './chat/sanitize.js';
import {
  AbortedError,
  ConfigError,
  MaxStepsError,
  TokenBudgetError,
  McpHostError,
  messageOf,
  PromptBlockedError,
  ProviderError,
  ServerError,
  StructuredOutputError,
} from '../core/errors.js';
import { DatabaseUnreachableError } from '../jobs/workers/database-error.js';

export const ExitCode = {
  /** The model answered. */
  ok: 0,
  /** A bug or an unexpected failure (run with --debug and report it). */
  internal: 1,
  /** Bad flags, config, session or script file. */
  usage: 2,
  /** The model provider failed (after retries, for retryable failures). */
  provider: 3,
  /** The model kept calling tools until --max-steps. */
  maxSteps: 4,
  /**
   * Servers failed: every configured one, when they were required (the library's
   * `requireServers`); any one, for `mcp list`. A chat or `-p` run goes on without a failed server.
   */
  servers: 5,
  /** A UserPromptSubmit hook blocked the prompt. */
  blocked: 6,
  /** The answer never matched `--output-schema` (after the follow-ups: docs/scripting.md). */
  schema: 7,
  /** `mcphost batch`: every job ran, and some failed or some lines were not jobs (docs/batch.md). */
  batchFailures: 8,
  /** `jobs` and `worker`: the jobs database could not be reached (docs/workers.md). */
  database: 9,
  /** Interrupted by Ctrl-C or a signal (128 + SIGINT). */
  interrupted: 130,
} as const;

/** 128 + the signal number, as shells report a program stopped by a signal (SIGHUP 129, SIGTERM 143). */
const SIGNAL_EXIT_CODES = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 } as const;

export type ExitCodeValue =
  (typeof ExitCode)[keyof typeof ExitCode] | (typeof SIGNAL_EXIT_CODES)[keyof typeof SIGNAL_EXIT_CODES];

export function signalExitCode(signal: NodeJS.Signals): ExitCodeValue {
  return signal in SIGNAL_EXIT_CODES
    ? SIGNAL_EXIT_CODES[signal as keyof typeof SIGNAL_EXIT_CODES]
    : ExitCode.interrupted;
}

export function exitCodeOf(error: unknown): ExitCodeValue {
  if (error instanceof ConfigError) return ExitCode.usage;
  if (error instanceof DatabaseUnreachableError) return ExitCode.database;
  if (error instanceof ProviderError) return ExitCode.provider;
  // A limit of the run's own ended it: the step limit, or the session's token budget.
  if (error instanceof MaxStepsError || error instanceof TokenBudgetError) return ExitCode.maxSteps;
  if (error instanceof AbortedError) return ExitCode.interrupted;
  if (error instanceof ServerError) return ExitCode.servers;
  if (error instanceof PromptBlockedError) return ExitCode.blocked;
  if (error instanceof StructuredOutputError) return ExitCode.schema;
  return ExitCode.internal;
}

/** An error's message on one line. */
export function oneLineMessage(error: unknown): string {
  // Messages quote models, vendors and servers: control and bidi characters go with the line breaks.
  return oneLine(messageOf(error));
}

/**
 * A config error's message: its summary on one line, then the lines it lists (indented by two
 * spaces: each problem of a config file, each saved conversation), each on its own line.
 */
function summaryAndList(message: string): string {
  const lines = message.split('\n');
  const listed = lines.findIndex((text, index) => index > 0 && text.startsWith('  '));
  if (listed < 0) return message.replace(/\s*\n\s*/g, ' ');
  const summary = lines.slice(0, listed).join(' ').replace(/\s+/g, ' ');
  const list = lines.slice(listed).filter((text) => text.trim() !== '');
  return [summary, ...list.map((text) => (text.startsWith('  ') ? text : `  ${text}`))].join('\n');
}

/**
 * What went wrong, for a place that already says who speaks (the chat): one line, the stack only
 * with --debug, and a request to report it for a bug (an error outside our tree).
 */
export function describeFailure(error: unknown, debug: boolean): string {
  const line = error instanceof ConfigError ? summaryAndList(error.message) : oneLineMessage(error);
  if (debug && error instanceof Error && error.stack !== undefined) return `${line}\n${error.stack}`;
  return error instanceof McpHostError ? line : `internal error: ${line} (run with --debug for details)`;
}

/** {@link describeFailure} as a line of mcphost's own on stderr. */
export function describeError(error: unknown, debug: boolean): string {
  return `mcphost: ${describeFailure(error, debug)}`;
}
