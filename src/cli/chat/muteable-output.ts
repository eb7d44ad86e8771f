/**
 * The stream readline writes to: the terminal, or nowhere while muted. While a turn runs, readline
 * still reads keys (Ctrl-C must reach us, and type-ahead is kept for the next prompt) but must not
 * echo them into the answer streaming on the same screen.
 */
import { Writable } from 'node:stream';

interface TerminalLike {
  readonly columns?: number;
  readonly rows?: number;
  readonly isTTY?: boolean;
}

export class MuteableOutput extends Writable {
  muted = false;
  readonly #target: Writable;
  readonly #onResize = (): void => {
    this.emit('resize');
  };

  constructor(target: Writable) {
    // Strings pass through as they are; writes stay synchronous, so they keep their order
    // with what the chat writes to the terminal directly.
    super({ decodeStrings: false });
    this.#target = target;
    target.on('resize', this.#onResize);
  }

  /** readline lays out long lines by the terminal's width. */
  get columns(): number | undefined {
    return (this.#target as Writable & TerminalLike).columns;
  }

  get rows(): number | undefined {
    return (this.#target as Writable & TerminalLike).rows;
  }

  get isTTY(): boolean {
    return (this.#target as Writable & TerminalLike).isTTY === true;
  }

  override _write(chunk: unknown, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (!this.muted) this.#target.write(chunk);
    callback();
  }

  /** Stops following the terminal's resizes. */
  detach(): void {
    this.#target.off('resize', this.#onResize);
  }
}
