/** Short human descriptions of failures, for log lines and for error results the model reads. */
import type { ProcessExit } from './stdio-transport.js';

/** How deep {@link describeError} follows `cause`: SDK errors wrap a fetch error wrapping a socket one. */
const MAX_CAUSE_DEPTH = 4;

/**
 * An error's message, with its causes' that say something new
 * (`Version negotiation probe failed: fetch failed (connect ECONNREFUSED …)`).
 */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  let text = error.message;
  const extra: string[] = [];
  let cause = error.cause;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && cause instanceof Error; depth += 1) {
    if (cause.message !== '' && !text.includes(cause.message)) {
      extra.push(cause.message);
      text = `${text} ${cause.message}`;
    }
    cause = cause.cause;
  }
  return extra.length === 0 ? error.message : `${error.message} (${extra.join(': ')})`;
}

/** `exited with code 1`, `was killed by SIGKILL`. */
export function describeExit(exit: ProcessExit): string {
  return exit.signal === null ? `exited with code ${exit.code ?? '?'}` : `was killed by ${exit.signal}`;
}
