/**
 * The model's answer, shown as it streams and, on a rich display, replaced by rendered markdown.
 *
 * How it looks right in a real terminal: text is written raw the moment it arrives, so nothing
 * waits on the renderer. Each time a markdown block is complete (see markdown-blocks.ts) the raw
 * text still on screen is taken back — carriage return, cursor up over the rows it took
 * (`ESC[nA`), clear to the end of the screen (`ESC[J`) — and the block is written again rendered,
 * followed by the raw start of the next block. Rewriting one block at a time keeps every rewrite
 * small, so it stays on screen: the cursor cannot move into the scrollback, so a block taller than
 * the terminal is left raw rather than half-erased. A resize reflows what is on screen in ways we
 * cannot know, so text written before a resize is left raw too. On a plain display (a pipe, a
 * file, NO_COLOR) the raw markdown is the output: no escape sequence is ever written.
 */
import type { MarkdownRenderer } from './markdown.js';
import { completeBlocksEnd } from './markdown-blocks.js';
import { sanitizeText } from './sanitize.js';
import { rowsOf } from './text-rows.js';

export interface AnswerOutput {
  write(text: string): void;
  columns(): number;
  rows(): number;
}

/** How the rest of an answer is left when it ends. */
export type AnswerEnd = 'render' | 'raw';

const ERASE_TO_END_OF_SCREEN = '\u001B[J';

export class AnswerStream {
  readonly #output: AnswerOutput;
  readonly #rich: boolean;
  readonly #renderer: () => MarkdownRenderer | undefined;
  /** Shown raw and not yet rendered; always starts at column 0. */
  #pending = '';
  /** Characters of this answer written so far. */
  #written = 0;
  /** How many characters at the start of `#pending` were written before a resize. */
  #beforeResize = 0;
  #atLineStart = true;

  /** `renderer` returns undefined while the markdown renderer is still loading: text stays raw. */
  constructor(output: AnswerOutput, rich: boolean, renderer: () => MarkdownRenderer | undefined) {
    this.#output = output;
    this.#rich = rich;
    this.#renderer = renderer;
  }

  /** True when the last character written ended a line (or nothing was written). */
  get atLineStart(): boolean {
    return this.#atLineStart;
  }

  /** True while nothing of this answer is on screen. */
  get empty(): boolean {
    return this.#written === 0;
  }

  write(delta: string): void {
    let text = sanitizeText(delta);
    if (this.#rich) text = text.replace(/\t/g, '    ');
    // Models often open with blank lines; they would only push the answer down.
    if (this.#written === 0) text = text.replace(/^\s*\n/, '');
    if (text === '') return;
    this.#output.write(text);
    this.#written += text.length;
    this.#atLineStart = text.endsWith('\n');
    if (!this.#rich) return;
    this.#pending += text;
    const end = completeBlocksEnd(this.#pending);
    if (end > 0) this.#commit(end, false);
  }

  /** The terminal was resized: what is on screen may have been reflowed. */
  terminalResized(): void {
    this.#beforeResize = this.#pending.length;
  }

  /** Ends the answer: renders what is pending (or leaves it raw) and ends the line. */
  finish(end: AnswerEnd): void {
    if (this.#rich && end === 'render' && this.#pending.trim() !== '') {
      this.#commit(this.#pending.length, true);
    }
    this.#pending = '';
    this.#beforeResize = 0;
    if (!this.#atLineStart) this.#output.write('\n');
    this.#atLineStart = true;
    this.#written = 0;
  }

  /** Replaces the raw text of `#pending` up to `end` by its rendering, keeping the raw rest. */
  #commit(end: number, final: boolean): void {
    const block = this.#pending.slice(0, end);
    const rest = this.#pending.slice(end);
    const rewrite = this.#rewriteOf(block, rest, final);
    this.#pending = rest;
    this.#beforeResize = Math.max(0, this.#beforeResize - end);
    if (rewrite === undefined) return;
    this.#output.write(rewrite);
    this.#atLineStart = rewrite.endsWith('\n');
  }

  #rewriteOf(block: string, rest: string, final: boolean): string | undefined {
    const render = this.#renderer();
    if (render === undefined || this.#beforeResize > 0) return undefined;
    const columns = this.#output.columns();
    const rows = rowsOf(this.#pending, columns);
    if (rows > this.#output.rows()) return undefined;
    const rendered = render(block, columns);
    if (rendered.trim() === '') return undefined;
    const up = rows > 1 ? `\u001B[${rows - 1}A` : '';
    return `\r${up}${ERASE_TO_END_OF_SCREEN}${rendered}\n${final ? '' : `\n${rest}`}`;
  }
}
