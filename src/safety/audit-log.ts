/**
 * The audit log: one JSON line per tool call, appended to a file, with secrets redacted.
 *
 * Every call the model asks for gets a line, including those that never ran (denied by a rule or
 * the user, blocked by a hook), so the log answers both "what did the agent do" and "what did it
 * try". Lines are appended one write at a time, in the order calls finish.
 */
import { createHash } from 'node:crypto';
import { appendFile, open, rename, rm } from 'node:fs/promises';
import { ConfigError, messageOf } from '../core/errors.js';
import { redactSecrets, redactText } from './redact.js';

/** Who decided that a call runs (or not). */
export type DecidedBy =
  /** An approval rule or default (or no rule: allowed). */
  | 'policy'
  /** The user, answering a question. */
  | 'user'
  /** An "always allow" or "always deny" answer given earlier in the session. */
  | 'session'
  /** An "always allow" answer kept for the project folder from an earlier run. */
  | 'kept'
  /** `--approve-all`. */
  | 'approve-all'
  /** A PreToolUse hook. */
  | 'hook'
  /** The call needed approval and no one could be asked (`-p` without `--approve-all`). */
  | 'no-one-to-ask'
  /** A budget or rate limit (see budgets.ts). */
  | 'budget'
  /** The tool's definition changed since it was pinned, and it is withheld (tool-pin-check.ts). */
  | 'tool-pin'
  /** The result of a task a previous session left running, followed by `-c` (allowed back then). */
  | 'resumed-task';

/** Who a server says it is, and how it was started. */
export interface ServerIdentity {
  /** `serverInfo.name` from its initialize answer. */
  readonly name?: string;
  /** `serverInfo.version`. */
  readonly version?: string;
  /** The command line of a stdio server (arguments included), or the URL of a remote one. */
  readonly command?: string;
  readonly url?: string;
  /**
   * Whether the server's processes run in a sandbox (docs/safety.md): set for the servers that
   * run processes on this machine (stdio servers, the built-in `bash`), absent for the others.
   */
  readonly sandboxed?: boolean;
}

/** One audit line. */
export interface AuditEntry {
  /**
   * What the line is about: a tool call (the default, and absent on such lines), or a server's
   * sampling request (`tool` is then `sampling/createMessage`, `arguments` the request), or a
   * tool definition that changed since it was pinned (`tool-change`: no call, see {@link toolChange}).
   */
  readonly kind?: 'sampling' | 'tool-change';
  /** When the call was requested, ISO 8601. */
  readonly time: string;
  /** The session this call belongs to (the same id hooks are given as `session_id`). */
  readonly sessionId?: string;
  /** The prompt of the session this call answered, from 1. */
  readonly turn?: number;
  /** The server behind the call, as it introduced itself and as it was started. */
  readonly serverIdentity?: ServerIdentity;
  /** The configured server, `null` when unknown (an unknown tool). */
  readonly server: string | null;
  /** The tool's own name on its server. */
  readonly tool: string;
  /** The name the model used, `server__tool`. */
  readonly exposedName: string;
  /** The named agent whose run made the call (src/agents); absent for the main run. */
  readonly agent?: string;
  /** Set when an MCP App's page made the call (not the model): the app's id (src/apps). */
  readonly fromApp?: string;
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
  /** `sha256:` of the result as the model got it (its content blocks as JSON). */
  readonly resultDigest?: string;
  /** The untrusted-content detector flagged the result: the policy, what was done, what was found. */
  readonly flagged?: {
    readonly policy: string;
    readonly action: string;
    readonly findings: readonly string[];
  };
  /** The budget or rate limit that refused the call. */
  readonly budget?: string;
  /** On a `tool-change` line: the policy, what was done, the old and new hashes, what changed. */
  readonly toolChange?: {
    readonly policy: string;
    readonly action: 'used' | 'withheld';
    readonly previousHash: string;
    readonly hash: string;
    readonly changes: readonly string[];
  };
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
  rotation: AuditRotation = {},
): Promise<AuditSink> {
  let size: number;
  try {
    const handle = await open(path, 'a', 0o600);
    size = (await handle.stat()).size;
    await handle.close();
  } catch (error) {
    const reason = messageOf(error);
    throw new ConfigError(path, `cannot write the audit log: ${reason}`, { cause: error });
  }
  const maxBytes = rotation.maxBytes;
  const keep = rotation.keep ?? DEFAULT_AUDIT_FILES_KEPT;
  let queue: Promise<void> = Promise.resolve();
  let reported = false;
  return {
    record(entry) {
      const line = `${formatAuditLine(entry)}\n`;
      const bytes = Buffer.byteLength(line);
      queue = queue
        .then(async () => {
          if (maxBytes !== undefined && size > 0 && size + bytes > maxBytes) {
            await rotate(path, keep);
            size = 0;
          }
          await appendFile(path, line, { encoding: 'utf8', mode: 0o600 });
          size += bytes;
        })
        .catch((error: unknown) => {
          // Once: a full disk would otherwise say so after every call.
          if (reported) return;
          reported = true;
          onError(`cannot write the audit log ${path}: ${messageOf(error)}`);
        });
    },
    flush: () => queue,
  };
}

/** Rotation by size: past `maxBytes`, the log becomes `PATH.1` (and `.1` becomes `.2`…). */
export interface AuditRotation {
  /** Rotate before a line would take the file past this many bytes. Default: never rotate. */
  readonly maxBytes?: number;
  /** Rotated files kept (`PATH.1` … `PATH.N`). Default {@link DEFAULT_AUDIT_FILES_KEPT}. */
  readonly keep?: number;
}

export const DEFAULT_AUDIT_FILES_KEPT = 5;

async function rotate(path: string, keep: number): Promise<void> {
  await rm(`${path}.${keep}`, { force: true });
  for (let index = keep - 1; index >= 1; index--) {
    await rename(`${path}.${index}`, `${path}.${index + 1}`).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    });
  }
  if (keep >= 1) await rename(path, `${path}.1`);
  else await rm(path, { force: true });
}

/** The digest of a result as the model got it, for `resultDigest`. */
export function resultDigest(content: unknown): string {
  return `sha256:${createHash('sha256').update(JSON.stringify(content)).digest('hex')}`;
}
