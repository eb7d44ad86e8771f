/**
 * A tool call's input while the model still writes it, for `ui/notifications/tool-input-partial`:
 * the arguments' JSON text so far, healed into a JSON object (the spec's "best-effort recovery of
 * incomplete JSON"), and sent no more often than a frame can use.
 */
import { Allow, parse } from 'partial-json';

/**
 * How often an app is sent its growing input, at most. A model writes tens of pieces a second;
 * ten updates a second look live, and each one heals (parses) the whole text so far.
 */
export const PARTIAL_INPUT_INTERVAL_MS = 100;

/**
 * What may be cut and still be shown: strings, numbers, arrays, objects, `null` and booleans
 * (`"New Yo` → `"New Yo"`). Not `NaN` and `Infinity`, which are not JSON.
 */
const HEALED = Allow.STR | Allow.NUM | Allow.ARR | Allow.OBJ | Allow.NULL | Allow.BOOL;

/**
 * The arguments so far as a JSON object: `{}` before the first piece, `undefined` when the text
 * cannot become an object (the model is writing something else: the complete call says what).
 */
export function healPartialArguments(text: string): Record<string, unknown> | undefined {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    // partial-json (the parser the OpenAI SDK vendors for the same job): it closes open strings,
    // arrays and objects, and drops a key that has no value yet.
    value = parse(text, HEALED);
  } catch {
    return undefined;
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** When a throttle's timer runs: injected so tests need no real time. */
export interface ThrottleClock {
  readonly now: () => number;
  /** Runs `work` after `delayMs`; the returned function cancels it. */
  readonly schedule: (work: () => void, delayMs: number) => () => void;
}

const REAL_CLOCK: ThrottleClock = {
  now: () => Date.now(),
  schedule: (work, delayMs) => {
    const timer = setTimeout(work, delayMs);
    // A pending update must not keep a finished `-p` run alive.
    timer.unref();
    return () => {
      clearTimeout(timer);
    };
  },
};

/**
 * Sends the latest of what it is given, at most once per interval: the first at once, the ones in
 * between dropped but the last of them sent when the interval has passed, so the frame always ends
 * up with the newest. Hand-written: it is a dozen lines, and it must drop, not queue, what is stale.
 */
export class LatestOnlyThrottle<Value> {
  readonly #send: (value: Value) => void;
  readonly #intervalMs: number;
  readonly #clock: ThrottleClock;
  #latest: { readonly value: Value } | undefined;
  #lastSentAt = Number.NEGATIVE_INFINITY;
  #cancelTimer: (() => void) | undefined;

  constructor(options: {
    readonly send: (value: Value) => void;
    readonly intervalMs?: number;
    readonly clock?: ThrottleClock;
  }) {
    this.#send = options.send;
    this.#intervalMs = options.intervalMs ?? PARTIAL_INPUT_INTERVAL_MS;
    this.#clock = options.clock ?? REAL_CLOCK;
  }

  push(value: Value): void {
    this.#latest = { value };
    if (this.#cancelTimer !== undefined) return;
    const wait = this.#lastSentAt + this.#intervalMs - this.#clock.now();
    if (wait <= 0) this.#flush();
    else this.#cancelTimer = this.#clock.schedule(() => this.#flush(), wait);
  }

  /** Drops what waits to be sent (the complete value is coming another way). */
  cancel(): void {
    this.#cancelTimer?.();
    this.#cancelTimer = undefined;
    this.#latest = undefined;
  }

  #flush(): void {
    this.#cancelTimer = undefined;
    const latest = this.#latest;
    if (latest === undefined) return;
    this.#latest = undefined;
    this.#lastSentAt = this.#clock.now();
    this.#send(latest.value);
  }
}
