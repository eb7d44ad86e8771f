/**
 * A stdio server's process, apart from the MCP transport that talks to it, so that it can be
 * spawned before the MCP SDK is loaded: the pool starts every stdio server first and loads the
 * SDK (~60 ms of a cold start) while they boot (issue 17). The transport then adopts the process.
 *
 * What happens to the process before the transport adopts it is kept here: its start or start
 * failure, its exit, and its output. The output is read from the start, never left in the pipes:
 * when a child exits, Node drains (and drops) whatever of its output nobody reads, so a server
 * that fails at once would lose the stderr lines that say why.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { containedLaunch, holdWatchPipe, launchStdio } from '../safety/contained-launch.js';
import type { SandboxSettings } from '../safety/sandbox-settings.js';

/** What to run. */
export interface ServerCommand {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd?: string;
  /** The child's complete environment (see `childEnvironment`). */
  readonly env: Readonly<Record<string, string>>;
  /** Run it in a sandbox with these settings (src/safety/sandbox.ts). Absent: no sandbox. */
  readonly sandbox?: SandboxSettings;
}

/**
 * A sandbox was asked for and cannot be made as configured (no bwrap, a path it needs is hidden):
 * the server is not started at all, never started without its sandbox.
 */
export class SandboxRefusedError extends Error {}

/** How the server process ended. */
export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** Where the output goes once the process is adopted. */
export interface OutputHandlers {
  readonly stdout: (chunk: Buffer) => void;
  readonly stdoutEnd: () => void;
  readonly stderr: (chunk: Buffer) => void;
  readonly stderrEnd: () => void;
}

/** Whether the process could be started. */
export type SpawnOutcome = { readonly kind: 'running' } | { readonly kind: 'failed'; readonly error: Error };

/**
 * A spawned server process, leading its own process group, which dies with mcphost (see
 * src/safety/orphan-watch.ts) and runs in its sandbox when it has one.
 */
export class ServerProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** Settles once the process runs or could not be started (command not found, bad cwd…). */
  readonly started: Promise<SpawnOutcome>;
  /** Settles when the process exits (never, if it could not be started). */
  readonly exited: Promise<ProcessExit>;
  /** Settles when both stdout and stderr have ended (been read to their end, or closed). */
  readonly outputEnded: Promise<void>;
  #handlers: OutputHandlers | undefined;
  /** Output events from before {@link adopt}, in order. */
  readonly #pending: Array<(handlers: OutputHandlers) => void> = [];

  /** Throws {@link SandboxRefusedError} when its sandbox cannot be made. */
  constructor(what: ServerCommand) {
    const launch = containedLaunch(what);
    if (launch.kind === 'refused') {
      throw new SandboxRefusedError(`cannot start "${what.command}" in its sandbox: ${launch.reason}`);
    }
    // Its stdin, stdout and stderr are pipes whatever else `stdio` holds (the watcher's pipe).
    this.child = spawn(launch.command, [...launch.args], {
      cwd: what.cwd,
      env: what.env,
      stdio: launchStdio(launch, ['pipe', 'pipe', 'pipe']),
      // Its own process group, so that closing reaches everything it started.
      detached: process.platform !== 'win32',
      windowsHide: true,
    }) as ChildProcessWithoutNullStreams;
    const child = this.child;
    holdWatchPipe(child);
    this.started = new Promise((resolve) => {
      child.once('spawn', () => {
        resolve({ kind: 'running' });
      });
      // Listened to from the start: an 'error' event nobody listens to would end the host. Later
      // errors reach whoever adopted the process (it listens too).
      child.once('error', (error) => {
        resolve({ kind: 'failed', error });
      });
    });
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        resolve({ code, signal });
      });
    });
    // A server that exits while we write gives EPIPE here; its exit itself is what matters.
    child.stdin.on('error', () => undefined);
    const relay = (event: (handlers: OutputHandlers) => void): void => {
      if (this.#handlers === undefined) this.#pending.push(event);
      else event(this.#handlers);
    };
    for (const pipe of ['stdout', 'stderr'] as const) {
      child[pipe].on('data', (chunk: Buffer) => {
        relay((handlers) => {
          handlers[pipe](chunk);
        });
      });
      child[pipe].once('end', () => {
        relay((handlers) => {
          handlers[`${pipe}End`]();
        });
      });
    }
    this.outputEnded = Promise.all([untilEnded(child.stdout), untilEnded(child.stderr)]).then(
      () => undefined,
    );
  }

  /** Hands the output over: what arrived already first, in order, then the rest as it comes. */
  adopt(handlers: OutputHandlers): void {
    if (this.#handlers !== undefined) throw new Error('server process adopted twice');
    this.#handlers = handlers;
    for (const event of this.#pending.splice(0)) event(handlers);
  }

  /** Kills the whole process group at once (for a process never adopted, or an `exit` handler). */
  killGroupSync(): void {
    const { pid } = this.child;
    if (pid === undefined) return;
    try {
      if (process.platform === 'win32') this.child.kill('SIGKILL');
      else process.kill(-pid, 'SIGKILL');
    } catch {
      // ESRCH: the group is already gone.
    }
  }
}

/** Settles when a pipe has ended or closed. */
function untilEnded(stream: NodeJS.ReadableStream): Promise<void> {
  return new Promise<void>((resolve) => {
    stream.once('close', resolve);
    stream.once('end', resolve);
  });
}
