/**
 * How the CLI shows the host's notices (createRunner's `onEvent`): server output on stderr (or in
 * the chat, so that it does not run into the prompt), notes through the reporter, progress to the
 * reporter and the chat's status line.
 */
import type { ElicitationOutcome } from '../../mcp/elicitation.js';
import type { PoolLogEntry, ToolProgress } from '../../mcp/pool.js';
import type { SamplingOutcome } from '../../mcp/sampling.js';
import { stripControlCharacters } from '../../safety/output-limits.js';
import { redactText } from '../../safety/redact.js';
import type { HostEvent } from '../../setup/host-event.js';
import type { CliIO } from '../io.js';
import type { Reporter } from './reporter-contract.js';

/** Where the notices of one run go. */
export interface HostEventTargets {
  readonly io: CliIO;
  readonly reporter: Reporter;
  /** `--debug`: servers' debug output is shown too. */
  readonly debug: boolean;
  /** The chat, once it runs: a server's failure is printed by it. */
  readonly chat: { readonly bound: boolean; write(text: string): void } | undefined;
  /** The chat's status line listeners for tool progress. */
  readonly progressListeners: Iterable<(report: ToolProgress) => void> | undefined;
}

/** The CLI's `onEvent`. */
export function hostEventReporter(targets: HostEventTargets): (event: HostEvent) => void {
  const { io, reporter } = targets;
  return (event) => {
    switch (event.type) {
      case 'server-log':
        reportServerLog(event.entry, io, targets.debug, targets.chat);
        return;
      case 'server-log-message':
        // Shown as the `server-log` event of level debug that comes with it.
        return;
      case 'warning':
        reporter.note(`warning: ${event.message}`);
        return;
      case 'content-flagged': {
        const { source, origin, flag } = event.report;
        reporter.note(
          `possible prompt injection in ${origin.kind === 'tool-result' ? `the result of ${source}` : source} (${flag.action}): ${flag.findings.join('; ')}`,
        );
        return;
      }
      case 'tool-change':
        // The changes stay lines, each cleaned and shown under the first (io.ts: notice).
        reporter.note([`warning: ${event.notice.summary}`, ...event.notice.changes]);
        return;
      case 'tool-progress':
        reporter.progress?.(event.progress);
        for (const listener of targets.progressListeners ?? []) listener(event.progress);
        return;
      case 'offerings-change':
        reporter.offeringsChange?.(event.change);
        return;
      case 'elicitation-outcome':
        reporter.note(describeElicitationOutcome(event.outcome));
        return;
      case 'sampling-outcome':
        reporter.note(describeSamplingOutcome(event.outcome));
        return;
      default: {
        const unexpected: never = event;
        throw new TypeError(`unknown host event ${JSON.stringify(unexpected)}`);
      }
    }
  };
}

function reportServerLog(
  entry: PoolLogEntry,
  io: CliIO,
  debug: boolean,
  chat: { readonly bound: boolean; write(text: string): void } | undefined,
): void {
  if (entry.level === 'debug' && !debug) return;
  // Server output (stderr tails included) may hold credentials and escape sequences: neither
  // reaches the terminal as is. Failures are shown even with --quiet: they are errors.
  const clean = stripControlCharacters(redactText(entry.message));
  const line = entry.level === 'warn' ? `mcphost: ${clean}\n` : `[${entry.server}] ${clean}\n`;
  if (chat?.bound === true) chat.write(line);
  else io.stderr.write(line);
}

/** One stderr line: which server asked what, and what was answered (and why, if the host chose). */
function describeSamplingOutcome(outcome: SamplingOutcome): string {
  const findings =
    outcome.findings === undefined ? '' : `; possible prompt injection: ${outcome.findings.join('; ')}`;
  return `server "${outcome.server}" asked to use the model (sampling) — ${outcome.action} (${stripControlCharacters(outcome.reason)}${findings})`;
}

function describeElicitationOutcome(outcome: ElicitationOutcome): string {
  const reason = outcome.reason === undefined ? '' : ` (${outcome.reason})`;
  const message = stripControlCharacters(outcome.message);
  return `server "${outcome.server}" asked for input (${outcome.mode}): "${message}" — ${outcome.action}${reason}`;
}
