/**
 * The audit log: one JSON line per tool call, appended to a file, with secrets redacted.
 *
 * Every call the model asks for gets a line, including those that never ran (denied by a rule or
 * the user, blocked by a hook), so the log answers both "what did the agent do" and "what did it
 * try". Lines are appended one write at a time, in the order calls finish.
 */
import { appendFile, open } from 'node:fs/promises';
import { ConfigError, messageOf } from '../errors.js';
import { redactSecrets, redactText } from './redact.js';

/** Who decided that a call runs (or not). */
export type DecidedBy =
  /** An approval rule or default (or no rule: allowed). */
  | 'policy'
  /** The user, answering a question. */
  | 'user'
  /** An "always allow" answer given earlier in the session. */
  | 'session'
  /** `--approve-all`. */
  | 'approve-all'
  /** A PreToolUse hook. */
  | 'hook'
  /** The call needed approval and no one could be asked (`-p` without `--approve-all`). */
  | 'no-one-to-ask';

/** One audit line. */
export interface AuditEntry {
  /** When the call was requested, ISO 8601. */
  readonly time: string;
  /** The configured server, `null` when unknown (an unknown tool). */
  readonly server: string | null;
  /** The tool's own name on its server. */
  readonly tool: string;
  /** The name the model used, `server__tool`. */
  readonly exposedName: string;
  /** The id of the call, as the model gave it (pairs the call with its result in a conversation). */
  readonly callId: string;
  /** The arguments (redacted when written). */
  readonly arguments: Readonly<Record<string, unknown>>;
  /** `allowed`, `denied` (a rule or the user), or `blocked` (a PreToolUse hook). */
  readonly decision: 'allowed' | 'denied' | 'blocked';
  /** Who decided {@link decision}: a rule, a hook, the user, an earlier answer… (see {@link DecidedBy}). */
  readonly decidedBy: DecidedBy;
  /** Why it was denied or blocked, or the rule that applied. */
  readonly reason?: string;
  /** `not-run` for a denied or blocked call. */
  readonly outcome: 'ok' | 'error' | 'cancelled' | 'not-run';
  /** How long the tool ran, in milliseconds (0 when it did not run). */
  readonly durationMs: number;
  /** True when the model got an error result. */
  readonly isError: boolean;
  /** UTF-8 bytes of text the tool returned. */
  readonly resultBytes?: number;
  /** Bytes cut from the result by the size limit. */
  readonly cutBytes?: number;
  /** Images left out of the result for being too big (see `limitToolImages`). */
  readonly droppedImages?: number;
  /** A PostToolUse hook withheld the result from the model. */
  readonly resultWithheld?: boolean;
}

/** Where audit entries go. */
export interface AuditSink {
  /** Queues one entry; never throws (write failures go to the sink's error callback). */
  record(entry: AuditEntry): void;
  /** Resolves when every queued entry has been written. */
  flush(): Promise<void>;
}

/** String values longer than this are cut in the log (a file's whole content is not an audit fact). */
export const MAX_AUDIT_STRING_LENGTH = 10_000;

/** The JSON line for an entry: secrets redacted, very long strings cut. No trailing newline. */
export function formatAuditLine(entry: AuditEntry): string {
  const redacted = {
    ...entry,
    arguments: capStrings(redactSecrets(entry.arguments)),
    ...(entry.reason === undefined ? {} : { reason: redactText(entry.reason) }),
  };
  return JSON.stringify(redacted);
}

function capStrings(value: unknown): unknown {
  if (typeof value === 'string') {
    return value.length <= MAX_AUDIT_STRING_LENGTH
      ? value
      : `${value.slice(0, MAX_AUDIT_STRING_LENGTH)}…[${value.length - MAX_AUDIT_STRING_LENGTH} more characters]`;
  }
  if (Array.isArray(value)) return value.map(capStrings);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, capStrings(item)]));
  }
  return value;
}

/**
 * Opens (creating it if needed) an audit log file for appending. Fails at once, with a ConfigError
 * naming the file, when it cannot be written — better than finding out after the first tool call.
 */
export async function openAuditLog(
  path: string,
  onError: (message: string) => void = () => undefined,
): Promise<AuditSink> {
  try {
    const handle = await open(path, 'a', 0o600);
    await handle.close();
  } catch (error) {
    const reason = messageOf(error);
    throw new ConfigError(path, `cannot write the audit log: ${reason}`, { cause: error });
  }
  let queue: Promise<void> = Promise.resolve();
  let reported = false;
  return {
    record(entry) {
      const line = `${formatAuditLine(entry)}\n`;
      queue = queue.then(() =>
        appendFile(path, line, 'utf8').catch((error: unknown) => {
          // Once: a full disk would otherwise say so after every call.
          if (reported) return;
          reported = true;
          onError(`cannot write the audit log ${path}: ${messageOf(error)}`);
        }),
      );
    },
    flush: () => queue,
  };
}
