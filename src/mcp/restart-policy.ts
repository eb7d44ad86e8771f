/**
 * When a crashed server is started again, and when we stop trying. A server that crashes once is
 * restarted at its next use; one that keeps failing is given time, then given up, so that a broken
 * server cannot slow every call down forever.
 */

/** Crashes or failed restarts in a row after which a server is given up. */
export const MAX_CONSECUTIVE_FAILURES = 3;
/** Wait before the second restart attempt; doubles with each failure. */
export const RESTART_BACKOFF_BASE_MS = 1_000;
/** The longest wait between restart attempts. */
export const RESTART_BACKOFF_MAX_MS = 30_000;

/** No wait before the first restart; then 1 s, 2 s, 4 s… capped. */
export function restartDelay(failures: number): number {
  if (failures <= 1) return 0;
  return Math.min(RESTART_BACKOFF_BASE_MS * 2 ** (failures - 2), RESTART_BACKOFF_MAX_MS);
}
