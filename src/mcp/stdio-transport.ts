/**
 * An MCP transport over a child process's stdin/stdout, written for a host that must outlive
 * badly behaved servers.
 *
 * Why not the SDK's `StdioClientTransport`: it signals only the direct child, so a server started
 * through `npx` or `sh -c` leaves its real process behind; and its stderr is either inherited
 * (printed on our terminal) or a raw stream. Here:
 *
 * - the child leads its own process group (`detached`), and closing signals the whole group:
 *   SIGTERM, then SIGKILL after a grace period;
 * - {@link StdioProcessTransport.killSync} does the same synchronously, for a process `exit` hook;
 * - every stderr line goes to a callback (for `--debug`) and the last lines are kept for error
 *   reports; stderr never reaches our terminal;
 * - a stdout line that is not a JSON-RPC message is reported and skipped, never fatal;
 * - the end of the server is noticed when its process exits, not when its pipes close: a
 *   grandchild holding the pipes open must not hide a crash;
 * - a message over the size limit is dropped, and the request it answers ends at once with an
 *   error that gives its size and the limit (see message-size.ts); the connection goes on.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  deserializeMessage,
  serializeMessage,
  type JSONRPCMessage,
  type RequestId,
  type Transport,
} from '@modelcontextprotocol/client';
import { LineSplitter, TailBuffer, type OversizeLine } from './lines.js';
import { ProbeWatch } from './probe-watch.js';
import { spawnFailureError } from './spawn-failure.js';
import { ServerProcess, type ProcessExit } from './server-process.js';
import { groupHasLiveMember } from '../safety/process-group.js';
import type { SandboxSettings } from '../safety/sandbox-settings.js';
import {
  DEFAULT_MAX_MESSAGE_BYTES,
  oversizeResponse,
  requestIdOf,
  responseIdAtEdges,
} from './message-size.js';

/** How long a server's process group gets between SIGTERM and SIGKILL. */
export const DEFAULT_KILL_GRACE_MS = 1_500;
/** How many stderr lines are kept for error reports. */
export const DEFAULT_STDERR_TAIL_LINES = 20;
/**
 * How many of the first stderr lines are kept too. A server that fails often says why first and
 * then prints its usage (a Go kubernetes server: one error line, then forty of usage text), so the
 * last lines alone would show the usage and hide the reason.
 */
const STDERR_HEAD_LINES = 5;
/** Marks the lines left out between the first and the last stderr lines of an excerpt. */
export const STDERR_GAP_PREFIX = '…';
/** After the process exits, how long we still wait for the rest of its stdout. */
const STDOUT_DRAIN_MS = 250;
/**
 * After the server's stdout ends, how long we wait for its exit before calling it down anyway. A
 * process that exits closes stdout first, and its exit status makes the better message; one that
 * closed stdout and lives on can never answer again.
 */
const STDOUT_CLOSED_GRACE_MS = 200;
/** How often we look whether the process group is gone while closing. */
const GROUP_POLL_MS = 25;

export type { ProcessExit } from './server-process.js';

/** How to start the server process, and where its diagnostics go. */
export interface StdioTransportOptions {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd?: string;
  /** The child's complete environment (see `childEnvironment`). */
  readonly env: Readonly<Record<string, string>>;
  /** Run it in a sandbox (src/safety/sandbox.ts); a sandbox that cannot be made fails the start. */
  readonly sandbox?: SandboxSettings;
  /** The process, when it was spawned already (by the pool, before the SDK loaded): adopted, not spawned. */
  readonly process?: ServerProcess;
  /** Receives every stderr line of the server. */
  readonly onStderrLine?: (line: string) => void;
  /** Receives diagnostics such as skipped stdout lines. */
  readonly onDebug?: (message: string) => void;
  readonly stderrTailLines?: number;
  readonly killGraceMs?: number;
  /** The longest JSON-RPC message accepted, in bytes (default {@link DEFAULT_MAX_MESSAGE_BYTES}). */
  readonly maxMessageBytes?: number;
}

