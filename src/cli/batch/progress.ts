/**
 * What `mcphost batch` shows on stderr while it runs: in a terminal, one bar redrawn in place (done,
 * failed, running, rate, time left, tokens); otherwise a progress line every twentieth of the jobs,
 * so a log gets some twenty lines whatever the batch's size. Failures always get a line of their own.
 */
import type { Writable } from 'node:stream';
import type { BatchResult } from '../../batch/result.js';
import { stripControlCharacters } from '../../safety/output-limits.js';

export interface BatchProgressOptions {
  readonly stream: Writable;
  /** Draw a bar (a terminal) rather than lines. */
  readonly terminal: boolean;
  /** Jobs to run (those already in the results file not counted). */
  readonly total: number;
  readonly now?: () => number;
  /** Terminal width, for the bar. */
  readonly columns?: number;
}

/** Counts of a batch so far. */
export interface BatchCounts {
  readonly done: number;
  readonly failed: number;
  readonly running: number;
  readonly tokens: number;
}

/** Redraws of the bar at most this often (a thousand fast jobs would otherwise flood the terminal). */
const REDRAW_MS = 100;
const BAR_WIDTH = 24;

export class BatchProgress {
  readonly #options: BatchProgressOptions;
  readonly #now: () => number;
  readonly #started: number;
  #done = 0;
  #failed = 0;
  #running = 0;
  #tokens = 0;
  #lastDraw = Number.NEGATIVE_INFINITY;
  #barShown = false;
  /** A redraw put off by the rate limit, so the bar never stays behind the counts. */
  #pendingDraw: NodeJS.Timeout | undefined;
  #ended = false;

  constructor(options: BatchProgressOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#started = this.#now();
  }

  get counts(): BatchCounts {
    return { done: this.#done, failed: this.#failed, running: this.#running, tokens: this.#tokens };
  }

  started(): void {
    this.#running += 1;
    this.#drawBar(false);
  }

  /** A job stopped running (its result, if any, follows through {@link finished}). */
  ended(): void {
    this.#running = Math.max(0, this.#running - 1);
    this.#drawBar(false);
  }

  finished(result: BatchResult): void {
    this.#done += 1;
    this.#tokens += result.usage.inputTokens + result.usage.outputTokens;
    if (result.status === 'failed') {
      this.#failed += 1;
      const where =
        result.id === undefined
          ? `line ${result.line ?? '?'}`
          : `line ${result.line ?? '?'} (id ${result.id})`;
      this.note(
        `${where} failed after ${result.attempts} attempt${result.attempts === 1 ? '' : 's'}: ${result.error?.kind ?? 'Error'}: ${result.error?.message ?? ''}`,
      );
    }
    if (this.#options.terminal) {
      this.#drawBar(this.#done === this.#options.total);
      return;
    }
    const every = Math.max(1, Math.ceil(this.#options.total / 20));
    if (this.#done % every === 0 || this.#done === this.#options.total) {
      this.#options.stream.write(`mcphost batch: ${this.#describe()}\n`);
    }
  }

  /** A line of its own, above the bar. */
  note(message: string): void {
    this.#clearBar();
    this.#options.stream.write(`mcphost batch: ${stripControlCharacters(message)}\n`);
    this.#drawBar(true);
  }

  /** Takes the bar off the screen (before the summary). */
  end(): void {
    clearTimeout(this.#pendingDraw);
    this.#pendingDraw = undefined;
    this.#ended = true;
    this.#clearBar();
  }

  #describe(): string {
    const total = this.#options.total;
    const elapsedSeconds = (this.#now() - this.#started) / 1000;
    const rate = elapsedSeconds > 0 ? this.#done / elapsedSeconds : 0;
    const left = rate > 0 ? Math.ceil((total - this.#done) / rate) : undefined;
    return [
      `${this.#done}/${total} done`,
      `${this.#failed} failed`,
      `${this.#running} running`,
      `${rate.toFixed(1)} jobs/s`,
      left === undefined ? 'time left unknown' : `about ${formatSeconds(left)} left`,
      `${formatCount(this.#tokens)} tokens`,
    ].join(', ');
  }

  #drawBar(force: boolean): void {
    if (!this.#options.terminal || this.#ended) return;
    const now = this.#now();
    if (!force && now - this.#lastDraw < REDRAW_MS) {
      this.#pendingDraw ??= setTimeout(() => {
        this.#pendingDraw = undefined;
        this.#drawBar(true);
      }, REDRAW_MS).unref();
      return;
    }
    clearTimeout(this.#pendingDraw);
    this.#pendingDraw = undefined;
    this.#lastDraw = now;
    const total = Math.max(1, this.#options.total);
    const filled = Math.round((BAR_WIDTH * this.#done) / total);
    const line = `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${this.#describe()}`;
    const columns = this.#options.columns ?? 100;
    this.#options.stream.write(`\r\x1b[2K${line.slice(0, Math.max(10, columns - 1))}`);
    this.#barShown = true;
  }

  #clearBar(): void {
    if (!this.#barShown) return;
    this.#options.stream.write('\r\x1b[2K');
    this.#barShown = false;
  }
}

function formatSeconds(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

function formatCount(count: number): string {
  return count < 10_000 ? String(count) : `${(count / 1000).toFixed(1)}k`;
}
