import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  formatBytes,
  formatDuration,
  progressBarLine,
  progressDrawer,
} from '../../src/cli/output/download-progress.js';
import type { DownloadProgress } from '../../providers/local/model-files.js';

const at = (downloadedBytes: number, extra: Partial<DownloadProgress> = {}): DownloadProgress => ({
  model: 'qwen3-1.7b',
  fileName: 'model.gguf',
  downloadedBytes,
  totalBytes: 1_000_000_000,
  ...extra,
});

describe('download progress', () => {
  it('formats sizes and durations', () => {
    expect(formatBytes(999)).toBe('999 B');
    expect(formatBytes(1_536)).toBe('1.5 KB');
    expect(formatBytes(1_107_409_248)).toBe('1.1 GB');
    expect(formatDuration(75)).toBe('1:15');
    expect(formatDuration(3725)).toBe('1:02:05');
  });

  it('draws a bar with size, speed and time left, cut to the terminal width', () => {
    const line = progressBarLine(at(450_000_000, { bytesPerSecond: 12_300_000, secondsLeft: 45 }), 100);
    expect(line).toBe('qwen3-1.7b [###########-------------]  45%  450.0 MB / 1.0 GB  12.3 MB/s  0:45 left');
    expect(progressBarLine(at(450_000_000), 30)).toHaveLength(29);
    const { totalBytes: _unknownSize, ...sizeUnknown } = at(5);
    expect(progressBarLine(sizeUnknown, 100)).toBe('qwen3-1.7b [------------------------] 5 B');
  });

  it('writes a line per tenth when stderr is not a terminal', () => {
    const stream = new PassThrough();
    let written = '';
    stream.on('data', (chunk: Buffer) => (written += chunk.toString()));
    const drawer = progressDrawer(stream);
    for (let step = 0; step <= 100; step += 1) drawer.onProgress(at(step * 10_000_000));
    drawer.finish();
    const lines = written.trimEnd().split('\n');
    expect(lines[0]).toBe('mcphost: downloading qwen3-1.7b (model.gguf)');
    expect(lines.slice(1)).toHaveLength(11);
    expect(lines.at(-1)).toBe('mcphost: qwen3-1.7b: 100%  1.0 GB / 1.0 GB');
    expect(written).not.toContain('\r');
  });

  it('redraws one line in a terminal and ends it with a newline', () => {
    const stream = Object.assign(new PassThrough(), { isTTY: true, columns: 80 });
    let written = '';
    stream.on('data', (chunk: Buffer) => (written += chunk.toString()));
    const drawer = progressDrawer(stream);
    drawer.onProgress(at(0));
    drawer.onProgress(at(0));
    drawer.onProgress(at(1_000_000_000));
    drawer.finish();
    expect(written.split('\r\u001b[2K')).toHaveLength(3);
    expect(written.endsWith('100%  1.0 GB / 1.0 GB\n')).toBe(true);
  });
});
