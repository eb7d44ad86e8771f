/**
 * The built CLI's chat in a real terminal (tmux), started as the terminal tests all start it: its
 * own HOME, a clean environment (nothing of the test process's leaks in), a fake model's URL.
 * `useChatTerminal` registers the set-up and the teardown around each test of a file.
 */
import { CLI } from './cli.js';
import { cliFixture, type CliFixture, type CliFixtureSetup } from './cli-fixture.js';
import { TmuxTerminal } from './tmux.js';

/** The chat's prompt with the fake Ollama's default model. */
export const PROMPT = 'ollama:mistral-small ›';

export interface ChatTerminalOptions {
  /** HOME, where `.mcp.json` and the state folder are. */
  readonly home: string;
  /** `--provider-url`: the loopback fake model. */
  readonly providerUrl: string;
  /** Flags after `--provider-url`. */
  readonly args?: readonly string[] | undefined;
  /** The working folder; default `home`. */
  readonly cwd?: string;
  /** Added to (or replacing) the clean environment: PATH, HOME, TERM, LANG. */
  readonly env?: Readonly<Record<string, string>> | undefined;
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

export interface ChatStart extends Omit<ChatTerminalOptions, 'home' | 'providerUrl'> {
  /** Shown on screen when the chat is ready: default the prompt; `false` returns at once. */
  readonly ready?: string | RegExp | false;
}

export interface ChatTerminalFixture extends CliFixture {
  /**
   * Starts the chat in tmux in this test's HOME against its fake model (a chat the test started
   * before is closed first) and waits until `ready` shows. Closed after the test.
   */
  startChat(options?: ChatStart): Promise<TmuxTerminal>;
}

/**
 * The terminal tests' set-up, registered once per file: the CLI fixture (HOME, fake model,
 * folders) and the chat's terminal, closed before the model and the HOME go.
 */
export function useChatTerminal(setup: CliFixtureSetup = {}): ChatTerminalFixture {
  let terminal: TmuxTerminal | undefined;
  const closeTerminal = async (): Promise<void> => {
    const open = terminal;
    terminal = undefined;
    await open?.close();
  };
  const base = cliFixture(setup, closeTerminal);
  return {
    get home() {
      return base.home;
    },
    get model() {
      return base.model;
    },
    get hasModel() {
      return base.hasModel;
    },
    startModel: (script, options) => base.startModel(script, options),
    closeModel: () => base.closeModel(),
    temporaryFolder: (prefix) => base.temporaryFolder(prefix),
    async startChat({ ready = PROMPT, ...options } = {}) {
      await closeTerminal();
      terminal = await startChatTerminal({ home: base.home.path, providerUrl: base.model.url, ...options });
      if (ready !== false) await terminal.waitFor(ready);
      return terminal;
    },
  };
}
