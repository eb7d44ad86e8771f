/**
 * Running one shell command for the `bash` server: in its own process group, with a timeout and an
 * output cap, and nothing of it left running afterwards.
 *
 * - The command leads a new process group (`detached`), so that ending it ends what it started:
 *   pipelines, subshells, `&` jobs. When the command exits, or its time is up, or the call is
 *   cancelled, the whole group gets SIGTERM, then SIGKILL after a grace period.
 * - It dies with mcphost, even on SIGKILL, with whatever it started (src/safety/orphan-watch.ts),
 *   and runs in a sandbox when the server has one (src/safety/sandbox.ts): a sandbox that cannot
 *   be made means the command does not run.
 * - stdout and stderr are kept together, in the order they arrive, up to the cap. Past the cap our
 *   end of the pipes is closed, as `| head -c` would: a command that goes on writing gets SIGPIPE.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { groupHasLiveMember } from '../safety/process-group.js';
import { containedLaunch, holdWatchPipe, launchStdio } from '../safety/contained-launch.js';
import type { SandboxSettings } from '../safety/sandbox-settings.js';

/** How a command ended. */
export type ShellOutcome =
  | { readonly kind: 'exited'; readonly code: number; readonly output: string; readonly cut: boolean }
  | { readonly kind: 'signalled'; readonly signal: string; readonly output: string; readonly cut: boolean }
  | { readonly kind: 'timed-out'; readonly timeoutMs: number; readonly output: string; readonly cut: boolean }
  | { readonly kind: 'cancelled'; readonly output: string; readonly cut: boolean }
  | { readonly kind: 'not-started'; readonly reason: string };

/** What {@link runShellCommand} needs. */
export interface ShellCommandOptions {
  readonly command: string;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  /** Between SIGTERM and SIGKILL. */
  readonly killGraceMs: number;
  readonly signal?: AbortSignal;
  /** Told the group's id once it runs, and again (undefined) once it is gone: for ending it from outside. */
  readonly onGroup?: (processGroupId: number | undefined) => void;
  /** Run it in a sandbox with these settings; its working folder is writable there. */
  readonly sandbox?: SandboxSettings;
}

/** How long output that is still buffered may take to arrive after the command exited. */
const DRAIN_MS = 100;

/** bash when there is one (the server's name promises it), else the POSIX shell. */
function shellProgram(): string {
  return existsSync('/bin/bash') ? '/bin/bash' : '/bin/sh';
}

/** Signals a process group; false when it is gone. */
export function signalGroup(processGroupId: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-processGroupId, signal);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM to the group, then SIGKILL to whatever is left after `graceMs`. Resolves when it is gone. */
export async function endGroup(processGroupId: number, graceMs: number): Promise<void> {
  if (!signalGroup(processGroupId, 'SIGTERM')) return;
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    if (!groupHasLiveMember(processGroupId)) return;
  }
  signalGroup(processGroupId, 'SIGKILL');
}

