/**
 * Drawing a model download's progress on stderr: in a terminal one line redrawn in place (a bar,
 * the size, the speed and the time left); otherwise a plain line at each tenth, so that a log or a
 * script's stderr gets a few lines, never a stream of carriage returns. Never asks anything.
 */
import type { Writable } from 'node:stream';
import type { DownloadProgress } from '../../../providers/local/model-files.js';

const BAR_WIDTH = 24;
const CLEAR_LINE = '\r\u001b[2K';

/** 1536 → `1.5 KB`; decimal units, as download sizes are given on Hugging Face. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${units[unit] ?? ''}`;
}

/** 75 → `1:15`, 3725 → `1:02:05`. */
export function formatDuration(seconds: number): string {
  const whole = Math.max(0, Math.round(seconds));
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const rest = String(whole % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${rest}` : `${minutes}:${rest}`;
}

function fraction(progress: DownloadProgress): number | undefined {
  const total = progress.totalBytes;
  return total === undefined || total === 0 ? undefined : Math.min(1, progress.downloadedBytes / total);
}

/** The figures after the bar: `45%  512.0 MB / 1.1 GB  12.3 MB/s  0:45 left`. */
export function progressFigures(progress: DownloadProgress): string {
  const share = fraction(progress);
  const size =
    progress.totalBytes === undefined
      ? formatBytes(progress.downloadedBytes)
      : `${formatBytes(progress.downloadedBytes)} / ${formatBytes(progress.totalBytes)}`;
  return [
    share === undefined ? undefined : `${String(Math.floor(share * 100)).padStart(3)}%`,
    size,
    progress.bytesPerSecond === undefined ? undefined : `${formatBytes(progress.bytesPerSecond)}/s`,
    progress.secondsLeft === undefined || share === 1
      ? undefined
      : `${formatDuration(progress.secondsLeft)} left`,
  ]
    .filter((part) => part !== undefined)
    .join('  ');
}

/** The terminal line: `qwen3-1.7b [#########---------]  45%  512.0 MB / 1.1 GB  12.3 MB/s  0:45 left`. */
export function progressBarLine(progress: DownloadProgress, columns: number): string {
  const share = fraction(progress) ?? 0;
  const filled = Math.round(share * BAR_WIDTH);
  const bar = `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}]`;
  const line = `${progress.model} ${bar} ${progressFigures(progress)}`;
  // One line, never wrapped: a wrapped line cannot be redrawn in place.
  return line.length < columns ? line : line.slice(0, Math.max(0, columns - 1));
}

export interface ProgressDrawer {
  readonly onProgress: (progress: DownloadProgress) => void;
  /** Ends the drawing (a newline after the bar); call once the download ends, well or not. */
  readonly finish: () => void;
}

/** A drawer for `stream`: a bar when it is a terminal, a line per tenth otherwise. */
export function progressDrawer(stream: Writable): ProgressDrawer {
  const terminal = stream as Writable & { isTTY?: boolean; columns?: number };
  let drawn = '';
  let lastTenth = -1;
  let started = false;
  if (terminal.isTTY === true) {
    return {
      onProgress: (progress) => {
        const line = progressBarLine(progress, terminal.columns ?? 80);
        if (line === drawn) return;
        drawn = line;
        stream.write(`${CLEAR_LINE}${line}`);
      },
      finish: () => {
        if (drawn !== '') stream.write('\n');
        drawn = '';
      },
    };
  }
  return {
    onProgress: (progress) => {
      if (!started) {
        started = true;
        stream.write(`mcphost: downloading ${progress.model} (${progress.fileName})\n`);
      }
      const share = fraction(progress);
      const tenth = share === undefined ? 0 : Math.floor(share * 10);
      if (tenth <= lastTenth) return;
      lastTenth = tenth;
      stream.write(`mcphost: ${progress.model}: ${progressFigures(progress)}\n`);
    },
    finish: () => undefined,
  };
}

/**
 * A drawer on stderr that ends its bar by itself once a download is whole: a run that downloads
 * its model on first use goes on to print other things, with no call of its own to end the bar.
 */
export function downloadProgressOnStderr(stream: Writable): Pick<ProgressDrawer, 'onProgress'> {
  const drawer = progressDrawer(stream);
  return {
    onProgress: (progress) => {
      drawer.onProgress(progress);
      if (progress.totalBytes !== undefined && progress.downloadedBytes >= progress.totalBytes)
        drawer.finish();
    },
  };
}
