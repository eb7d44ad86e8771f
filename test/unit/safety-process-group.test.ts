/**
 * groupHasLiveMember against real process groups: the leader running, the leader gone while a
 * member it started lives on (the /proc scan), and every member gone.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { groupHasLiveMember } from '../../src/safety/process-group.js';

const started: ChildProcess[] = [];

/** A shell leading its own process group, running `script`; resolves once it has spawned. */
async function groupLeader(script: string): Promise<ChildProcess & { pid: number }> {
  const child = spawn('sh', ['-c', script], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
  started.push(child);
  await once(child, 'spawn');
  if (child.pid === undefined) throw new Error('no pid');
  return child as ChildProcess & { pid: number };
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
    // The shell starts a member in its group, says so, and exits: only the member is left.
    const leader = await groupLeader('sleep 30 & echo started; exit 0');
    await once(leader.stdout!, 'data');
    await once(leader, 'exit');
    expect(groupHasLiveMember(leader.pid)).toBe(true);
    killGroup(leader.pid);
    expect(await eventually(leader.pid, false)).toBe(false);
  });

  it('is false for a group that never existed or has ended', async () => {
    const leader = await groupLeader('exit 0');
    await once(leader, 'exit');
    expect(await eventually(leader.pid, false)).toBe(false);
  });
});