/** Runs `command` with `sh -c` semantics. Never throws: every ending is an outcome. */
export async function runShellCommand(options: ShellCommandOptions): Promise<ShellOutcome> {
  if (options.signal?.aborted === true) return { kind: 'cancelled', output: '', cut: false };
  const launch = containedLaunch({
    command: shellProgram(),
    args: ['-c', options.command],
    cwd: options.cwd,
    env: options.env,
    ...(options.sandbox === undefined ? {} : { sandbox: options.sandbox, defaultWritable: [options.cwd] }),
  });
  if (launch.kind === 'refused') return { kind: 'not-started', reason: `its sandbox: ${launch.reason}` };
  // stdout and stderr are pipes whatever else `stdio` holds (the watcher's pipe).
  const child = spawn(launch.command, [...launch.args], {
    cwd: options.cwd,
    env: { ...options.env },
    detached: true,
    stdio: launchStdio(launch, ['ignore', 'pipe', 'pipe']),
  }) as ChildProcessByStdio<null, Readable, Readable>;
  holdWatchPipe(child);
  const started = await new Promise<{ ok: true } | { ok: false; reason: string }>((resolve) => {
    child.once('spawn', () => resolve({ ok: true }));
    child.once('error', (error) => resolve({ ok: false, reason: error.message }));
  });
  if (!started.ok || child.pid === undefined) {
    return { kind: 'not-started', reason: started.ok ? 'no process id' : started.reason };
  }
  const processGroupId = child.pid;
  options.onGroup?.(processGroupId);

  const chunks: Buffer[] = [];
  let kept = 0;
  let cut = false;
  const take = (chunk: Buffer): void => {
    if (cut) return;
    const room = options.maxOutputBytes - kept;
    chunks.push(chunk.subarray(0, room));
    kept += Math.min(room, chunk.length);
    if (chunk.length > room) {
      cut = true;
      child.stdout.destroy();
      child.stderr.destroy();
    }
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);

  let ending: 'timed-out' | 'cancelled' | undefined;
  const stop = (why: 'timed-out' | 'cancelled'): void => {
    ending ??= why;
    void endGroup(processGroupId, options.killGraceMs);
  };
  const timer = setTimeout(() => stop('timed-out'), options.timeoutMs);
  const onAbort = (): void => stop('cancelled');
  options.signal?.addEventListener('abort', onAbort, { once: true });

  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  clearTimeout(timer);
  options.signal?.removeEventListener('abort', onAbort);
  // What the command left running in its group (background jobs) does not outlive it.
  await endGroup(processGroupId, options.killGraceMs);
  options.onGroup?.(undefined);
  await drain(child.stdout, child.stderr);

  const output = Buffer.concat(chunks).toString('utf8');
  if (ending === 'timed-out') return { kind: 'timed-out', timeoutMs: options.timeoutMs, output, cut };
  if (ending === 'cancelled') return { kind: 'cancelled', output, cut };
  if (exit.code !== null) return { kind: 'exited', code: exit.code, output, cut };
  return { kind: 'signalled', signal: exit.signal ?? 'unknown', output, cut };
}

/** Waits (briefly) for both streams to end, so output written just before exit is not lost. */
async function drain(...streams: NodeJS.ReadableStream[]): Promise<void> {
  await Promise.race([
    Promise.all(
      streams.map(
        (stream) =>
          new Promise<void>((resolve) => {
            if ((stream as { readableEnded?: boolean; destroyed?: boolean }).readableEnded === true)
              resolve();
            else if ((stream as { destroyed?: boolean }).destroyed === true) resolve();
            else stream.once('close', resolve);
          }),
      ),
    ),
    new Promise((resolve) => setTimeout(resolve, DRAIN_MS)),
  ]);
}

/** The outcome as the model reads it. */
export function describeShellOutcome(
  outcome: ShellOutcome,
  maxOutputBytes: number,
  /** How the output was cut: our own launch closes the pipes; an editor's terminal drops the start. */
  howCut = "the command's pipes were closed there",
): { text: string; isError: boolean } {
  if (outcome.kind === 'not-started')
    return { text: `the command could not start: ${outcome.reason}`, isError: true };
  const body = outcome.output === '' ? '(no output)' : outcome.output.replace(/\n$/, '');
  const note = outcome.cut ? `\n[output cut at ${maxOutputBytes} bytes; ${howCut}]` : '';
  switch (outcome.kind) {
    case 'exited':
      return { text: `${body}${note}\n[exit code ${outcome.code}]`, isError: outcome.code !== 0 };
    case 'signalled':
      return { text: `${body}${note}\n[ended by ${outcome.signal}]`, isError: true };
    case 'timed-out':
      return {
        text: `${body}${note}\n[timed out after ${outcome.timeoutMs} ms: the command and its process group were ended]`,
        isError: true,
      };
    case 'cancelled':
      return {
        text: `${body}${note}\n[cancelled: the command and its process group were ended]`,
        isError: true,
      };
    default: {
      const unexpected: never = outcome;
      return unexpected;
    }
  }
}
