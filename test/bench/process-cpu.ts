/**
 * CPU time of other processes, for benches that must say where a machine's CPU went (the workers
 * bench: the workers, PostgreSQL, the fake model). Linux only, from /proc; NaN elsewhere. Read by
 * hand: no maintained package reads another process tree's CPU without spawning `ps`, whose
 * resolution is a whole second.
 */
import { readdir, readFile } from 'node:fs/promises';

/** /proc counts in USER_HZ ticks, which Linux fixes at 100 a second whatever the kernel's tick rate. */
const TICKS_A_SECOND = 100;

interface ProcessTimes {
  /** user + system of the process itself. */
  readonly own: number;
  /** user + system of its children that ended and were waited for. */
  readonly endedChildren: number;
}

async function times(pid: number): Promise<ProcessTimes | undefined> {
  let stat: string;
  try {
    stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The fields after the command name, which may hold spaces: split after its closing parenthesis.
  // utime, stime, cutime, cstime are fields 14 to 17 of the line, 11 to 14 here.
  const fields = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
  return {
    own: (fields[11] ?? NaN) + (fields[12] ?? NaN),
    endedChildren: (fields[13] ?? NaN) + (fields[14] ?? NaN),
  };
}

async function children(pid: number): Promise<number[]> {
  try {
    const threads = await readdir(`/proc/${pid}/task`);
    const lists = await Promise.all(
      threads.map((thread) => readFile(`/proc/${pid}/task/${thread}/children`, 'utf8').catch(() => '')),
    );
    return lists.flatMap((list) =>
      list
        .split(' ')
        .filter((part) => part.trim() !== '')
        .map(Number),
    );
  } catch {
    return [];
  }
}

/**
 * CPU seconds used by a process and all its descendants so far: the live ones, and the ended ones
 * it waited for (a PostgreSQL server's finished backends, say). NaN when the process is gone.
 */
export async function processTreeCpuSeconds(pid: number | undefined): Promise<number> {
  if (pid === undefined) return NaN;
  const root = await times(pid);
  if (root === undefined) return NaN;
  const below = await Promise.all((await children(pid)).map((child) => processTreeCpuSeconds(child)));
  const live = below.filter((seconds) => !Number.isNaN(seconds)).reduce((sum, seconds) => sum + seconds, 0);
  return (root.own + root.endedChildren) / TICKS_A_SECOND + live;
}
