/** What the tests see of processes, from /proc (Linux). */
import { readdirSync, readFileSync } from 'node:fs';

interface ProcessInfo {
  readonly pid: number;
  readonly state: string;
  readonly ppid: number;
  readonly pgrp: number;
}

function readProcess(pid: number): ProcessInfo | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name is in parentheses and may contain spaces: read after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { pid, state: fields[0] ?? '?', ppid: Number(fields[1]), pgrp: Number(fields[2]) };
}

/**
 * True when the process exists and is not a zombie. (Where nothing reaps orphans, as in some
 * containers, a killed grandchild stays a zombie: it is dead, but `kill(pid, 0)` still succeeds.)
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const info = readProcess(pid);
  return info === undefined ? true : info.state !== 'Z';
}

function allProcesses(): ProcessInfo[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map((entry) => readProcess(Number(entry)))
    .filter((info): info is ProcessInfo => info !== undefined && info.state !== 'Z');
}

/** Live (non-zombie) child processes of a process (default: this test process). */
export function childrenOf(parent: number): number[] {
  return allProcesses()
    .filter((info) => info.ppid === parent)
    .map((info) => info.pid);
}

/** Live (non-zombie) child processes of this test process. */
export function liveChildren(): number[] {
  return childrenOf(process.pid);
}

/** Live members of a process group. */
export function liveGroupMembers(pgid: number): number[] {
  return allProcesses()
    .filter((info) => info.pgrp === pgid)
    .map((info) => info.pid);
}
