/**
 * Where editor sessions are kept: mcphost's saved conversations, one folder per working folder
 * (the CLI gives the store; `mcphost -r ID` in that folder continues a session and the other way
 * round). The session id is the conversation's id.
 */
import type { HistoryChange } from '../core/runner.js';
import type { Message, Provider } from '../core/types.js';

/** What a conversation is saved with: the runner's provider, prompt and history. */
export interface RecordedState {
  readonly provider: Provider;
  readonly systemPrompt?: string | undefined;
  readonly history: readonly Message[];
}

/** A conversation being saved. */
export interface StoredConversation {
  readonly id: string;
  /** Saves a change of the history (the runner's `onHistoryChange`). */
  record(runner: RecordedState, history: readonly Message[], change?: HistoryChange): Promise<void>;
}

/** A saved conversation taken up again. */
export interface ReopenedConversation extends StoredConversation {
  readonly messages: readonly Message[];
  /** The model it was last run with (`provider:model`). */
  readonly model?: string;
  readonly systemPrompt?: string;
}

export interface ConversationListing {
  readonly id: string;
  readonly updatedAt: Date;
  /** The first line of what the user first asked. */
  readonly title: string;
}

export interface AcpSessionStore {
  /** A new conversation of `cwd` (written once it has an answer). */
  create(cwd: string): Promise<StoredConversation>;
  /** The saved conversation `id` of `cwd`; `undefined` when there is none. */
  open(cwd: string, id: string): Promise<ReopenedConversation | undefined>;
  /** The conversations of `cwd`, newest first. */
  list(cwd: string): Promise<readonly ConversationListing[]>;
}
