/**
 * The lock on a results file for one `mcphost batch` run: two runs appending to one file would
 * both run the jobs neither had finished, so the second one stops at once, naming the file and
 * the run that holds it.
 *
 * The lock is proper-lockfile's (an atomic `mkdir` of `FILE.lock`, kept fresh while held, the
 * same as for the tool pins and sign-in tokens). Its own staleness rule is time alone: a lock
 * not refreshed for {@link LOCK_STALE_MS}. That alone would block the next run for that long after
 * a `kill -9`, so beside the lock the run writes who it is (`FILE.lock.owner`: pid, host, start),
 * and a lock whose owner is a process of this host that no longer exists is taken over at once.
 */
import { readFile, rename, rm, rmdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import * as z from 'zod';
import { ConfigError } from '../../core/errors.js';
import { writeFileAtomic } from '../../util/atomic-file.js';

/** A lock not refreshed for this long is stale whoever holds it (a run on another host that died). */
export const LOCK_STALE_MS = 30_000;

const ownerSchema = z.object({ pid: z.number().int(), host: z.string(), since: z.string() });
type LockOwner = z.infer<typeof ownerSchema>;

export interface ResultsLockOptions {
  /** Said once when the lock could not be kept fresh (the run goes on; another may then take it). */
  readonly onWarning?: (message: string) => void;
}

export class ResultsLock {
  readonly #ownerPath: string;
  readonly #owner: LockOwner;
  readonly #release: () => Promise<void>;

  private constructor(ownerPath: string, owner: LockOwner, release: () => Promise<void>) {
    this.#ownerPath = ownerPath;
    this.#owner = owner;
    this.#release = release;
  }

  /**
   * Takes the lock of `path` (the results file, which may not exist yet), or throws a
   * `ConfigError` naming `label` (the flag and file) and the run that holds it.
   */
  static async take(path: string, label: string, options: ResultsLockOptions = {}): Promise<ResultsLock> {
    const ownerPath = `${path}.lock.owner`;
    // Loaded only by a batch run: every other command leaves it alone.
    const { lock } = await import('proper-lockfile');
    let warned = false;
    const attempt = (): Promise<() => Promise<void>> =>
      lock(path, {
        // The results file may not exist yet: lock its name, not its resolved path.
        realpath: false,
        retries: 0,
        stale: LOCK_STALE_MS,
        // The library's default throws from a timer, which would end the batch mid-run; the
        // results already written stay good, so the run goes on and says so.
        onCompromised: (error) => {
          if (warned) return;
          warned = true;
          options.onWarning?.(`${label}: lost its lock (${error.message}); another run may now use the file`);
        },
      });
    let release: () => Promise<void>;
    try {
      release = await attempt();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new ConfigError(label, 'its folder does not exist', { cause: error });
      }
      if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') {
        throw new ConfigError(label, `cannot lock it (${(error as Error).message})`, { cause: error });
      }
      const owner = await readOwner(ownerPath);
      if (owner === undefined || !isGone(owner)) {
        throw new ConfigError(
          label,
          `in use by another mcphost batch${owner === undefined ? '' : ` (${describe(owner)})`}; wait for it to end or stop it (lock ${path}.lock)`,
          { cause: error },
        );
      }
      // Its holder was killed (kill -9, a crash): nothing will release it, so it is removed here.
      // Two runs could find it at once: moving the dead owner's file away first lets one of them
      // (the one whose rename succeeds) remove the lock, so neither removes a lock the other took.
      const claim = `${ownerPath}.${process.pid}`;
      try {
        await rename(ownerPath, claim);
      } catch (error_) {
        throw new ConfigError(label, 'in use by another mcphost batch; wait for it to end or stop it', {
          cause: error_,
        });
      }
      const claimed = await readOwner(claim);
      if (claimed?.pid !== owner.pid || claimed.since !== owner.since) {
        // The other run took the lock and wrote itself in between: its file goes back.
        await rename(claim, ownerPath).catch(() => undefined);
        throw new ConfigError(label, 'in use by another mcphost batch; wait for it to end or stop it');
      }
      await rm(claim, { force: true });
      await rmdir(`${path}.lock`).catch(() => undefined);
      try {
        release = await attempt();
      } catch (again) {
        // Another run took it over first.
        throw new ConfigError(label, 'in use by another mcphost batch; wait for it to end or stop it', {
          cause: again,
        });
      }
    }
    const owner: LockOwner = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
    await writeFileAtomic(ownerPath, `${JSON.stringify(owner)}\n`).catch(() => undefined);
    return new ResultsLock(ownerPath, owner, release);
  }

  async release(): Promise<void> {
    // Only our own: a run that found this lock stale (our process stalled past the lock's update
    // interval) may have taken it over and written itself in since.
    const owner = await readOwner(this.#ownerPath);
    if (owner?.pid === this.#owner.pid && owner.since === this.#owner.since) {
      await rm(this.#ownerPath, { force: true });
    }
    await this.#release().catch(() => undefined);
  }
}

async function readOwner(ownerPath: string): Promise<LockOwner | undefined> {
  try {
    const parsed = ownerSchema.safeParse(JSON.parse(await readFile(ownerPath, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    // Not there yet (the holder is between taking the lock and writing it), or torn: unknown.
    return undefined;
  }
}

/** Whether the owner was a process of this host that has ended. Another host's process is not known. */
function isGone(owner: LockOwner): boolean {
  if (owner.host !== hostname()) return false;
  try {
    process.kill(owner.pid, 0);
    return false;
  } catch (error) {
    // EPERM: the process exists (another user's).
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

function describe(owner: LockOwner): string {
  return `pid ${owner.pid}${owner.host === hostname() ? '' : ` on ${owner.host}`}, since ${owner.since}`;
}
