/**
 * What the user typed, kept across runs: `$XDG_STATE_HOME/mcphost/history`, else
 * `~/.local/state/mcphost/history` (state, not config: it changes on its own and is not worth
 * backing up). One JSON string per line, oldest first, so multi-line entries survive; lines that
 * do not parse are skipped. Every save re-reads the file and appends, so two chats running at once
 * both keep their entries; the file is replaced atomically (write a temporary file, rename it) and
 * readable by the user only, since prompts can hold secrets.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import * as z from 'zod';
import { writeFileAtomic } from '../../util/atomic-file.js';
import { mcphostFolder } from '../../util/user-folders.js';

/** Entries kept; the oldest go first. */
export const MAX_HISTORY_ENTRIES = 1000;

/** Where the history lives for this environment. */
export function historyFilePath(env: Readonly<Record<string, string | undefined>>, homeDir: string): string {
  return join(mcphostFolder('state', homeDir, env), 'history');
}

const entrySchema = z.string();

/** The entries in the file, oldest first; none when it does not exist. */
export async function loadHistory(path: string): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (isMissing(error)) return [];
    throw error;
  }
  const entries: string[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const parsed = entrySchema.safeParse(JSON.parse(line));
      if (parsed.success && parsed.data.trim() !== '') entries.push(parsed.data);
    } catch {
      // A damaged line costs one entry, not the history.
    }
  }
  return entries.slice(-MAX_HISTORY_ENTRIES);
}

/** A history file that entries are added to, one save at a time. */
export class HistoryFile {
  readonly path: string;
  readonly #limit: number;
  #saving: Promise<void> = Promise.resolve();

  constructor(path: string, limit = MAX_HISTORY_ENTRIES) {
    this.path = path;
    this.#limit = limit;
  }

  /** Appends an entry (not repeating the last one). Saves are queued so they never interleave. */
  add(entry: string): Promise<void> {
    const saved = this.#saving.then(() => this.#append(entry));
    this.#saving = saved.catch(() => undefined);
    return saved;
  }

  /** Resolves once every entry added so far is saved (or failed to be). */
  async flush(): Promise<void> {
    await this.#saving;
  }

  async #append(entry: string): Promise<void> {
    const entries = await loadHistory(this.path);
    if (entries.at(-1) !== entry) entries.push(entry);
    const kept = entries.slice(-this.#limit);
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
    await writeFileAtomic(this.path, kept.map((item) => `${JSON.stringify(item)}\n`).join(''));
  }
}

function isMissing(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === 'ENOENT';
}
