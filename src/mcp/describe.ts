/** Short human descriptions of failures, for log lines and for error results the model reads. */
import type { ProcessExit } from './stdio-transport.js';

/** An error's message, with its cause's when there is one (`fetch failed (connect ECONNREFUSED …)`). */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause =
    error.cause instanceof Error && !error.message.includes(error.cause.message)
      ? ` (${error.cause.message})`
      : '';
  return `${error.message}${cause}`;
}

/** `exited with code 1`, `was killed by SIGKILL`. */
export function describeExit(exit: ProcessExit): string {
  return exit.signal === null ? `exited with code ${exit.code ?? '?'}` : `was killed by ${exit.signal}`;
}
