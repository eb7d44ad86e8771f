/**
 * Whether a process group still has a living member, for the loops that wait for a group to end
 * after SIGTERM (closing a server, ending a `bash` command).
 *
 * `kill(-group, 0)` alone says yes for as long as a zombie is left in the group, and a member whose
 * parent died stays a zombie until init reaps it: at once on most machines, after about a second
 * in some containers (measured here: ~1.2 s). Every child now has one such member, its orphan
 * watcher (orphan-watch.ts), so on Linux the group is read from /proc and zombies do not count.
 */
import { closeSync, openSync, readdirSync, readSync } from 'node:fs';

/**
 * One buffer for every /proc/<pid>/stat read. Why not `readFileSync`: /proc files report a size of
 * 0, so it reads each into a fresh 64 KiB buffer, and a scan of /proc made one per process on the
 * machine: 136 processes, 8.5 MB of ArrayBuffers per scan, every 25 ms per server being closed,
 * which was the host's peak RSS with eight servers (docs/design.md, "The start path"). The fields
 * read here come within the first bytes after the command name (at most 64 bytes).
 */
const STAT_BUFFER = Buffer.allocUnsafe(512);

/** True while the group has a member that is not a zombie (or, off Linux, any member). */
export function groupHasLiveMember(processGroupId: number): boolean {
  try {
    process.kill(-processGroupId, 0);
  } catch (error) {
    // EPERM: a member we may not signal is still a member.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (process.platform !== 'linux') return true;
  // The group's leader (its id is the group's) is usually the one still running: no scan then.
  if (isLiveMember(String(processGroupId), processGroupId)) return true;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return true;
  }
  for (const entry of entries) {
    const first = entry.charCodeAt(0);
    if (first < 48 || first > 57) continue;
    if (isLiveMember(entry, processGroupId)) return true;
  }
  return false;
}

/** Whether process `pid` (a /proc entry) is in the group and not a zombie; false if it is gone. */
function isLiveMember(pid: string, processGroupId: number): boolean {
  const stat = readStat(pid);
  if (stat === undefined) return false;
  // After the command name (in parentheses, which may hold spaces): state, ppid, pgrp.
  const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ', 3);
  return Number(group) === processGroupId && state !== 'Z';
}

/** The start of /proc/<pid>/stat, or undefined when the process is gone. */
function readStat(pid: string): string | undefined {
  let descriptor: number;
  try {
    descriptor = openSync(`/proc/${pid}/stat`, 'r');
  } catch {
    return undefined;
  }
  try {
    const bytes = readSync(descriptor, STAT_BUFFER, 0, STAT_BUFFER.length, 0);
    return STAT_BUFFER.toString('latin1', 0, bytes);
  } catch {
    return undefined;
  } finally {
    closeSync(descriptor);
  }
}
