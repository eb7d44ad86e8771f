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

  /** Appends one result as one line, and waits until it is on disk. */
  async append(result: BatchResult): Promise<void> {
    // One write call for the whole line: with O_APPEND it lands at the end in one piece.
    await this.#handle.write(`${JSON.stringify(result)}\n`);
    await this.#handle.datasync();
  }

  async close(): Promise<void> {
    try {
      await this.#handle.close();
    } finally {
      await this.#lock.release();
    }
  }
}
