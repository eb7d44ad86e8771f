/**
 * The bwrap command line a sandbox plan builds, and the plans it refuses (src/safety/sandbox.ts).
 * These read the file system (real paths) and need bwrap on PATH; what the command line does is
 * tested against the real bwrap in test/builtin/bash-sandbox.test.ts.
 */
import { realpathSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { planSandbox, type SandboxRequest } from '../../src/safety/sandbox.js';

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'mcphost-plan-'));
  await mkdir(join(folder, 'home', '.ssh', 'keys'), { recursive: true });
  await writeFile(join(folder, 'home', '.netrc'), 'machine x password y\n');
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

function plan(overrides: Partial<SandboxRequest> = {}) {
  return planSandbox({
    command: 'sh',
    args: ['-c', 'true'],
    cwd: folder,
    env: { PATH: process.env.PATH ?? '', HOME: join(folder, 'home') },
    settings: {},
    ...overrides,
  });
}

function argsOf(result: ReturnType<typeof plan>): readonly string[] {
  if (result.kind !== 'ready') throw new Error(`refused: ${result.reason}`);
  return result.args;
}

/** The pairs or triples of `args` that start with `flag`. */
function uses(args: readonly string[], flag: string, width: number): string[][] {
  return args.flatMap((arg, index) => (arg === flag ? [args.slice(index, index + width)] : []));
}

describe('a sandbox plan', () => {
  it('has no network unless asked, and no capabilities', () => {
    expect(argsOf(plan())).toEqual(
      expect.arrayContaining(['--unshare-net', '--unshare-pid', '--die-with-parent']),
    );
    expect(uses(argsOf(plan()), '--cap-drop', 2)).toEqual([['--cap-drop', 'ALL']]);
    expect(argsOf(plan({ settings: { network: true } }))).not.toContain('--unshare-net');
  });

  it('binds its writable folders, and what it is started with under the private /tmp read-only', async () => {
    await mkdir(join(folder, 'out'));
    const real = realpathSync(folder);
    // `out` is relative to the working folder; the working folder is under /tmp and not writable.
    const args = argsOf(plan({ settings: { writable: ['out'] } }));
    expect(uses(args, '--bind', 3)).toEqual([['--bind', join(real, 'out'), join(real, 'out')]]);
    expect(uses(args, '--ro-bind', 3)).toContainEqual(['--ro-bind', real, real]);
    expect(uses(args, '--tmpfs', 2)).toContainEqual(['--tmpfs', '/tmp']);
    // The parent is bound before what is inside it.
    expect(args.indexOf(real)).toBeLessThan(args.indexOf(join(real, 'out')));
    expect(args.slice(-4, -3)).toEqual(['--']);
    expect(args.slice(-2)).toEqual(['-c', 'true']);
  });

  it('hides the default key stores that exist, once each, after the binds', () => {
    const home = join(realpathSync(folder), 'home');
    const args = argsOf(plan({ defaultWritable: [folder] }));
    expect(uses(args, '--tmpfs', 2)).toContainEqual(['--tmpfs', join(home, '.ssh')]);
    expect(uses(args, '--remount-ro', 2)).toContainEqual(['--remount-ro', join(home, '.ssh')]);
    expect(uses(args, '--ro-bind', 3)).toContainEqual(['--ro-bind', '/dev/null', join(home, '.netrc')]);
    // Not its subfolder: the outer one hides it already (and, read-only, could not take a mount).
    expect(args).not.toContain(join(home, '.ssh', 'keys'));
    expect(args.indexOf(join(home, '.ssh'))).toBeGreaterThan(args.indexOf('--bind'));
  });

  it.each<[Partial<SandboxRequest>, string]>([
    [{ settings: { writable: ['missing'] } }, 'sandbox.writable: FOLDER/missing does not exist'],
    [
      { command: 'no-such-program-here' },
      'no such command "no-such-program-here" (is it installed and on PATH?)',
    ],
    [{ cwd: '/no/such/folder' }, 'its working folder /no/such/folder does not exist'],
  ])('refuses %j, saying why', (overrides, reason) => {
    expect(plan(overrides)).toEqual({
      kind: 'refused',
      reason: reason.replace('FOLDER', realpathSync(folder)),
    });
  });

  it('refuses a command started with a hidden path, naming it and the argument', () => {
    const ssh = join(realpathSync(folder), 'home', '.ssh');
    expect(plan({ args: ['-c', 'true', join(ssh, 'keys')] })).toEqual({
      kind: 'refused',
      reason: `the sandbox hides ${join(ssh, 'keys')}, inside ${ssh}, which argument 3 names`,
    });
  });

  it('refuses where bwrap is not on PATH', () => {
    expect(plan({ command: '/bin/sh', env: { PATH: folder } })).toMatchObject({
      kind: 'refused',
      reason: expect.stringContaining('bwrap (bubblewrap) is not on PATH') as unknown,
    });
  });
});
