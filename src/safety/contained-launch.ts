/**
 * How a child of mcphost is started so that it is contained: in its sandbox when one is asked for
 * (sandbox.ts), and always under the orphan watcher (orphan-watch.ts), so that it dies with
 * mcphost. The stdio servers (src/mcp/server-process.ts) and the `bash` commands
 * (src/builtin/shell-command.ts) both start their processes through {@link containedLaunch}.
 */
import type { ChildProcess, StdioPipe } from 'node:child_process';
import type { Socket } from 'node:net';
import { resolve } from 'node:path';
import { WATCH_FD, watchedCommand } from './orphan-watch.js';
import { findProgram, planSandbox } from './sandbox.js';
import type { SandboxSettings } from './sandbox-settings.js';
import { definedProperties } from '../util/defined-properties.js';

/** What to start. */
export interface LaunchRequest {
  readonly command: string;
  readonly args: readonly string[];
  /** Default: our working folder. */
  readonly cwd?: string;
  /** The child's complete environment. */
  readonly env: Readonly<Record<string, string>>;
  /** Run it in a sandbox with these settings. Absent: no sandbox. */
  readonly sandbox?: SandboxSettings;
  /** Writable in the sandbox besides `sandbox.writable` (bash: its working folder). */
  readonly defaultWritable?: readonly string[];
}

/** What to spawn, or why it must not be. */
export type Launch =
  | {
      readonly kind: 'spawn';
      readonly command: string;
      readonly args: readonly string[];
      /** Under the orphan watcher: spawn with a pipe at fd {@link WATCH_FD} (see {@link launchStdio}). */
      readonly watched: boolean;
    }
  /** A sandbox was asked for and cannot be made as configured; `reason` says why, naming the path. */
  | { readonly kind: 'refused'; readonly reason: string };

/** The command line that starts `request` contained, or why it cannot be. */
export function containedLaunch(request: LaunchRequest): Launch {
  const cwd = resolve(request.cwd ?? process.cwd());
  let target = { command: request.command, args: request.args };
  if (request.sandbox !== undefined) {
    const plan = planSandbox({
      command: request.command,
      args: request.args,
      cwd,
      env: request.env,
      settings: request.sandbox,
      ...definedProperties({ defaultWritable: request.defaultWritable }),
    });
    if (plan.kind === 'refused') return plan;
    target = plan;
  } else if (
    process.platform === 'win32' ||
    findProgram(request.command, request.env.PATH, cwd) === undefined
  ) {
    // Spawned as it is: a command that cannot be found fails the spawn with the usual ENOENT or
    // EACCES (the watcher's `exec` would turn that into an exit code), and nothing runs to watch.
    return { kind: 'spawn', ...target, watched: false };
  }
  const watched = watchedCommand(target);
  return { kind: 'spawn', ...(watched ?? target), watched: watched !== undefined };
}

/** The `stdio` option for a launch: the child's three, and the watcher's pipe when it has one. */
export function launchStdio(
  launch: Extract<Launch, { kind: 'spawn' }>,
  standard: readonly [StdioPipe | 'ignore', StdioPipe, StdioPipe],
): Array<StdioPipe | 'ignore'> {
  return launch.watched ? [...standard, 'pipe'] : [...standard];
}

/**
 * Keeps our end of the watcher's pipe open without holding the event loop: it closes when the
 * child's group is gone (the watcher's end closes) or when this process ends (the watcher wakes).
 */
export function holdWatchPipe(child: ChildProcess): void {
  const pipe = child.stdio[WATCH_FD] as Socket | null | undefined;
  if (pipe === null || pipe === undefined) return;
  pipe.on('error', () => undefined);
  // Read (nothing ever comes) so that its end is noticed and the pipe closes.
  pipe.resume();
  pipe.unref();
}