/** A stdio transport that owns its server's whole process tree. */
export class StdioProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #options: StdioTransportOptions;
  readonly #stderrLines: TailBuffer;
  readonly #stdoutLines: LineSplitter;
  readonly #stderrSplitter: LineSplitter;
  #child: ChildProcessWithoutNullStreams | undefined;
  #serverProcess: ServerProcess | undefined;
  #exitInfo: ProcessExit | undefined;
  #closing: Promise<void> | undefined;
  /** Set once the group has been seen gone or killed: its id may then belong to someone else. */
  #groupFinished = false;
  #closeReported = false;
  readonly #stderrHead = new TailBuffer(STDERR_HEAD_LINES);
  #stderrLineCount = 0;
  #stdoutClosedAlive = false;
  readonly #maxMessageBytes: number;
  /** Ids of our requests not yet answered: an oversized answer whose id cannot be read is theirs when alone. */
  readonly #unanswered = new Set<RequestId>();
  #resolveExited: (exit: ProcessExit) => void = () => undefined;
  /** Settles when the process exits (never, if it could not be started). */
  readonly exited: Promise<ProcessExit> = new Promise((resolve) => {
    this.#resolveExited = resolve;
  });

  readonly #probeWatch = new ProbeWatch({
    write: (message) => {
      this.#child?.stdin.write(serializeMessage(message));
    },
    deliver: (message) => {
      this.onmessage?.(message);
    },
    onDebug: (message) => {
      this.#options.onDebug?.(message);
    },
  });

  constructor(options: StdioTransportOptions) {
    this.#options = options;
    this.#stderrLines = new TailBuffer(options.stderrTailLines ?? DEFAULT_STDERR_TAIL_LINES);
    this.#maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.#stdoutLines = new LineSplitter(this.#maxMessageBytes);
    this.#stderrSplitter = new LineSplitter(this.#maxMessageBytes);
  }

  /**
   * Always null: stderr is read here (tail + `--debug`), never handed out. The property exists
   * because the SDK recognises a stdio transport by its `stderr` and `pid` members, and on stdio a
   * `server/discover` probe that times out means "legacy server", where over HTTP it means "down".
   */
  get stderr(): null {
    return null;
  }

  /** The server process id, once started. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** How the process ended, once it has. */
  get exit(): ProcessExit | undefined {
    return this.#exitInfo;
  }

  /** True when the server closed its stdout while its process still ran (it was then ended). */
  get closedStdoutWhileRunning(): boolean {
    return this.#stdoutClosedAlive;
  }

  /**
   * The lines that best say why a server failed: all of its stderr when it was short, else its
   * first lines, a `…` line saying how many were left out, and its last lines.
   */
  stderrExcerpt(): readonly string[] {
    const tail = this.#stderrLines.snapshot();
    const head = this.#stderrHead.snapshot();
    const hidden = this.#stderrLineCount - tail.length;
    if (hidden <= 0) return tail;
    const overlap = Math.max(0, head.length - hidden);
    const skipped = hidden - (head.length - overlap);
    const gap = skipped > 0 ? [`${STDERR_GAP_PREFIX} ${skipped} lines not shown`] : [];
    return [...head.slice(0, head.length - overlap), ...gap, ...tail];
  }

  /** Settles once the server's stdout and stderr have ended (what it wrote before dying is read). */
  get outputEnded(): Promise<void> {
    return this.#serverProcess?.outputEnded ?? Promise.resolve();
  }

  /** The last lines the server wrote to stderr, oldest first. */
  stderrTail(): readonly string[] {
    return this.#stderrLines.snapshot();
  }

  /**
   * Spawns the server, or adopts the process spawned for it. Rejects when it cannot be started
   * (command not found, bad cwd…).
   */
  async start(): Promise<void> {
    if (this.#child !== undefined) throw new Error('transport already started');
    const serverProcess = this.#options.process ?? new ServerProcess(this.#options);
    const child = serverProcess.child;
    this.#child = child;
    this.#serverProcess = serverProcess;
    child.on('error', (error) => {
      // A failure to start is the start's outcome (below); anything later is the transport's.
      if (child.pid !== undefined) this.onerror?.(error);
    });
    void serverProcess.exited.then((exit) => {
      this.#handleExit(exit);
    });
    serverProcess.adopt({
      stdout: (chunk) => {
        this.#handleStdout(chunk);
      },
      stdoutEnd: () => {
        this.#handleStdoutEnd();
      },
      stderr: (chunk) => {
        this.#handleStderr(chunk);
      },
      stderrEnd: () => {
        const rest = this.#stderrSplitter.flush();
        if (rest !== undefined) this.#recordStderr(rest);
      },
    });
    child.stdin.on('error', (error) => {
      this.#options.onDebug?.(`stdin: ${error.message}`);
    });
    const outcome = await serverProcess.started;
    if (outcome.kind === 'failed') {
      this.#groupFinished = true;
      throw spawnFailureError(this.#options, outcome.error);
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (
      stdin === undefined ||
      this.#exitInfo !== undefined ||
      this.#closing !== undefined ||
      !stdin.writable
    ) {
      return Promise.reject(new Error('the server process is not running'));
    }
    const id = requestIdOf(message);
    if (id !== undefined) this.#unanswered.add(id);
    const written = new Promise<void>((resolve, reject) => {
      stdin.write(serializeMessage(message), (error) => {
        if (error) reject(error);
        else resolve();
      });
    });
    this.#probeWatch.sent(message);
    return written;
  }

  /**
   * Ends the server: closes its stdin, sends SIGTERM to its process group, and SIGKILL when the
   * group is still there after the grace period. Resolves when that is done. Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  /** Kills the whole process group at once, synchronously (for a process `exit` handler). */
  killSync(): void {
    this.#signalGroup('SIGKILL');
    this.#groupFinished = true;
  }

  #handleStdout(chunk: Buffer): void {
    for (const line of this.#stdoutLines.push(chunk)) {
      if (typeof line !== 'string') {
        this.#handleOversize(line);
        continue;
      }
      if (line.trim() === '') continue;
      let message: JSONRPCMessage;
      try {
        message = deserializeMessage(line);
      } catch (error) {
        const reason = error instanceof SyntaxError ? 'not JSON' : 'not a JSON-RPC message';
        this.#options.onDebug?.(`skipped a stdout line (${reason}): ${truncate(line)}`);
        continue;
      }
      if ('id' in message && !('method' in message) && message.id !== undefined)
        this.#unanswered.delete(message.id);
      if (this.#probeWatch.received(message)) this.onmessage?.(message);
    }
  }

  /** Ends the request an oversized answer was for, so that it fails now and says why. */
  #handleOversize(line: OversizeLine): void {
    const only = this.#unanswered.size === 1 ? [...this.#unanswered][0] : undefined;
    const id = responseIdAtEdges(line.head, line.tail) ?? only;
    const what = `a message of ${line.bytes} bytes (over the limit of ${this.#maxMessageBytes})`;
    if (id === undefined || !this.#unanswered.has(id)) {
      this.#options.onDebug?.(`dropped ${what}: it answers none of our requests`);
      return;
    }
    this.#options.onDebug?.(`dropped ${what}, the answer to request ${String(id)}`);
    this.#unanswered.delete(id);
    this.onmessage?.(
      oversizeResponse(id, { bytes: line.bytes, atLeast: false, limitBytes: this.#maxMessageBytes }),
    );
  }

  #handleStdoutEnd(): void {
    if (this.#exitInfo !== undefined || this.#closing !== undefined) return;
    setTimeout(() => {
      if (this.#exitInfo !== undefined || this.#closing !== undefined) return;
      this.#stdoutClosedAlive = true;
      this.#options.onDebug?.('the server closed its stdout but still runs: it is down');
      this.#reportClose();
      // It can never answer again: end it and whatever it started.
      void this.close();
    }, STDOUT_CLOSED_GRACE_MS).unref();
  }

  #handleStderr(chunk: Buffer): void {
    for (const line of this.#stderrSplitter.push(chunk)) {
      this.#recordStderr(typeof line === 'string' ? line : `[a stderr line of ${line.bytes} bytes, dropped]`);
    }
  }

  #recordStderr(line: string): void {
    this.#stderrLines.add(line);
    this.#stderrLineCount += 1;
    if (this.#stderrHead.length < STDERR_HEAD_LINES) this.#stderrHead.add(line);
    this.#options.onStderrLine?.(line);
  }

  #handleExit(exit: ProcessExit): void {
    this.#exitInfo = exit;
    this.#resolveExited(exit);
    if (this.#closing !== undefined) return;
    // Read what the server wrote before it exited (a last answer, a last error line), then report.
    const drained = this.#serverProcess?.outputEnded ?? Promise.resolve();
    const timer = sleep(STDOUT_DRAIN_MS, undefined, { ref: false });
    void Promise.race([drained, timer])
      .then(() => {
        this.#reportClose();
        // Whatever the server started is still in its group: end it too.
        return this.close();
      })
      // A throwing onclose handler must not become an unhandled rejection that ends the host.
      .catch((error: unknown) => {
        this.#options.onDebug?.(`while handling the exit: ${String(error)}`);
      });
  }

  async #shutdown(): Promise<void> {
    this.#probeWatch.stop();
    const child = this.#child;
    if (child !== undefined && !this.#groupFinished) {
      if (this.#exitInfo === undefined) child.stdin.end();
      this.#signalGroup('SIGTERM');
      const deadline = Date.now() + (this.#options.killGraceMs ?? DEFAULT_KILL_GRACE_MS);
      // Zombies do not count (orphaned ones wait for a slow init in some containers).
      while (this.#groupAlive() && Date.now() < deadline) {
        // A referenced timer on purpose: the host must stay alive until its servers are gone
        // (an unreferenced one lets Node exit mid-shutdown with an unsettled promise).
        await sleep(GROUP_POLL_MS);
      }
      if (this.#groupAlive()) this.#signalGroup('SIGKILL');
      this.#groupFinished = true;
    }
    if (child !== undefined) {
      // Read its last output (stderr says why; without zombies the group is seen gone first). The
      // timer is unreferenced: left pending after the output ended, it held the host's exit 250 ms.
      await Promise.race([this.outputEnded, sleep(STDOUT_DRAIN_MS, undefined, { ref: false })]);
      child.stdin.destroy();
      child.stdout.destroy();
      child.stderr.destroy();
    }
    this.#reportClose();
  }

  #reportClose(): void {
    if (this.#closeReported) return;
    this.#closeReported = true;
    this.onclose?.();
  }

  #signalGroup(signal: NodeJS.Signals): void {
    const pid = this.#child?.pid;
    if (pid === undefined || this.#groupFinished) return;
    try {
      if (process.platform === 'win32') this.#child?.kill(signal);
      else process.kill(-pid, signal);
    } catch {
      // ESRCH: the group is already gone.
    }
  }

  #groupAlive(): boolean {
    const pid = this.#child?.pid;
    if (pid === undefined || this.#groupFinished) return false;
    if (process.platform === 'win32') return this.#exitInfo === undefined;
    return groupHasLiveMember(pid);
  }
}

function truncate(line: string, max = 200): string {
  return line.length > max ? `${line.slice(0, max)}…` : line;
}
