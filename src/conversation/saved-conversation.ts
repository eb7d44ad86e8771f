/**
 * A saved conversation: the history of a Runner in a file, so that it can outlive the process.
 * The format is in saved-conversation-format.ts, its reading in saved-conversation-parser.ts; here
 * are the files: loading, saving atomically, and a history made safe to continue.
 */
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ConfigError, messageOf } from '../core/errors.js';
import { writeFileAtomic } from '../util/atomic-file.js';
import { TASK_LEFT_RUNNING } from '../mcp/tasks/tasks-mode.js';
import { errorResult } from '../core/tool-execution.js';
import type { Message, ToolCallBlock, ToolResultBlock } from '../core/types.js';
import { parseSavedConversation } from './saved-conversation-parser.js';
import {
  serializeSavedConversation,
  type JournaledTask,
  type LoadedConversation,
  type SavedConversation,
} from './saved-conversation-format.js';

export {
  SAVED_CONVERSATION_FORMAT_VERSION,
  journalHeader,
  journalLine,
  serializeSavedConversation,
  type JournaledTask,
  type LoadedConversation,
  type SavedConversation,
} from './saved-conversation-format.js';
export { parseSavedConversation } from './saved-conversation-parser.js';

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
    return errorResult(call, text);
  });
  return [...messages, { role: 'tool', content: results }];
}
