/**
 * Saving a conversation after every change, and the `--session` / `--load-session` /
 * `--save-session` choices. The target is checked once, before anything runs: a file that is not
 * a session this version can read stops the program before a model or server is started.
 */
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ConfigError } from './errors.js';
import { removeStaleTemporaryFiles } from './atomic-file.js';
import {
  assertSessionWritable,
  closeOpenToolCalls,
  loadSession,
  loadSessionIfExists,
  writeSessionFile,
  type Session,
} from './session.js';
import type { Message } from './types.js';

/** What is saved besides the timestamps. */
export interface SessionState {
  readonly model: string;
  readonly systemPrompt?: string;
  readonly messages: readonly Message[];
}

/** Options of {@link SessionRecorder.open}. */
export interface SessionRecorderOptions {
  /** When the conversation began (a continued session keeps its own). Default: now. */
  readonly createdAt?: string;
  /** The clock, for `createdAt` / `updatedAt`. */
  readonly now?: () => number;
  /** True when the session was just loaded from `path`: it is known to be a session we may replace. */
  readonly loadedFromPath?: boolean;
}

/** Saves one conversation to one file, again after every change. Writes are atomic. */
export class SessionRecorder {
  /** The file the session is saved to. */
  readonly path: string;
  readonly #createdAt: string;
  readonly #now: () => number;

  private constructor(path: string, createdAt: string, now: () => number) {
    this.path = path;
    this.#createdAt = createdAt;
    this.#now = now;
  }

  /**
   * Checks that `path` may be written (its directory exists and is writable; the file is absent,
   * empty, or a session this version reads) and gives a recorder for it. Throws a ConfigError
   * otherwise, leaving the file as it is.
   */
  static async open(path: string, options: SessionRecorderOptions = {}): Promise<SessionRecorder> {
    const now = options.now ?? Date.now;
    // A session just loaded from this very path has passed the same check.
    if (options.loadedFromPath !== true) await assertSessionWritable(path);
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
    return new SessionRecorder(path, options.createdAt ?? new Date(now()).toISOString(), now);
  }

  /** Saves the conversation as it is now. Throws a ConfigError when the file cannot be written. */
  async record(state: SessionState): Promise<void> {
    const session: Session = {
      model: state.model,
      ...(state.systemPrompt === undefined ? {} : { systemPrompt: state.systemPrompt }),
      createdAt: this.#createdAt,
      updatedAt: new Date(this.#now()).toISOString(),
      messages: state.messages,
    };
    await writeSessionFile(this.path, session);
  }
}

/** The session flags, with paths already resolved. At most one of `both` and the others is set. */
export interface SessionChoice {
  /** `--load-session FILE`: continue this conversation (the file must exist). */
  readonly load?: string;
  /** `--save-session FILE`: save the conversation here after every change. */
  readonly save?: string;
  /** `-s/--session FILE`: continue it if it exists, and save to it. */
  readonly both?: string;
}

/** What {@link openSession} found. */
export interface OpenedSession {
  /** The conversation to continue, if one was loaded (open tool calls already answered). */
  readonly loaded?: Session;
  /** Where to save, if anywhere. */
  readonly recorder?: SessionRecorder;
}

/**
 * Loads and checks what the session flags name, before anything runs. Throws a ConfigError for a
 * missing `--load-session` file, and for a corrupt or newer-version file under any flag.
 */
export async function openSession(
  choice: SessionChoice,
  options: { readonly now?: () => number } = {},
): Promise<OpenedSession> {
  if (choice.both !== undefined && (choice.load !== undefined || choice.save !== undefined)) {
    throw new ConfigError('--session', 'use either --session, or --load-session and/or --save-session');
  }
  const loadPath = choice.both ?? choice.load;
  const savePath = choice.both ?? choice.save;
  const found =
    loadPath === undefined
      ? undefined
      : choice.both === undefined
        ? await loadSession(loadPath)
        : await loadSessionIfExists(loadPath);
  const loaded = found === undefined ? undefined : { ...found, messages: closeOpenToolCalls(found.messages) };
  // A conversation saved back to the file it came from keeps its start time; a copy is new.
  const sameFile = savePath !== undefined && savePath === loadPath;
  const recorder =
    savePath === undefined
      ? undefined
      : await SessionRecorder.open(savePath, {
          ...(options.now === undefined ? {} : { now: options.now }),
          ...(sameFile && loaded !== undefined ? { createdAt: loaded.createdAt, loadedFromPath: true } : {}),
        });
  return {
    ...(loaded === undefined ? {} : { loaded }),
    ...(recorder === undefined ? {} : { recorder }),
  };
}
