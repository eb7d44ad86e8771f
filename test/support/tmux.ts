/**
 * Driving a program in a real terminal: tmux on its own socket (`tmux -L`), one session with a
 * fixed size, keys sent with `send-keys`, the screen read with `capture-pane`. Waiting is polling
 * the screen until a condition holds, with a deadline that only turns a hang into a clear failure.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { liveGroupMembers } from './processes.js';

/** True when a `tmux` binary can be run. */
export function tmuxAvailable(): boolean {
  return spawnSync('tmux', ['-V'], { stdio: 'ignore' }).status === 0;
}

export interface TerminalOptions {
  /** The program and its arguments. */
  readonly command: readonly string[];
  /** The program's whole environment (nothing is inherited from the test process). */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly columns?: number;
  readonly rows?: number;
}

export interface CaptureOptions {
  /** Keep colors and attributes as escape sequences (`capture-pane -e`). */
  readonly escapes?: boolean;
  /** The visible screen only, instead of the scrollback too. */
  readonly visibleOnly?: boolean;
}

const SESSION = 'main';
const EXIT_MARKER = '[exit status ';
let counter = 0;

/** One program running in its own tmux server. */
export class TmuxTerminal {
  readonly socket: string;
  readonly #folder: string;

  private constructor(socket: string, folder: string) {
    this.socket = socket;
    this.#folder = folder;
  }

  static async start(options: TerminalOptions): Promise<TmuxTerminal> {
    const folder = await mkdtemp(join(tmpdir(), 'mcphost-tmux-'));
    const socket = `mcphost-test-${process.pid}-${++counter}-${Math.random().toString(36).slice(2, 8)}`;
    const config = join(folder, 'tmux.conf');
    // The pane stays after the program exits, so the test can read its exit status and last screen.
    await writeFile(
      config,
      ['set -g remain-on-exit on', 'set -g history-limit 10000', 'set -g status off', ''].join('\n'),
    );
    const terminal = new TmuxTerminal(socket, folder);
    const environment = Object.entries(options.env).map(([key, value]) => `${key}=${value}`);
    terminal.#tmux(
      [
        '-f',
        config,
        'new-session',
        '-d',
        '-s',
        SESSION,
        '-x',
        String(options.columns ?? 100),
        '-y',
        String(options.rows ?? 30),
      ],
      // The status is printed by a shell around the program: tmux's own `pane_dead_status` is not
      // always filled in.
      [
        '-c',
        options.cwd,
        'env',
        '-i',
        ...environment,
        'sh',
        '-c',
        `"$@"; echo "${EXIT_MARKER}$?]"`,
        'sh',
        ...options.command,
      ],
    );
    return terminal;
  }

  /** Sends keys by tmux name (`Enter`, `C-c`, `C-d`, `Up`, `Tab`). */
  keys(...keys: string[]): void {
    this.#tmux(['send-keys', '-t', SESSION, ...keys]);
  }

  /** Types text as it is (no key names). */
  type(text: string): void {
    this.#tmux(['send-keys', '-t', SESSION, '-l', text]);
  }

  /** Pastes text the way a terminal does: bracketed, if the program asked for it. */
  paste(text: string): void {
    const result = spawnSync('tmux', ['-L', this.socket, 'load-buffer', '-b', 'test', '-'], { input: text });
    if (result.status !== 0) throw new Error(`tmux load-buffer failed: ${result.stderr.toString()}`);
    this.#tmux(['paste-buffer', '-p', '-d', '-b', 'test', '-t', SESSION]);
  }

  /** The screen (and scrollback) as text, trailing spaces trimmed, wrapped lines joined. */
  capture(options: CaptureOptions = {}): string {
    const range = options.visibleOnly === true ? [] : ['-S', '-', '-E', '-'];
    const text = this.#tmux([
      'capture-pane',
      '-p',
      '-J',
      ...(options.escapes === true ? ['-e'] : []),
      ...range,
      '-t',
      SESSION,
    ]);
    return text
      .split('\n')
      .map((line) => line.trimEnd())
      .join('\n')
      .trimEnd();
  }

  /**
   * Polls the screen until `condition` holds (a substring, a pattern or a predicate) and returns
   * it. Fails after `timeoutMs` with the screen in the message.
   */
  async waitFor(
    condition: string | RegExp | ((screen: string) => boolean),
    options: CaptureOptions & { readonly timeoutMs?: number } = {},
  ): Promise<string> {
    const test =
      typeof condition === 'string'
        ? (screen: string) => screen.includes(condition)
        : condition instanceof RegExp
          ? (screen: string) => condition.test(screen)
          : condition;
    const deadline = Date.now() + (options.timeoutMs ?? 20_000);
    for (;;) {
      const screen = this.capture(options);
      if (test(screen)) return screen;
      if (Date.now() > deadline) {
        throw new Error(`the terminal never showed ${String(condition)}; the screen:\n${screen}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** The program's exit status once it has exited, else undefined. */
  exitStatus(): number | undefined {
    const screen = this.capture();
    const index = screen.lastIndexOf(EXIT_MARKER);
    if (index === -1) return undefined;
    const status = /^(\d+)\]/.exec(screen.slice(index + EXIT_MARKER.length));
    return status?.[1] === undefined ? undefined : Number(status[1]);
  }

  /** Waits for the program to exit and returns its status. */
  async waitForExit(timeoutMs = 20_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const status = this.exitStatus();
      if (status !== undefined) return status;
      if (Date.now() > deadline) throw new Error(`the program did not exit; the screen:\n${this.capture()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /**
   * Ends the tmux server (and the program, if it still runs), waits for the program to be gone, and
   * removes the temporary files. The wait matters: a chat ended this way (SIGHUP) still saves its
   * conversation on the way out, into the HOME the test removes next.
   */
  async close(): Promise<void> {
    const group = this.#panePid();
    spawnSync('tmux', ['-L', this.socket, 'kill-server'], { stdio: 'ignore' });
    if (group !== undefined) await waitUntilGroupGone(group, 10_000);
    await rm(this.#folder, { recursive: true, force: true });
  }

  /**
   * The pane's first process (`env`, then the `sh` around the program), while the tmux server is
   * there. tmux makes it a session and process group leader, and the program is in its group.
   */
  #panePid(): number | undefined {
    try {
      const pid = Number(this.#tmux(['display-message', '-p', '-t', SESSION, '#{pane_pid}']).trim());
      return Number.isInteger(pid) && pid > 0 ? pid : undefined;
    } catch {
      return undefined; // The tmux server is gone already.
    }
  }

  #tmux(argumentsBefore: readonly string[], argumentsAfter: readonly string[] = []): string {
    const result = spawnSync('tmux', ['-L', this.socket, ...argumentsBefore, ...argumentsAfter], {
      encoding: 'utf8',
    });
    if (result.status !== 0) {
      throw new Error(
        `tmux ${argumentsBefore.join(' ')} failed (${String(result.status)}): ${result.stderr}`,
      );
    }
    return result.stdout;
  }
}

/**
 * Polls until no live process is left in the process group: the shell around the program ends at
 * once on SIGHUP, the program may take a moment. A dead one counts as gone even while it waits, a
 * zombie, to be reaped (where init reaps slowly, as here, `kill(-group, 0)` would wait for that
 * too). Gives up at the deadline.
 */
async function waitUntilGroupGone(group: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && liveGroupMembers(group).length > 0) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
