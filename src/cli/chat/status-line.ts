/**
 * The spinner line under the conversation: what is happening (the model thinking, which tool on
 * which server, a retry) and for how long. yocto-spinner draws it; this adds the elapsed time and
 * keeps it to one line (the spinner counts rows by string length, so a wrapped line would leave
 * debris). On a display that is not animated it shows nothing: tool lines already say what runs.
 */
import type { Writable } from 'node:stream';
import yoctoSpinner, { type Spinner } from 'yocto-spinner';
import { formatSeconds } from '../activity.js';
import type { Display } from './display.js';
import { shorten } from './sanitize.js';

/** How {@link StatusIndicator.show} counts time. */
export interface ShowOptions {
  /**
   * Count from now even if the label is the same as before: a new turn's "thinking" must not go
   * on from the last turn's (which stopped at its end), nor a tool's time include its approval.
   */
  readonly restartClock?: boolean;
  /**
   * Keep counting from before although the label changed: the same activity, told in new words
   * (a running tool's progress).
   */
  readonly keepClock?: boolean;
}

export interface StatusIndicator {
  /** Shows `label` with a spinner; the clock restarts when the label changes (or when asked). */
  show(label: string, options?: ShowOptions): void;
  /** Takes the line off the screen (before anything else is written). */
  hide(): void;
}

/** Shows nothing. */
export const SILENT_STATUS: StatusIndicator = { show: () => undefined, hide: () => undefined };

const TICK_MS = 250;

export function createStatusIndicator(
  stream: Writable,
  display: Display,
  now: () => number = Date.now,
): StatusIndicator {
  // The spinner moves the cursor with a TTY stream's own methods.
  const tty = stream as Writable & { cursorTo?: unknown };
  if (!display.animated || typeof tty.cursorTo !== 'function') return SILENT_STATUS;
  // Signals are ours to handle: the spinner's own handler would exit the process.
  const spinner = yoctoSpinner({ stream, handleSignals: false, color: 'cyan' });
  let label = '';
  let since = now();
  let timer: NodeJS.Timeout | undefined;
  const text = (): string => {
    const elapsed = formatSeconds(now() - since);
    const hint = ' · Ctrl-C to stop';
    // Spinner frame and space, then label, time and hint, within the width.
    const room = Math.max(10, display.columns() - 4 - elapsed.length - 1 - hint.length);
    const { style } = display;
    return `${shorten(label, room)} ${style.dim(elapsed)}${style.dim(hint)}`;
  };
  return {
    show(next, options = {}) {
      if (options.restartClock === true || (next !== label && options.keepClock !== true)) since = now();
      label = next;
      if (spinner.isSpinning) {
        spinner.text = text();
        return;
      }
      spinner.start(text());
      timer = setInterval(() => {
        spinner.text = text();
      }, TICK_MS);
      timer.unref();
    },
    hide() {
      clearInterval(timer);
      timer = undefined;
      stop(spinner);
    },
  };
}

function stop(spinner: Spinner): void {
  if (spinner.isSpinning) spinner.stop();
}
