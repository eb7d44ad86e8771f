/**
 * A saved conversation: the history of a Runner in a file, so that it can outlive the process.
 *
 * The file is a journal (format version {@link SAVED_CONVERSATION_FORMAT_VERSION}): JSON Lines, one
 * entry a line, only ever appended to, so that saving a message costs the same at the ten-thousandth
 * message as at the first.
 *
 * ```jsonl
 * {"type":"header","version":2,"model":"ollama:qwen2.5:3b","systemPrompt":"Be brief.","createdAt":"2025-01-31T12:00:00.000Z"}
 * {"type":"message","at":"2025-01-31T12:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"Hi"}]}}
 * {"type":"message","at":"2025-01-31T12:00:02.000Z","message":{"role":"assistant","content":[…]}}
 * {"type":"compaction","at":"…","summary":"…","replacedMessages":40,"messages":[…]}
 * ```
 *
 * The entries (see `journalEntrySchema`) replay to the history: `message` appends, `truncate` cuts
 * back, `compaction` replaces the history with its summary and the turns it kept, `model` records a
 * switch of model. A last line cut short by a kill is dropped with a note; any other bad line is a
 * ConfigError naming the file and the line. The version-1 format (one JSON document rewritten at
 * every save) still loads; saving to such a file converts it once.
 */
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ConfigError, messageOf } from '../core/errors.js';
import { describeFirstIssue, conversationSchemas, type JournalEntry } from './saved-conversation-schema.js';
import { writeFileAtomic } from '../util/atomic-file.js';
import { TASK_LEFT_RUNNING } from '../mcp/tasks/tasks-mode.js';
import type { Message, ToolCallBlock, ToolResultBlock } from '../core/types.js';

/** The format this mcphost writes (a journal), and the newest it reads. Version 1 still loads. */
export const SAVED_CONVERSATION_FORMAT_VERSION = 2;

/** A saved conversation. */
export interface SavedConversation {
  /** The model it was held with, `provider:model`. A continued conversation uses it unless told otherwise. */
  readonly model: string;
  /** The system prompt in effect, if any. */
  readonly systemPrompt?: string;
  /** When the conversation started (ISO 8601). */
  readonly createdAt: string;
  /** When it was last saved (ISO 8601). */
  readonly updatedAt: string;
  /** The history, oldest first (after any compaction: the summary, then the turns kept). */
  readonly messages: readonly Message[];
}

/** A conversation as read from its file, with what the reader had to know about the file. */
export interface LoadedConversation extends SavedConversation {
  /** The format of the file: 1 (one JSON document) or 2 (a journal). */
  readonly format: 1 | 2;
  /** Things the user should be told (a torn last line that was dropped). */
  readonly notes: readonly string[];
  /**
   * For a journal: the bytes of the file that hold whole entries. A writer continuing the journal
   * cuts the file to this length first, so that a torn last line does not swallow the next entry.
   */
  readonly wholeBytes: number;
  /** For a journal: true when its last whole entry lacks its newline (a writer adds one first). */
  readonly needsNewline: boolean;
  /** For a journal: how many compactions it records. */
  readonly compactions: number;
  /**
   * For a journal: the tool calls of its last step that were running as tasks when it was last
   * saved and have no result in it (a later run may follow them to their results).
   */
  readonly openTasks?: readonly JournaledTask[];
}

/** A tool call running as a task, as the journal records it. */
export interface JournaledTask {
  readonly toolCallId: string;
  readonly server: string;
  /** The tool's own name on its server. */
  readonly tool: string;
  readonly taskId: string;
}

