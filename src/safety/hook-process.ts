/**
 * Running one hook command: `sh -c COMMAND` with the event's JSON on stdin, in its own process
 * group, with a minimal environment and a time limit.
 *
 * The process group is what makes the limit real: a hook is often a script that starts other
 * programs, and killing only the shell would leave them running. When the shell exits, whatever it
 * left behind in its group is killed too, so no hook outlives its answer (a hook that really wants
 * a background job can start it with `setsid`, best with its output redirected).
 *
 * The answer is taken when the shell exits, not when our pipes close: a job out of the group's
 * reach (`setsid`) may hold them open for as long as it runs. Output still buffered is given
 * {@link DRAIN_MS} to arrive, then the pipes are closed on our side.
 */
import { spawn } from 'node:child_process';

/** Output kept from each of stdout and stderr; the rest is dropped (a hook's answer is short). */
const MAX_CAPTURED_BYTES = 1024 * 1024;
/** After the shell exits, how long its output may still take to arrive through the pipes. */
const DRAIN_MS = 100;

/** How to run one hook command. */
export interface HookProcessOptions {
  /** The command line, given to the shell as is. */
  readonly command: string;
  /** Written to the hook's stdin, which is then closed. */
  readonly input: string;
  /** Killed (with its process group) after this long. */
  readonly timeoutMs: number;
  readonly cwd: string;
  /** The hook's complete environment. */
  readonly env: Readonly<Record<string, string>>;
  /** The shell; default `sh` (found on the environment's PATH). */
  readonly shell?: string | undefined;
  /** Kills the hook early (the run was cancelled, or mcphost is closing). */
  readonly signal?: AbortSignal;
}

/** How a hook process ended. */
export type HookProcessResult =
  | {
      readonly kind: 'exited';
      /** The exit code, or `null` when a signal ended it. */
      readonly code: number | null;
      readonly signal: NodeJS.Signals | null;
      readonly stdout: string;
      readonly stderr: string;
    }
  | { readonly kind: 'timed-out'; readonly stdout: string; readonly stderr: string }
  | { readonly kind: 'cancelled' }
  | { readonly kind: 'failed-to-start'; readonly error: Error };

/** Runs a hook command to its end (or its time limit). Never rejects. */
export function runHookProcess(options: HookProcessOptions): Promise<HookProcessResult> {
  return new Promise((resolve) => {
    if (options.signal?.aborted === true) {
      resolve({ kind: 'cancelled' });
      return;
    }
    const child = spawn(options.shell ?? 'sh', ['-c', options.command], {
      cwd: options.cwd,
      env: options.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
    });
    const stdout = new CappedText();
    const stderr = new CappedText();
    let ending: 'timed-out' | 'cancelled' | undefined;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let drain: NodeJS.Timeout | undefined;
    let settled = false;

    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        if (process.platform === 'win32') child.kill('SIGKILL');
        else process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const stop = (why: 'timed-out' | 'cancelled') => {
      ending ??= why;
      killGroup();
    };
    const timer = setTimeout(() => stop('timed-out'), options.timeoutMs);
    const onAbort = () => stop('cancelled');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const finish = (result: HookProcessResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(drain);
      options.signal?.removeEventListener('abort', onAbort);
      resolve(result);
    };
    const settle = (ended: { code: number | null; signal: NodeJS.Signals | null }) => {
      if (ending === 'cancelled') finish({ kind: 'cancelled' });
      else if (ending === 'timed-out')
        finish({ kind: 'timed-out', stdout: stdout.text(), stderr: stderr.text() });
      else finish({ kind: 'exited', ...ended, stdout: stdout.text(), stderr: stderr.text() });
    };

    child.stdout.on('data', (chunk: Buffer) => stdout.add(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.add(chunk));
    // A hook that does not read its stdin and exits makes our write fail with EPIPE: not an error.
    child.stdin.on('error', () => undefined);
    child.on('error', (error) => finish({ kind: 'failed-to-start', error }));
    child.on('exit', (code, signal) => {
      const ended = { code, signal };
      exit = ended;
      // The shell answered in time: from here on, the limit no longer applies.
      clearTimeout(timer);
      // Whatever the shell left running in its group goes with it (and releases our pipes).
      killGroup();
      // A job outside the group (setsid) may keep the pipes open: take what arrived and stop reading.
      drain = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        settle(ended);
      }, DRAIN_MS);
    });
    child.on('close', (code: number | null, signal: NodeJS.Signals | null) => {
      settle(exit ?? { code, signal });
    });
    child.stdin.end(options.input);
  });
}

/** Collects a stream's bytes up to {@link MAX_CAPTURED_BYTES}. */
class CappedText {
  readonly #chunks: Buffer[] = [];
  #size = 0;

  add(chunk: Buffer): void {
    if (this.#size >= MAX_CAPTURED_BYTES) return;
    const kept = chunk.subarray(0, MAX_CAPTURED_BYTES - this.#size);
    this.#chunks.push(kept);
    this.#size += kept.length;
  }

  text(): string {
    return Buffer.concat(this.#chunks).toString('utf8');
  }
}
