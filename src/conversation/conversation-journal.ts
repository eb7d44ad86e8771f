/**
 * Saving a growing conversation by appending to its journal, and the `--session` / `--load-session`
 * / `--save-session` choices. The target is checked once, before anything runs: a file that is not
 * a session this version can read stops the program before a model or server is started.
 *
 * The journal is path-based: whoever decides where conversations live hands it a path.
 */
import { constants } from 'node:fs';
import { access, appendFile, readFile, truncate } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ConfigError } from '../core/errors.js';
import { removeStaleTemporaryFiles } from '../util/atomic-file.js';
import type { JournalEntry } from './saved-conversation-schema.js';
import {
  assertConversationWritable,
  closeOpenToolCalls,
  journalHeader,
  journalLine,
  loadSavedConversation,
  loadSavedConversationIfExists,
  saveFailure,
  serializeSavedConversation,
  writeConversationFile,
  SAVED_CONVERSATION_FORMAT_VERSION,
  type JournaledTask,
  type LoadedConversation,
} from './saved-conversation.js';
import type { AgentRun } from '../agents/child-run.js';
import type { Message } from '../core/types.js';
import { definedProperties } from '../util/defined-properties.js';

/** What is saved besides the timestamps. */
export interface ConversationState {
  readonly model: string;
  readonly systemPrompt?: string;
  readonly messages: readonly Message[];
  /** The subagent runs of the conversation so far, oldest first (each saved once, as it ends). */
  readonly agentRuns?: readonly AgentRun[];
}

/** Said with a {@link ConversationJournal.record} when the change was a compaction. */
export interface CompactionRecord {
  /** The summary's text. */
  readonly summary: string;
  /** How many messages the summary replaced. */
  readonly replacedMessages: number;
}

/** Options of {@link ConversationJournal.open}. */
export interface ConversationJournalOptions {
  /** The clock, for `createdAt` and each entry's `at`. Default `Date.now`. */
  readonly now?: () => number;
  /**
   * The conversation just loaded from this very path: the journal goes on from it (appending to a
   * version-2 file; a version-1 file is rewritten as a journal at the first save).
   */
  readonly continues?: LoadedConversation;
}

/**
 * Saves one conversation to one file, after every change, by appending what changed: a message, a
 * cut-back, a compaction, a switch of model. Each change is one write of whole lines, so a kill at
 * any moment leaves every earlier entry intact (and at most a torn last line, dropped on load).
 *
 * The first save to a file that is not already this conversation's journal writes a whole new
 * journal atomically; every later save appends.
 */
export class ConversationJournal {
  /** The file the conversation is saved to. */
  readonly path: string;
  readonly #now: () => number;
  #createdAt: string;
  /** The messages the file holds, by identity: the Runner appends, so the prefix is shared. */
  #written: Message[];
  #model: string | undefined;
  /**
   * The subagent runs the file holds, by identity (a continued conversation's loaded runs are the
   * objects a runner is given back), so that each is written once, whatever the runner was given.
   */
  readonly #runsWritten: WeakSet<AgentRun>;
  /** False until the file holds this conversation's journal (then every save appends). */
  #appending: boolean;

  private constructor(path: string, now: () => number, continues: LoadedConversation | undefined) {
    this.path = path;
    this.#now = now;
    this.#createdAt = continues?.createdAt ?? new Date(now()).toISOString();
    this.#written = [...(continues?.messages ?? [])];
    this.#model = continues?.model;
    this.#runsWritten = new WeakSet(continues?.agentRuns ?? []);
    this.#appending = continues?.format === 2;
  }