/** Node's error code on a failed file operation, if any. */
export function errorCode(error: unknown): string | undefined {
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
 * Reads the text of a saved conversation, in either format. Throws a ConfigError saying what is
 * wrong and where: not JSON, not a session, a newer format, or the first invalid field.
 */
export function parseSavedConversation(text: string, path: string): LoadedConversation {
  const firstLineEnd = text.indexOf('\n');
  const firstLine = firstLineEnd === -1 ? text : text.slice(0, firstLineEnd);
  let first: unknown;
  try {
    first = JSON.parse(firstLine) as unknown;
  } catch {
    // A version-1 file is pretty-printed: its first line ("{") is not JSON on its own.
    return parseVersionOne(text, path);
  }
  if (typeof first === 'object' && first !== null && 'type' in first && first.type === 'header') {
    return parseJournal(text, path);
  }
  return parseVersionOne(text, path);
}

function checkVersion(raw: unknown, path: string): void {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw) || !('version' in raw)) {
    throw new ConfigError(path, 'not an mcphost session file (no "version")');
  }
  const { version } = raw;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    throw new ConfigError(path, `not a valid session file: version: expected a whole number >= 1`);
  }
  if (version > SAVED_CONVERSATION_FORMAT_VERSION) {
    throw new ConfigError(
      path,
      `session format version ${version} was written by a newer mcphost (this one reads up to ${SAVED_CONVERSATION_FORMAT_VERSION}): upgrade mcphost`,
    );
  }
}

function parseVersionOne(text: string, path: string): LoadedConversation {
  let raw: unknown;
  try {
    raw = JSON.parse(text) as unknown;
  } catch (error) {
    const reason = messageOf(error);
    throw new ConfigError(path, `not a valid session file: invalid JSON (${reason})`, { cause: error });
  }
  checkVersion(raw, path);
  const { sessionBodySchema } = conversationSchemas();
  const body = sessionBodySchema.safeParse(raw); // the fast path, as for a journal's lines
  if (!body.success) {
    const described = sessionBodySchema.safeParse(raw, { reportInput: true });
    throw new ConfigError(
      path,
      `not a valid session file: ${describeFirstIssue(described.error ?? body.error)}`,
    );
  }
  return { ...body.data, format: 1, notes: [], wholeBytes: 0, needsNewline: false, compactions: 0 };
}

function parseJournal(text: string, path: string): LoadedConversation {
  const lines = text.split('\n');
  const headerRaw = JSON.parse(lines[0] ?? '') as unknown;
  checkVersion(headerRaw, path);
  const { journalHeaderSchema, journalEntrySchema } = conversationSchemas();
  const header = journalHeaderSchema.safeParse(headerRaw, { reportInput: true });
  if (!header.success) {
    throw new ConfigError(path, `line 1: not a valid session header: ${describeFirstIssue(header.error)}`);
  }
  let messages: Message[] = [];
  let model = header.data.model;
  let updatedAt = header.data.createdAt;
  let compactions = 0;
  const tasks = new Map<string, JournaledTask>();
  const notes: string[] = [];
  let wholeBytes = Buffer.byteLength(lines[0] ?? '', 'utf8') + 1;
  let needsNewline = lines.length === 1;
  for (let index = 1; index < lines.length; index++) {
    const line = lines[index] ?? '';
    const isLast = index === lines.length - 1;
    if (line === '') continue; // the end of the file after its final newline
    let raw: unknown;
    try {
      raw = JSON.parse(line) as unknown;
    } catch (error) {
      if (isLast) {
        // A kill during an append leaves a line without its end: the entry never happened.
        notes.push(
          `${path}: line ${index + 1} was cut short (mcphost was stopped while saving it) and is left out`,
        );
        break;
      }
      throw new ConfigError(path, `line ${index + 1}: not valid JSON (${messageOf(error)})`, {
        cause: error,
      });
    }
    // Checked without `reportInput` (which takes zod off its compiled fast path, three times the
    // cost: most of a 10,000-line load); a bad line is checked again with it, for the message.
    const parsed = journalEntrySchema.safeParse(raw);
    if (!parsed.success) {
      const described = journalEntrySchema.safeParse(raw, { reportInput: true });
      throw new ConfigError(
        path,
        `line ${index + 1}: not a valid entry: ${describeFirstIssue(described.error ?? parsed.error)}`,
      );
    }
    const entry: JournalEntry = parsed.data;
    messages = replay(messages, entry, path, index + 1);
    if (entry.type === 'model') model = entry.model;
    if (entry.type === 'compaction') compactions += 1;
    if (entry.type === 'task') {
      const { toolCallId, server, tool, taskId } = entry;
      tasks.set(toolCallId, { toolCallId, server, tool, taskId });
    }
    updatedAt = entry.at;
    wholeBytes += Buffer.byteLength(line, 'utf8') + (isLast ? 0 : 1);
    needsNewline = isLast;
  }
  return {
    model,
    ...(header.data.systemPrompt === undefined ? {} : { systemPrompt: header.data.systemPrompt }),
    createdAt: header.data.createdAt,
    updatedAt,
    messages,
    format: 2,
    notes,
    wholeBytes: Math.min(wholeBytes, Buffer.byteLength(text, 'utf8')),
    needsNewline,
    compactions,
    openTasks: [...openCalls(messages), ...callsLeftRunning(messages)].flatMap((id) => {
      const task = tasks.get(id);
      return task === undefined ? [] : [task];
    }),
  };
}

