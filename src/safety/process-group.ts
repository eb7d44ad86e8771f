/**
 * Whether a process group still has a living member, for the loops that wait for a group to end
 * after SIGTERM (closing a server, ending a `bash` command).
 *
 * `kill(-group, 0)` alone says yes for as long as a zombie is left in the group, and a member whose
 * parent died stays a zombie until init reaps it: at once on most machines, after about a second
 * in some containers (measured here: ~1.2 s). Every child now has one such member, its orphan
 * watcher (orphan-watch.ts), so on Linux the group is read from /proc and zombies do not count.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** True while the group has a member that is not a zombie (or, off Linux, any member). */
export function groupHasLiveMember(processGroupId: number): boolean {
  try {
    process.kill(-processGroupId, 0);
  } catch (error) {
    // EPERM: a member we may not signal is still a member.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (process.platform !== 'linux') return true;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return true;
  }
  for (const entry of entries) {
    const first = entry.charCodeAt(0);
    if (first < 48 || first > 57) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
    } catch {
      continue;
    }
    // After the command name (in parentheses, which may hold spaces): state, ppid, pgrp.
    const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ', 3);
    if (Number(group) === processGroupId && state !== 'Z') return true;
  }
  return false;
}
