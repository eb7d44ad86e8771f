/**
 * Sessions: a conversation saved to a JSON file, so that it can outlive the process.
 *
 * The file (format version {@link SESSION_FORMAT_VERSION}):
 *
 * ```json
 * {
 *   "version": 1,
 *   "model": "ollama:qwen2.5:3b",
 *   "systemPrompt": "Be brief.",
 *   "createdAt": "2025-01-31T12:00:00.000Z",
 *   "updatedAt": "2025-01-31T12:03:10.412Z",
 *   "messages": [ { "role": "user", "content": [ { "type": "text", "text": "Hi" } ] }, … ]
 * }
 * ```
 *
 * `messages` is the Runner's history as is (see {@link Message}): user, assistant (text and tool
 * calls) and tool messages (every result of one step). Writes are atomic; a file that is not a
 * session this version can read (corrupt, hand-broken, or written by a newer mcphost) is reported
 * as a ConfigError naming the file and the place, and is never overwritten.
 */
import { dirname } from 'node:path';
import { readFile } from 'node:fs/promises';
import { ConfigError, messageOf } from './errors.js';
import { describeFirstIssue, sessionBodySchema } from './session-schema.js';
import { writeFileAtomic } from './atomic-file.js';
import type { Message, ToolCallBlock, ToolResultBlock } from './types.js';

/** The session format this mcphost writes, and the newest it reads. */
export const SESSION_FORMAT_VERSION = 1;

/** A saved conversation. */
export interface Session {
  /** The model it was held with, `provider:model`. A continued session uses it unless told otherwise. */
  readonly model: string;
  /** The system prompt in effect, if any. */
  readonly systemPrompt?: string;
  /** When the conversation started (ISO 8601). */
  readonly createdAt: string;
  /** When it was last saved (ISO 8601). */
  readonly updatedAt: string;
  /** The history, oldest first. */
  readonly messages: readonly Message[];
}

/** Node's error code on a failed file operation, if any. */
function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string'
    ? error.code
    : undefined;
}

function unreadable(path: string, error: unknown): ConfigError {
  const code = errorCode(error);
  const detail =
    code === 'ENOENT'
      ? 'no such session file'
      : code === 'EISDIR'
        ? 'is a directory, not a session file'
        : code === 'EACCES' || code === 'EPERM'
          ? 'cannot read the session file: permission denied'
          : `cannot read the session file: ${messageOf(error)}`;
  return new ConfigError(path, detail, { cause: error });
}

/**
 * Checks the text of a session file. Throws a ConfigError saying what is wrong and where: not
 * JSON, not a session, a newer format, or the first invalid field (`messages[3].content[0].type`).
 */
export function parseSession(text: string, path: string): Session {
  let raw: unknown;
  try {
    raw = JSON.parse(text) as unknown;
  } catch (error) {
    const reason = messageOf(error);
    throw new ConfigError(path, `not a valid session file: invalid JSON (${reason})`, { cause: error });
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw) || !('version' in raw)) {
    throw new ConfigError(path, 'not an mcphost session file (no "version")');
  }
  const { version } = raw;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    throw new ConfigError(path, `not a valid session file: version: expected a whole number >= 1`);
  }
  if (version > SESSION_FORMAT_VERSION) {
    throw new ConfigError(
      path,
      `session format version ${version} was written by a newer mcphost (this one reads up to ${SESSION_FORMAT_VERSION}): upgrade mcphost`,
    );
  }
  const body = sessionBodySchema.safeParse(raw, { reportInput: true });
  if (!body.success) {
    throw new ConfigError(path, `not a valid session file: ${describeFirstIssue(body.error)}`);
  }
  return body.data;
}

/** The JSON text of a session, as saved (keys in a fixed order, two-space indent, final newline). */
export function serializeSession(session: Session): string {
  const file = {
    version: SESSION_FORMAT_VERSION,
    model: session.model,
    ...(session.systemPrompt === undefined ? {} : { systemPrompt: session.systemPrompt }),
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
    messages: session.messages,
  };
  return `${JSON.stringify(file, null, 2)}\n`;
}

