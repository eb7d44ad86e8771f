/**
 * Line handling for a child process's output: splitting a byte stream into lines, and keeping the
 * last few lines of stderr for error reports.
 */

/** How many bytes of each end of an oversized line are kept, to tell which request it answered. */
const OVERSIZE_EDGE_BYTES = 512;

/** A line over the limit, dropped: its size and its two ends (the JSON-RPC `id` is at one of them). */
export interface OversizeLine {
  readonly kind: 'oversize';
  /** The whole line's length in bytes, newline excluded. */
  readonly bytes: number;
  readonly head: string;
  readonly tail: string;
}

/** A complete line, or the news that one was over the limit. */
export type SplitLine = string | OversizeLine;

/**
 * Splits chunks of UTF-8 bytes into lines (`\n` or `\r\n`). Bytes are kept until a newline arrives,
 * so a multi-byte character split across chunks is decoded whole. A line over the limit is not
 * kept: the rest of it is counted and dropped up to its newline, and it comes out as an
 * {@link OversizeLine}, so that the lines after it are read as usual.
 */
export class LineSplitter {
  /** Chunks of the unfinished line, joined only once its newline arrives (no quadratic copying). */
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** Set while the bytes of an oversized line are being dropped. */
  #dropping: { bytes: number; head: Buffer; tail: Buffer } | undefined;
  readonly #maxLineBytes: number;

  /** @param maxLineBytes - the longest line returned whole (see {@link push}). */
  constructor(maxLineBytes: number) {
    this.#maxLineBytes = maxLineBytes;
  }

  /** Adds a chunk and returns the lines it completes, in order. */
  push(chunk: Buffer): SplitLine[] {
    const lines: SplitLine[] = [];
    let rest = chunk;
    while (rest.length > 0) {
      const newline = rest.indexOf(0x0a);
      const part = newline === -1 ? rest : rest.subarray(0, newline);
      if (this.#dropping !== undefined) {
        this.#drop(part);
      } else if (this.#pendingBytes + part.length > this.#maxLineBytes) {
        this.#drop(Buffer.concat([...this.#pending, part]));
        this.#pending = [];
        this.#pendingBytes = 0;
      } else if (newline === -1) {
        this.#pending.push(part);
        this.#pendingBytes += part.length;
      } else {
        const data = this.#pending.length === 0 ? part : Buffer.concat([...this.#pending, part]);
        this.#pending = [];
        this.#pendingBytes = 0;
        lines.push(data.toString('utf8').replace(/\r$/, ''));
      }
      if (newline === -1) break;
      if (this.#dropping !== undefined) {
        const { bytes, head, tail } = this.#dropping;
        this.#dropping = undefined;
        lines.push({ kind: 'oversize', bytes, head: head.toString('utf8'), tail: tail.toString('utf8') });
      }
      rest = rest.subarray(newline + 1);
    }
    return lines;
  }

  /** Returns what is left after the stream ended (a last line without a newline), if anything. */
  flush(): string | undefined {
    this.#dropping = undefined;
    if (this.#pendingBytes === 0) return undefined;
    const rest = Buffer.concat(this.#pending).toString('utf8').replace(/\r$/, '');
    this.#pending = [];
    this.#pendingBytes = 0;
    return rest;
  }

  #drop(part: Buffer): void {
    const dropping = (this.#dropping ??= { bytes: 0, head: Buffer.alloc(0), tail: Buffer.alloc(0) });
    dropping.bytes += part.length;
    if (dropping.head.length < OVERSIZE_EDGE_BYTES)
      dropping.head = Buffer.concat([
        dropping.head,
        part.subarray(0, OVERSIZE_EDGE_BYTES - dropping.head.length),
      ]);
    const edge = part.subarray(Math.max(0, part.length - OVERSIZE_EDGE_BYTES));
    dropping.tail = Buffer.concat([dropping.tail, edge]).subarray(-OVERSIZE_EDGE_BYTES);
  }
}

/** Keeps the last `capacity` lines, each cut to `maxLineLength` characters. */
export class TailBuffer {
  readonly #lines: string[] = [];
  readonly #capacity: number;
  readonly #maxLineLength: number;

  constructor(capacity: number, maxLineLength = 1000) {
    this.#capacity = capacity;
    this.#maxLineLength = maxLineLength;
  }

  add(line: string): void {
    const cut = line.length > this.#maxLineLength ? `${copyOf(line.slice(0, this.#maxLineLength))}…` : line;
    this.#lines.push(cut);
    if (this.#lines.length > this.#capacity) this.#lines.shift();
  }

  /** How many lines are kept now. */
  get length(): number {
    return this.#lines.length;
  }

  /** The kept lines, oldest first. */
  snapshot(): readonly string[] {
    return [...this.#lines];
  }
}

/**
 * A string that holds its own characters. V8 makes a slice of a long string a view into it, so a
 * kept first 1,000 characters of a 10 MB stderr line kept all 10 MB (25 lines kept per server).
 * JSON keeps lone surrogates as they were, where a round trip through UTF-8 bytes would not.
 */
function copyOf(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}