/** The tool calls of the last message when it is an assistant's whose calls have no results yet. */
function openCalls(messages: readonly Message[]): readonly string[] {
  const last = messages.at(-1);
  if (last?.role !== 'assistant') return [];
  return last.content
    .filter((block): block is ToolCallBlock => block.type === 'tool-call')
    .map((call) => call.id);
}

/**
 * The calls of the last step whose results are mcphost's own errors (`origin: "host"`): stopped
 * before they finished. For a call that ran as a task, the task may have gone on on its server (a
 * closed terminal leaves it running, TasksLeftRunning), so a later run asks how it ended; a task
 * cancelled with Ctrl-C is then found cancelled, and says so.
 */
function callsLeftRunning(messages: readonly Message[]): readonly string[] {
  const last = messages.at(-1);
  if (last?.role !== 'tool') return [];
  return last.content
    .filter((result) => result.isError && result.origin === 'host')
    .map((result) => result.toolCallId);
}

/** The history after one entry. Appends in place: replaying 10,000 messages must stay linear. */
function replay(messages: Message[], entry: JournalEntry, path: string, line: number): Message[] {
  switch (entry.type) {
    case 'message':
      messages.push(entry.message);
      return messages;
    case 'truncate':
      if (entry.length > messages.length) {
        throw new ConfigError(
          path,
          `line ${line}: truncate to ${entry.length} messages, but there are only ${messages.length}`,
        );
      }
      messages.length = entry.length;
      return messages;
    case 'compaction':
      return [...entry.messages];
    case 'model':
    case 'task':
      return messages;
    default: {
      const unexpected: never = entry;
      return unexpected;
    }
  }
}

/** The header line of a journal. */
export function journalHeader(
  conversation: Pick<SavedConversation, 'model' | 'systemPrompt' | 'createdAt'>,
): string {
  const header = {
    type: 'header',
    version: SAVED_CONVERSATION_FORMAT_VERSION,
    model: conversation.model,
    ...(conversation.systemPrompt === undefined ? {} : { systemPrompt: conversation.systemPrompt }),
    createdAt: conversation.createdAt,
  };
  return `${JSON.stringify(header)}\n`;
}

/** One journal line (with its newline). */
export function journalLine(entry: JournalEntry): string {
  return `${JSON.stringify(entry)}\n`;
}

/** A whole journal holding `conversation`: its header and one `message` entry per message. */
export function serializeSavedConversation(conversation: SavedConversation): string {
  let text = journalHeader(conversation);
  for (const message of conversation.messages) {
    text += journalLine({ type: 'message', at: conversation.updatedAt, message });
  }
  return text;
}

/** The file's text; `undefined` when it does not exist and `missingIsEmpty` says that is fine. */
async function readConversationText(path: string, missingIsEmpty: boolean): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if (missingIsEmpty && errorCode(error) === 'ENOENT') return undefined;
    throw unreadable(path, error);
  }
}

