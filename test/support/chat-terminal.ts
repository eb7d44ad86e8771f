/**
 * The built CLI's chat in a real terminal (tmux), started as the terminal tests all start it: its
 * own HOME, a clean environment (nothing of the test process's leaks in), a fake model's URL.
 */
import { CLI } from './cli.js';
import { TmuxTerminal } from './tmux.js';

export interface ChatTerminalOptions {
  /** HOME, where `.mcp.json` and the state folder are. */
  readonly home: string;
  /** `--provider-url`: the loopback fake model. */
  readonly providerUrl: string;
  /** Flags after `--provider-url`. */
  readonly args?: readonly string[];
  /** The working folder; default `home`. */
  readonly cwd?: string;
  /** Added to (or replacing) the clean environment: PATH, HOME, TERM, LANG. */
  readonly env?: Readonly<Record<string, string>>;
  readonly columns?: number;
  readonly rows?: number;
}

/** Starts `mcphost --provider-url URL ...args` in tmux; the caller waits for what it needs on screen. */
export function startChatTerminal(options: ChatTerminalOptions): Promise<TmuxTerminal> {
  return TmuxTerminal.start({
    command: [process.execPath, CLI, '--provider-url', options.providerUrl, ...(options.args ?? [])],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: options.home,
      TERM: 'xterm-256color',
      LANG: 'C.UTF-8',
      ...options.env,
    },
    cwd: options.cwd ?? options.home,
    ...(options.columns === undefined ? {} : { columns: options.columns }),
    ...(options.rows === undefined ? {} : { rows: options.rows }),
  });
}
