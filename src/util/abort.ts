/** Waiting on something that an AbortSignal may cut short. */

/** What {@link untilAborted} gives when the signal won: a symbol, so no real value is taken for it. */
export const CANCELLED: unique symbol = Symbol('cancelled');

/**
 * `promise`'s value, or {@link CANCELLED} as soon as `signal` aborts — even when whatever the
 * promise waits on ignores the signal. The abort listener is removed afterwards, since one signal
 * may live for a whole run and see many waits.
 */
export async function untilAborted<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
): Promise<T | typeof CANCELLED> {
  if (signal === undefined) return promise;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<typeof CANCELLED>((resolve) => {
    onAbort = () => resolve(CANCELLED);
    if (signal.aborted) resolve(CANCELLED);
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([promise, aborted]);
  } finally {
    if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
  }
}
