/**
 * The results file of `mcphost batch`: its journal. One JSON line per finished job, appended and
 * flushed to disk as the job ends, so a crash or Ctrl-C loses at most the jobs in flight. Appended
 * rather than rewritten atomically (src/util/atomic-file.ts) on purpose: a rewrite per job would
 * cost the whole file each time, and an append of one line is all-or-torn; a torn last line is
 * skipped when the file is read and cut off from the next line by a newline.
 */
import { open, readFile, type FileHandle } from 'node:fs/promises';
import { ConfigError } from '../../core/errors.js';
import { readResultKeys, type BatchJobStatus, type BatchResult } from '../../batch/result.js';
import { ResultsLock, type ResultsLockOptions } from './results-lock.js';

export class ResultsFile {
  readonly #handle: FileHandle;
  readonly #lock: ResultsLock;
  /** Results handed over and not yet written, with their callers' promises. */
  readonly #waiting: Array<{ line: string; resolve: () => void; reject: (error: unknown) => void }> = [];
  /** The write and flush under way, while there is one. */
  #flushing: Promise<void> | undefined;

  private constructor(handle: FileHandle, lock: ResultsLock) {
    this.#handle = handle;
    this.#lock = lock;
  }

  /**
   * Opens (or creates) the file for appending and reads the jobs it already holds. A last line
   * without its newline (a write torn by a crash) gets one, so the next result starts a line.
   * The file is locked first, until {@link close}: a second run on it fails at once (results-lock.ts).
   */
  static async open(
    path: string,
    options: ResultsLockOptions = {},
  ): Promise<{ file: ResultsFile; done: Map<string, BatchJobStatus> }> {
    const label = `--out ${path}`;
    const lock = await ResultsLock.take(path, label, options);
    try {
      let text = '';
      try {
        text = await readFile(path, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
          throw new ConfigError(label, `cannot read it (${(error as Error).message})`);
        }
      }
      const foreign = firstForeignLine(text);
      if (foreign !== undefined) {
        throw new ConfigError(
          label,
          `line ${foreign.line} is not a result of mcphost batch (${JSON.stringify(foreign.start)}); is it the right file? Results are not appended to another kind of file`,
        );
      }
      let handle: FileHandle;
      try {
        handle = await open(path, 'a');
      } catch (error) {
        throw new ConfigError(label, `cannot write it (${(error as Error).message})`);
      }
      if (text !== '' && !text.endsWith('\n')) await handle.write('\n');
      return { file: new ResultsFile(handle, lock), done: readResultKeys(text) };
    } catch (error) {
      await lock.release();
      throw error;
    }
  }

  /**
   * Appends one result as one line, and resolves once it is on disk. Results handed over while a
   * write is on its way go to disk together in the next write and `fdatasync` (a group commit):
   * with many jobs ending at once, one flush per job was the file's whole cost, and each result
   * still resolves only after its own line is flushed.
   */
  append(result: BatchResult): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ line: `${JSON.stringify(result)}\n`, resolve, reject });
      this.#flushing ??= this.#flush();
    });
  }

  async #flush(): Promise<void> {
    while (this.#waiting.length > 0) {
      const group = this.#waiting.splice(0);
      try {
        // One write call for the lines: with O_APPEND they land at the end in one piece, or a
        // crash tears the last one only (skipped when read; the lines before it are whole).
        await this.#handle.write(group.map((waiting) => waiting.line).join(''));
        await this.#handle.datasync();
        for (const waiting of group) waiting.resolve();
      } catch (error) {
        for (const waiting of group) waiting.reject(error);
      }
    }
    this.#flushing = undefined;
  }

  /** Resolves once every result handed to {@link append} so far is on disk (or failed). */
  async settled(): Promise<void> {
    while (this.#flushing !== undefined) await this.#flushing;
  }

  async close(): Promise<void> {
    try {
      await this.settled();
      await this.#handle.close();
    } finally {
      await this.#lock.release();
    }
  }
}

/** How every line mcphost batch writes begins (`key` is the result's first property). */
const RESULT_LINE_START = '{"key":';

/**
 * The first line that mcphost batch did not write, if any: a file given to `--out` by mistake (the
 * jobs of another batch, some other data) would otherwise get results appended to it. A torn line
 * still begins like a result, so a crash's leftovers pass.
 */
function firstForeignLine(text: string): { line: number; start: string } | undefined {
  const lines = text.split('\n');
  for (const [index, line] of lines.entries()) {
    // A write torn very early is shorter than the prefix itself (and, once a later run has gone
    // on after it, no longer the last line).
    if (line.trim() === '' || line.startsWith(RESULT_LINE_START) || RESULT_LINE_START.startsWith(line))
      continue;
    return { line: index + 1, start: line.length > 40 ? `${line.slice(0, 40)}…` : line };
  }
  return undefined;
}
