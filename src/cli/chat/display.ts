/**
 * What the terminal can show. Two independent questions:
 * - `terminal`: can we edit lines (readline's terminal mode)? Both stdin and stdout must be TTYs.
 * - `rich`: colors, a spinner, and answers rewritten as rendered markdown? Only on a TTY stdout,
 *   without NO_COLOR (https://no-color.org: set and not empty), --no-color or TERM=dumb. Otherwise
 *   the chat writes plain text with no escape sequence at all, fit for a file or a pipe.
 */
import type { Readable, Writable } from 'node:stream';
import { createStyle, type Style } from './style.js';

export interface Display {
  readonly terminal: boolean;
  readonly rich: boolean;
  /** An animated spinner: rich, and not on a CI machine (whose logs would get every frame). */
  readonly animated: boolean;
  readonly style: Style;
  /** The terminal's width now (80 when unknown). */
  columns(): number;
  /** The terminal's height now (24 when unknown). */
  rows(): number;
}

export interface DisplayOptions {
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** False with --no-color. */
  readonly color: boolean;
}

interface MaybeTty {
  readonly isTTY?: boolean;
  readonly columns?: number;
  readonly rows?: number;
}

export function detectDisplay(options: DisplayOptions): Display {
  const stdout = options.stdout as Writable & MaybeTty;
  const stdin = options.stdin as Readable & MaybeTty;
  const outputIsTty = stdout.isTTY === true;
  const noColor = (options.env.NO_COLOR ?? '') !== '';
  const dumb = options.env.TERM === 'dumb';
  const rich = outputIsTty && options.color && !noColor && !dumb;
  return {
    terminal: outputIsTty && stdin.isTTY === true,
    rich,
    animated: rich && options.env.CI === undefined,
    style: createStyle(rich),
    columns: () => positive(stdout.columns, 80),
    rows: () => positive(stdout.rows, 24),
  };
}

function positive(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : fallback;
}
