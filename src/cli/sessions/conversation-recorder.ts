/**
 * The one path by which a conversation is saved: after every change of the runner's history (to the
 * journal of the conversation in progress), by `/save FILE` (a copy, written as a new journal), and
 * by `/resume` (which switches the journal to the conversation taken up). All three write what
 * {@link conversationStateOf} reads from the runner, so the model's name comes from one place: the
 * provider in use.
 */
import {
  ConversationJournal,
  type CompactionRecord,
  type ConversationState,
} from '../../conversation/conversation-journal.js';
import type { AgentRun } from '../../agents/child-run.js';
import type { HistoryChange } from '../../core/runner.js';
import type { JournaledTask } from '../../conversation/saved-conversation.js';
import type { Message, Provider } from '../../core/types.js';
import { definedProperties } from '../../util/defined-properties.js';

/** `provider:model`, as a saved conversation records it and `-m` takes it back. */
export function modelNameOf(provider: Provider): string {
  return `${provider.name}:${provider.model}`;
}

/** What a runner holds that a saved conversation keeps. */
export interface RecordedRunner {
  readonly provider: Provider;
  readonly systemPrompt?: string | undefined;
  readonly history: readonly Message[];
  /** Its subagent runs, each with its transcript (an McpRunner's `agentRuns`). */
  readonly agentRuns?: { readonly runs: readonly AgentRun[] };
}

/**
 * The state to save, read from the runner: the model in use, its system prompt, the history and
 * the subagent runs.
 */
export function conversationStateOf(runner: RecordedRunner, messages = runner.history): ConversationState {
  return {
    model: modelNameOf(runner.provider),
    ...definedProperties({ systemPrompt: runner.systemPrompt, agentRuns: runner.agentRuns?.runs }),
    messages,
  };
}

/** Options of {@link ConversationRecorder}. */
export interface ConversationRecorderOptions {
  /** The journal of the conversation in progress; none saves nothing until {@link ConversationRecorder.switchTo}. */
  readonly journal?: ConversationJournal | undefined;
  /** The clock of the journals it opens (`/save`). Default `Date.now`. */
  readonly now?: () => number;
  /**
   * Write nothing until the history holds an answer (an assistant message): a new conversation
   * whose run fails before one is not kept. Changes after that are saved as they come.
   */
  readonly onceAnswered?: boolean;
}

export class ConversationRecorder {
  #journal: ConversationJournal | undefined;
  readonly #now: (() => number) | undefined;
  /** True until the conversation has had an answer, when {@link ConversationRecorderOptions.onceAnswered}. */
  #waitingForAnswer: boolean;

  constructor(options: ConversationRecorderOptions = {}) {
    this.#journal = options.journal;
    this.#now = options.now;
    this.#waitingForAnswer = options.onceAnswered === true;
  }

  /** The file the conversation in progress is saved to, if any. */
  get path(): string | undefined {
    return this.#journal?.path;
  }

  /** The runner's `onHistoryChange`: saves the change to the conversation's journal. */
  async recordChange(
    runner: RecordedRunner,
    history: readonly Message[],
    change?: HistoryChange,
  ): Promise<void> {
    if (this.#journal === undefined) return;
    if (this.#waitingForAnswer) {
      if (!history.some((message) => message.role === 'assistant')) return;
      this.#waitingForAnswer = false;
    }
    const compaction: CompactionRecord | undefined = change?.type === 'compaction' ? change : undefined;
    await this.#journal.record(conversationStateOf(runner, history), compaction);
  }

  /**
   * Saves a copy of the conversation to `path` as a new journal (atomically); the conversation in
   * progress goes on being saved where it was. Throws a ConfigError for a path that cannot be
   * written or holds something that is not a saved conversation.
   */
  async saveCopy(runner: RecordedRunner, path: string): Promise<void> {
    const copy = await ConversationJournal.open(path, this.#now === undefined ? {} : { now: this.#now });
    await copy.record(conversationStateOf(runner));
  }

  /** Records that a tool call runs as a task (see {@link ConversationJournal.recordTask}). */
  async recordTask(task: JournaledTask): Promise<void> {
    await this.#journal?.recordTask(task);
  }

  /** From now on, changes go to `journal` (the conversation `/resume` took up). */
  switchTo(journal: ConversationJournal | undefined): void {
    this.#journal = journal;
    // A conversation taken up already has its file.
    this.#waitingForAnswer = false;
  }
}
