/**
 * Runs work holding a lock on a file across processes (proper-lockfile's atomic `mkdir` of
 * `<file>.lock`), for the stores several mcphost processes of one user share: the sign-ins and
 * the tool pins. The work is a short read-modify-write.
 */

/** How long to wait for another process's lock, at most (~50 tries, 10–200 ms apart). */
const LOCK_RETRIES = { retries: 50, minTimeout: 10, maxTimeout: 200 };
/** A lock older than this is a crashed writer's, and is taken over. */
const LOCK_STALE_MS = 10_000;

export async function withFileLock<T>(file: string, work: () => Promise<T>): Promise<T> {
  // Loaded on the first lock only: a run that never writes a shared store never needs it.
  const { lock } = await import('proper-lockfile');
  const release = await lock(file, {
    // The file may not exist yet: lock its name, not its resolved path.
    realpath: false,
    retries: LOCK_RETRIES,
    stale: LOCK_STALE_MS,
  });
  try {
    return await work();
  } finally {
    await release();
  }
}
