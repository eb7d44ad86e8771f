/**
 * Reading a saved conversation's text, in either format (see saved-conversation-format.ts): the
 * version-1 document, or the journal replayed entry by entry to its history.
 */
import { ConfigError, messageOf } from '../core/errors.js';
import { describeFirstIssue, conversationSchemas, type JournalEntry } from './saved-conversation-schema.js';
import type { AgentRun } from '../agents/child-run.js';
import type { Message, ToolCallBlock } from '../core/types.js';
import {
  SAVED_CONVERSATION_FORMAT_VERSION,
  type JournaledTask,
  type LoadedConversation,
} from './saved-conversation-format.js';
import { definedProperties } from '../util/defined-properties.js';

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
  return {
    ...body.data,
    format: 1,
    version: 1,
    notes: [],
    wholeBytes: 0,
    needsNewline: false,
    compactions: 0,
  };
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
  const agentRuns: AgentRun[] = [];
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
    if (entry.type === 'agent-run') agentRuns.push(entry.run);
    updatedAt = entry.at;
    wholeBytes += Buffer.byteLength(line, 'utf8') + (isLast ? 0 : 1);
    needsNewline = isLast;
  }
  return {
    model,
    ...definedProperties({ systemPrompt: header.data.systemPrompt }),
    createdAt: header.data.createdAt,
    updatedAt,
    messages,
    ...(agentRuns.length === 0 ? {} : { agentRuns }),
    format: 2,
    version: header.data.version,
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
    case 'agent-run':
      return messages;
    default: {
      const unexpected: never = entry;
      return unexpected;
    }
  }
}