/**
 * Reads and checks a saved conversation. Throws a ConfigError naming the file when it is missing,
 * unreadable, empty, or not a session this version can read.
 */
export async function loadSavedConversation(path: string): Promise<LoadedConversation> {
  const text = (await readConversationText(path, false)) ?? '';
  if (text.trim() === '') throw new ConfigError(path, 'the session file is empty');
  return parseSavedConversation(text, path);
}

/**
 * Like {@link loadSavedConversation}, but a missing or empty file (`mktemp` makes those) means "no
 * conversation yet" and gives `undefined`. Anything else that is not a valid session still throws.
 */
export async function loadSavedConversationIfExists(path: string): Promise<LoadedConversation | undefined> {
  const text = await readConversationText(path, true);
  if (text === undefined || text.trim() === '') return undefined;
  return parseSavedConversation(text, path);
}

/**
 * Throws a ConfigError unless `path` may be (over)written with a conversation: it does not exist,
 * is empty, or already holds one this version can read. Anything else is left alone.
 */
export async function assertConversationWritable(path: string): Promise<LoadedConversation | undefined> {
  try {
    return await loadSavedConversationIfExists(path);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new ConfigError(error.source, `${error.detail} — refusing to overwrite it`, { cause: error });
  }
}

/**
 * Saves a whole conversation to `path` as a new journal, atomically: a crash leaves the previous
 * file or the new one. Refuses (with a ConfigError) to replace a file that is not a session this
 * version can read. To save a growing conversation, see `ConversationJournal`.
 */
export async function saveConversation(path: string, conversation: SavedConversation): Promise<void> {
  await assertConversationWritable(path);
  await writeConversationFile(path, serializeSavedConversation(conversation));
}

/** Why a save failed, in words, without the temporary file's name that the raw error carries. */
export function saveFailure(error: unknown, path: string): string {
  const folder = dirname(path);
  const reasons: Readonly<Record<string, string>> = {
    ENOENT: `no such directory: ${folder}`,
    EACCES: `permission denied in ${folder}`,
    EPERM: `permission denied in ${folder}`,
    ENOSPC: 'the disk is full',
    EROFS: 'the file system is read-only',
  };
  const code = errorCode(error);
  return (code === undefined ? undefined : reasons[code]) ?? messageOf(error);
}

/** Replaces the file atomically without checking what it holds (the caller has). */
export async function writeConversationFile(path: string, text: string): Promise<void> {
  try {
    await writeFileAtomic(path, text);
  } catch (error) {
    throw new ConfigError(path, `cannot save the session: ${saveFailure(error, path)}`, { cause: error });
  }
}

/**
 * A history safe to continue: a tool call left without a result (the process was killed while the
 * tool ran) gets an error result, since every vendor wants each call answered in the next message.
 */
export function closeOpenToolCalls(
  messages: readonly Message[],
  openTasks: readonly JournaledTask[] = [],
): readonly Message[] {
  const last = messages.at(-1);
  if (last?.role !== 'assistant') return messages;
  const calls = last.content.filter((block): block is ToolCallBlock => block.type === 'tool-call');
  if (calls.length === 0) return messages;
  const results: ToolResultBlock[] = calls.map((call) => {
    const task = openTasks.find((open) => open.toolCallId === call.id);
    // A call running as a task is not lost: this stands until the task is followed (resumeTasks).
    const text =
      task === undefined
        ? 'not run: the previous session ended before this call finished'
        : `${TASK_LEFT_RUNNING}: task ${task.taskId} on server "${task.server}" was still running when the previous session ended`;
    return {
      type: 'tool-result',
      toolCallId: call.id,
      toolName: call.name,
      content: [{ type: 'text', text }],
      isError: true,
      origin: 'host',
    };
  });
  return [...messages, { role: 'tool', content: results }];
}