  /**
   * Checks that `path` may be written (its directory exists and is writable; the file is absent,
   * empty, or a session this version reads) and gives a journal for it. Throws a ConfigError
   * otherwise, leaving the file as it is. A torn last line of a continued journal is cut off here.
   */
  static async open(path: string, options: ConversationJournalOptions = {}): Promise<ConversationJournal> {
    const now = options.now ?? Date.now;
    // A conversation just loaded from this very path has passed the same check.
    if (options.continues === undefined) await assertConversationWritable(path);
    try {
      await access(dirname(path), constants.W_OK);
    } catch (error) {
      const reason =
        (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such directory' : 'not writable';
      throw new ConfigError(path, `cannot save a session there: ${dirname(path)} is ${reason}`, {
        cause: error,
      });
    }
    await removeStaleTemporaryFiles(path);
    const journal = new ConversationJournal(path, now, options.continues);
    const loaded = options.continues;
    if (loaded?.format === 2) {
      try {
        if (loaded.notes.length > 0) await truncate(path, loaded.wholeBytes);
        if (loaded.needsNewline) await appendFile(path, '\n');
        // What is appended now may be what an older version's reader does not know (a `task`
        // entry): the header says this version first, so such a reader says it is too old.
        if (loaded.version < SAVED_CONVERSATION_FORMAT_VERSION) await rewriteHeader(path, loaded);
      } catch (error) {
        throw new ConfigError(path, `cannot save the session: ${saveFailure(error, path)}`, { cause: error });
      }
    }
    return journal;
  }

  /**
   * Saves the conversation as it is now: appends what changed since the last save. Pass
   * `compaction` when the change was one. Throws a ConfigError when the file cannot be written.
   */
  async record(state: ConversationState, compaction?: CompactionRecord): Promise<void> {
    const at = new Date(this.#now()).toISOString();
    if (!this.#appending) {
      await writeConversationFile(
        this.path,
        serializeSavedConversation({
          model: state.model,
          ...definedProperties({ systemPrompt: state.systemPrompt }),
          createdAt: this.#createdAt,
          updatedAt: at,
          messages: state.messages,
          ...definedProperties({ agentRuns: state.agentRuns }),
        }),
      );
      this.#appending = true;
      for (const run of state.agentRuns ?? []) this.#runsWritten.add(run);
      this.#written = [...state.messages];
      this.#model = state.model;
      return;
    }
    const entries = this.#changes(state, compaction, at);
    if (entries.length === 0) return;
    try {
      await appendFile(this.path, entries.map(journalLine).join(''));
    } catch (error) {
      throw new ConfigError(this.path, `cannot save the session: ${saveFailure(error, this.path)}`, {
        cause: error,
      });
    }
  }

  /**
   * Records that a tool call of the last step runs as a task (its id on its server), so that a
   * later run can follow it if this one ends first. Written only once the journal holds the call.
   */
  async recordTask(task: JournaledTask): Promise<void> {
    if (!this.#appending) return;
    const at = new Date(this.#now()).toISOString();
    try {
      await appendFile(this.path, journalLine({ type: 'task', at, ...task }));
    } catch (error) {
      throw new ConfigError(this.path, `cannot save the session: ${saveFailure(error, this.path)}`, {
        cause: error,
      });
    }
  }

  /** The entries that take the file's history to `state`, and the bookkeeping that follows. */
  #changes(state: ConversationState, compaction: CompactionRecord | undefined, at: string): JournalEntry[] {
    const entries: JournalEntry[] = [];
    if (state.model !== this.#model) {
      entries.push({ type: 'model', at, model: state.model });
      this.#model = state.model;
    }
    // A child's run ends before the parent's step that called it: its entry comes first.
    for (const run of state.agentRuns ?? []) {
      if (this.#runsWritten.has(run)) continue;
      entries.push({ type: 'agent-run', at, run });
      this.#runsWritten.add(run);
    }
    const messages = state.messages;
    if (compaction !== undefined) {
      entries.push({ type: 'compaction', at, ...compaction, messages: [...messages] });
      this.#written = [...messages];
      return entries;
    }
    const kept = sharedPrefix(this.#written, messages);
    if (kept < this.#written.length) {
      entries.push({ type: 'truncate', at, length: kept });
      this.#written.length = kept;
    }
    for (const message of messages.slice(kept)) {
      entries.push({ type: 'message', at, message });
      this.#written.push(message);
    }
    return entries;
  }
}

/** Replaces a journal's first line with this version's header (the file is replaced atomically). */
async function rewriteHeader(path: string, loaded: LoadedConversation): Promise<void> {
  const text = await readFile(path, 'utf8');
  const firstLineEnd = text.indexOf('\n');
  const entries = firstLineEnd === -1 ? '' : text.slice(firstLineEnd + 1);
  await writeConversationFile(path, journalHeader(loaded) + entries);
}

/** How many leading messages two histories share (by identity: the Runner never edits a message). */
function sharedPrefix(written: readonly Message[], messages: readonly Message[]): number {
  const last = written.length - 1;
  // The usual case, in constant time: the history grew by appending.
  if (messages.length >= written.length && (last < 0 || messages[last] === written[last])) {
    return written.length;
  }
  const limit = Math.min(written.length, messages.length);
  let index = 0;
  while (index < limit && messages[index] === written[index]) index++;
  return index;
}

/** The session flags, with paths already resolved. At most one of `both` and the others is set. */
export interface ConversationFileChoice {
  /** `--load-session FILE`: continue this conversation (the file must exist). */
  readonly load?: string;
  /** `--save-session FILE`: save the conversation here after every change. */
  readonly save?: string;
  /** `-s/--session FILE`: continue it if it exists, and save to it. */
  readonly both?: string;
}

/** What {@link openConversationFiles} found. */
export interface OpenedConversation {
  /** The conversation to continue, if one was loaded (open tool calls already answered). */
  readonly loaded?: LoadedConversation;
  /** Where to save, if anywhere. */
  readonly journal?: ConversationJournal;
}

/**
 * Loads and checks what the session flags name, before anything runs. Throws a ConfigError for a
 * missing `--load-session` file, and for a corrupt or newer-version file under any flag.
 */
export async function openConversationFiles(
  choice: ConversationFileChoice,
  options: { readonly now?: () => number } = {},
): Promise<OpenedConversation> {
  if (choice.both !== undefined && (choice.load !== undefined || choice.save !== undefined)) {
    throw new ConfigError('--session', 'use either --session, or --load-session and/or --save-session');
  }
  const loadPath = choice.both ?? choice.load;
  const savePath = choice.both ?? choice.save;
  const found =
    loadPath === undefined
      ? undefined
      : choice.both === undefined
        ? await loadSavedConversation(loadPath)
        : await loadSavedConversationIfExists(loadPath);
  // A conversation saved back to the file it came from goes on in it; a copy is a new journal.
  const sameFile = savePath !== undefined && savePath === loadPath;
  const journal =
    savePath === undefined
      ? undefined
      : await ConversationJournal.open(savePath, {
          ...definedProperties({ now: options.now }),
          ...(sameFile && found !== undefined ? { continues: found } : {}),
        });
  const loaded =
    found === undefined
      ? undefined
      : { ...found, messages: closeOpenToolCalls(found.messages, found.openTasks) };
  return definedProperties({ loaded, journal });
}
