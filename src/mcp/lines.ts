/**
 * Line handling for a child process's output: splitting a byte stream into lines, and keeping the
 * last few lines of stderr for error reports.
 */

/**
 * Splits chunks of UTF-8 bytes into lines (`\n` or `\r\n`). Bytes are kept until a newline arrives,
 * so a multi-byte character split across chunks is decoded whole.
 */
export class LineSplitter {
  /** Chunks of the unfinished line, joined only once its newline arrives (no quadratic copying). */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private readonly maxLineBytes: number;

  /** @param maxLineBytes - a line longer than this is an error (see {@link push}). */
  constructor(maxLineBytes: number) {
    this.maxLineBytes = maxLineBytes;
  }

  /**
   * Adds a chunk and returns the lines it completes. Throws a `RangeError` when an unfinished line
   * grows beyond the limit (the buffer is then emptied).
   */
  push(chunk: Buffer): string[] {
    if (!chunk.includes(0x0a)) {
      this.pending.push(chunk);
      this.pendingBytes += chunk.length;
      if (this.pendingBytes > this.maxLineBytes) {
        this.pending = [];
        this.pendingBytes = 0;
        throw new RangeError(`a line exceeded ${this.maxLineBytes} bytes`);
      }
      return [];
    }
    const data = this.pending.length === 0 ? chunk : Buffer.concat([...this.pending, chunk]);
    const lines: string[] = [];
    let start = 0;
    for (let index = data.indexOf(0x0a, start); index !== -1; index = data.indexOf(0x0a, start)) {
      lines.push(data.toString('utf8', start, index).replace(/\r$/, ''));
      start = index + 1;
    }
    const rest = data.subarray(start);
    this.pending = rest.length === 0 ? [] : [rest];
    this.pendingBytes = rest.length;
    return lines;
  }

  /** Returns what is left after the stream ended (a last line without a newline), if anything. */
  flush(): string | undefined {
    if (this.pendingBytes === 0) return undefined;
    const rest = Buffer.concat(this.pending).toString('utf8').replace(/\r$/, '');
    this.pending = [];
    this.pendingBytes = 0;
    return rest;
  }
}

/** Keeps the last `capacity` lines, each cut to `maxLineLength` characters. */
export class TailBuffer {
  private readonly lines: string[] = [];
  private readonly capacity: number;
  private readonly maxLineLength: number;

  constructor(capacity: number, maxLineLength = 1000) {
    this.capacity = capacity;
    this.maxLineLength = maxLineLength;
  }

  add(line: string): void {
    const cut = line.length > this.maxLineLength ? `${line.slice(0, this.maxLineLength)}…` : line;
    this.lines.push(cut);
    if (this.lines.length > this.capacity) this.lines.shift();
  }

  /** How many lines are kept now. */
  get length(): number {
    return this.lines.length;
  }

  /** The kept lines, oldest first. */
  snapshot(): readonly string[] {
    return [...this.lines];
  }
}