/** The file's text; `undefined` when it does not exist and `missingIsEmpty` says that is fine. */
async function readSessionText(path: string, missingIsEmpty: boolean): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if (missingIsEmpty && errorCode(error) === 'ENOENT') return undefined;
    throw unreadable(path, error);
  }
}

/**
 * Reads and checks a session file. Throws a ConfigError naming the file when it is missing,
 * unreadable, empty, or not a session this version can read.
 */
export async function loadSession(path: string): Promise<Session> {
  const text = (await readSessionText(path, false)) ?? '';
  if (text.trim() === '') throw new ConfigError(path, 'the session file is empty');
  return parseSession(text, path);
}

/**
 * Like {@link loadSession}, but a missing or empty file (`mktemp` makes those) means "no session
 * yet" and gives `undefined`. Anything else that is not a valid session still throws.
 */
export async function loadSessionIfExists(path: string): Promise<Session | undefined> {
  const text = await readSessionText(path, true);
  if (text === undefined || text.trim() === '') return undefined;
  return parseSession(text, path);
}

/**
 * Throws a ConfigError unless `path` may be (over)written with a session: it does not exist, is
 * empty, or already holds a session this version can read. Anything else — another kind of file,
 * a corrupt session, a newer format — is left alone.
 */
export async function assertSessionWritable(path: string): Promise<void> {
  try {
    await loadSessionIfExists(path);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new ConfigError(error.source, `${error.detail} — refusing to overwrite it`, { cause: error });
  }
}

/**
 * Saves a session to `path`, atomically (a temporary file, flushed, then renamed over `path`): a
 * crash or Ctrl-C leaves either the previous file or the new one, never a torn one. Refuses (with a
 * ConfigError) to replace a file that is not a session this version can read; the file is then
 * unchanged. To save again and again without re-reading the file, see `SessionRecorder`.
 */
export async function saveSession(path: string, session: Session): Promise<void> {
  await assertSessionWritable(path);
  await writeSessionFile(path, session);
}

/** Why a save failed, in words, without the temporary file's name that the raw error carries. */
function saveFailure(error: unknown, path: string): string {
  const folder = dirname(path);
  const reasons: Readonly<Record<string, string>> = {
    ENOENT: `no such directory: ${folder}`,
    EACCES: `permission denied in ${folder}`,
    EPERM: `permission denied in ${folder}`,
    ENOSPC: 'the disk is full',
    EROFS: 'the file system is read-only',
  };
  const code = (error as NodeJS.ErrnoException).code;
  return (code === undefined ? undefined : reasons[code]) ?? messageOf(error);
}

/** Writes without checking what `path` holds (the caller has). Errors become ConfigErrors. */
export async function writeSessionFile(path: string, session: Session): Promise<void> {
  try {
    await writeFileAtomic(path, serializeSession(session));
  } catch (error) {
    throw new ConfigError(path, `cannot save the session: ${saveFailure(error, path)}`, { cause: error });
  }
}

/**
 * A history safe to continue: a tool call left without a result (the process was killed while the
 * tool ran) gets an error result, since every vendor wants each call answered in the next message.
 */
export function closeOpenToolCalls(messages: readonly Message[]): readonly Message[] {
  const last = messages.at(-1);
  if (last?.role !== 'assistant') return messages;
  const calls = last.content.filter((block): block is ToolCallBlock => block.type === 'tool-call');
  if (calls.length === 0) return messages;
  const results: ToolResultBlock[] = calls.map((call) => ({
    type: 'tool-result',
    toolCallId: call.id,
    toolName: call.name,
    content: [{ type: 'text', text: 'not run: the previous session ended before this call finished' }],
    isError: true,
  }));
  return [...messages, { role: 'tool', content: results }];
}
