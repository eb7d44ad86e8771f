/**
 * The saved-conversation format: what a saved conversation holds, and how it is written.
 *
 * The file is a journal (format version {@link SAVED_CONVERSATION_FORMAT_VERSION}): JSON Lines, one
 * entry a line, only ever appended to, so that saving a message costs the same at the ten-thousandth
 * message as at the first.
 *
 * ```jsonl
 * {"type":"header","version":4,"model":"ollama:qwen2.5:3b","systemPrompt":"Be brief.","createdAt":"2025-01-31T12:00:00.000Z"}
 * {"type":"message","at":"2025-01-31T12:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"Hi"}]}}
 * {"type":"message","at":"2025-01-31T12:00:02.000Z","message":{"role":"assistant","content":[…]}}
 * {"type":"compaction","at":"…","summary":"…","replacedMessages":40,"messages":[…]}
 * ```
 *
 * The entries (see `journalEntrySchema`) replay to the history: `message` appends, `truncate` cuts
 * back, `compaction` replaces the history with its summary and the turns it kept, `model` records a
 * switch of model, `agent-run` keeps a subagent's run (its transcript) beside the history. A last line cut short by a kill is dropped with a note; any other bad line is a
 * ConfigError naming the file and the line. The version-1 format (one JSON document rewritten at
 * every save) still loads; saving to such a file converts it once.
 */
import type { AgentRun } from '../agents/child-run.js';
import type { Message } from '../core/types.js';
import type { JournalEntry } from './saved-conversation-schema.js';
import { definedProperties } from '../util/defined-properties.js';

/**
 * The format this mcphost writes (a journal), and the newest it reads. Version 1 (one JSON
 * document) and 2 (a journal) still load; 3 added `task` entries, so that an mcphost that reads
 * only up to 2 says it is too old rather than finding an entry it does not know; 4 added
 * `agent-run` entries (each subagent run's transcript), for the same reason.
 */
export const SAVED_CONVERSATION_FORMAT_VERSION = 4;

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
  /** The subagent runs of the conversation, oldest first, each with its transcript. */
  readonly agentRuns?: readonly AgentRun[];
}

/** A conversation as read from its file, with what the reader had to know about the file. */
export interface LoadedConversation extends SavedConversation {
  /** The format of the file: 1 (one JSON document) or 2 (a journal). */
  readonly format: 1 | 2;
  /** The version its header (or document) gives: a journal going on in it is brought to this one's. */
  readonly version: number;
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

/** The header line of a journal. */
export function journalHeader(
  conversation: Pick<SavedConversation, 'model' | 'systemPrompt' | 'createdAt'>,
): string {
  const header = {
    type: 'header',
    version: SAVED_CONVERSATION_FORMAT_VERSION,
    model: conversation.model,
    ...definedProperties({ systemPrompt: conversation.systemPrompt }),
    createdAt: conversation.createdAt,
  };
  return `${JSON.stringify(header)}\n`;
}

/** One journal line (with its newline). */
export function journalLine(entry: JournalEntry): string {
  return `${JSON.stringify(entry)}\n`;
}

/**
 * A whole journal holding `conversation`: its header, one `message` entry per message and one
 * `agent-run` entry per subagent run.
 */
export function serializeSavedConversation(conversation: SavedConversation): string {
  const at = conversation.updatedAt;
  let text = journalHeader(conversation);
  for (const run of conversation.agentRuns ?? []) text += journalLine({ type: 'agent-run', at, run });
  for (const message of conversation.messages) text += journalLine({ type: 'message', at, message });
  return text;
}
