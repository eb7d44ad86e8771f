/**
 * groupHasLiveMember against real process groups: the leader running, the leader gone while a
 * member it started lives on (the /proc scan), and every member gone; and what a scan allocates.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { groupHasLiveMember } from '../../src/safety/process-group.js';

const started: ChildProcess[] = [];

/**
 * A shell leading its own process group, running `script`; resolves once it has spawned. `exited`
 * is listened for from the start (the exit may come right after the shell's output).
 */
async function groupLeader(script: string): Promise<{ pid: number; exited: Promise<unknown> }> {
  const child = spawn('sh', ['-c', script], { detached: true, stdio: ['ignore', 'ignore', 'ignore'] });
  started.push(child);
  const exited = once(child, 'exit');
  await once(child, 'spawn');
  if (child.pid === undefined) throw new Error('no pid');
  return { pid: child.pid, exited };
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Polls (no timing asserted) until the group answers `expected`, up to a generous bound. */
async function eventually(pid: number, expected: boolean): Promise<boolean> {
  for (let attempt = 0; attempt < 400; attempt++) {
    if (groupHasLiveMember(pid) === expected) return expected;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return groupHasLiveMember(pid);
}

afterEach(() => {
  for (const child of started.splice(0)) if (child.pid !== undefined) killGroup(child.pid);
});

describe('groupHasLiveMember', () => {
  it('is true while the leader runs', async () => {
    const leader = await groupLeader('exec sleep 30');
    expect(groupHasLiveMember(leader.pid)).toBe(true);
  });

  it('is true while a member outlives the leader, and false once the group is empty', async () => {
    // The shell starts a member in its group and exits: only the member is left.
    const leader = await groupLeader('sleep 30 & exit 0');
    await leader.exited;
    expect(groupHasLiveMember(leader.pid)).toBe(true);
    killGroup(leader.pid);
    expect(await eventually(leader.pid, false)).toBe(false);
  });

  it('reads /proc without a buffer per process (a scan of every process did, 64 KiB each)', async () => {
    const leader = await groupLeader('sleep 30 & exit 0');
    await leader.exited;
    const before = process.memoryUsage().arrayBuffers;
    // The leader is gone and the member is not its group's leader: every process is looked at.
    expect(groupHasLiveMember(leader.pid)).toBe(true);
    // readFileSync took a fresh 64 KiB buffer for each /proc file it read (their size reads as 0).
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(64 * 1024);
  });

  it('is false for a group that never existed or has ended', async () => {
    const leader = await groupLeader('exit 0');
    await leader.exited;
    expect(await eventually(leader.pid, false)).toBe(false);
  });
});
