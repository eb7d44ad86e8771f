/**
 * Replacing a file atomically: readers (and a crash) see the old content or the new, never a torn
 * mix. The new content goes to a temporary file in the same directory (so the rename stays on one
 * file system), is flushed to disk, and is renamed over the target.
 */
import { randomBytes } from 'node:crypto';
import { open, readdir, realpath, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Permissions of a new file: sessions, histories and trust lists may hold what the user would not share. */
const PRIVATE_FILE_MODE = 0o600;

/** A user's own file (one the built-in `fs` tool writes): what the umask allows, as any editor's. */
const USER_FILE_MODE = 0o666;

/** How a file that does not exist yet is created. */
export interface AtomicWriteOptions {
  /**
   * `private` (default): readable by its owner only, for mcphost's own state. `umask`: as the
   * process's umask says (0666 masked), for files written on the user's behalf.
   */
  readonly newFile?: 'private' | 'umask';
}

/** `.name.PID.RANDOM.tmp` — a dot file next to the target, naming the process that wrote it. */
function temporaryName(target: string): string {
  return join(dirname(target), `.${basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
}

/** The file a path finally names: a symbolic link is followed, so that it is kept (not replaced). */
async function resolveTarget(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    return path;
  }
}

/** The target's permissions when it exists (so that replacing it keeps them), else the new file's. */
async function modeFor(target: string, options: AtomicWriteOptions): Promise<number> {
  try {
    return (await stat(target)).mode & 0o777;
  } catch {
    // open() masks the mode with the umask: 0666 becomes 0644 under the usual 022.
    return options.newFile === 'umask' ? USER_FILE_MODE : PRIVATE_FILE_MODE;
  }
}

/** Flushes a directory entry (the rename) to disk. Not every system lets a directory be opened. */
async function syncDirectory(directory: string): Promise<void> {
  try {
    const handle = await open(directory, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Best effort: the data itself is already on disk; only the rename's durability is at stake.
  }
}

/**
 * Writes `text` to `path` atomically. On failure the temporary file is removed and `path` is left
 * as it was. Concurrent writers each use their own temporary file; the last rename wins.
 */
export async function writeFileAtomic(
  path: string,
  text: string,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const target = await resolveTarget(path);
  const temporary = temporaryName(target);
  const handle = await open(temporary, 'wx', await modeFor(target, options));
  try {
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  await syncDirectory(dirname(target));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes temporary files a killed writer left next to `path` (those of processes that no longer
 * run). Best effort: a failure here never stops a save.
 */
export async function removeStaleTemporaryFiles(path: string): Promise<void> {
  const target = await resolveTarget(path);
  const prefix = `.${basename(target)}.`;
  let names: string[];
  try {
    names = await readdir(dirname(target));
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
    const pid = Number(name.slice(prefix.length).split('.')[0]);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || isAlive(pid)) continue;
    await rm(join(dirname(target), name), { force: true }).catch(() => undefined);
  }
}
