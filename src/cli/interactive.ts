/**
 * The chat: read an entry, run it as a slash command or a turn, show what happens, repeat. The
 * history is kept across turns. Ctrl-C stops a turn; at an empty prompt, Ctrl-C twice or Ctrl-D
 * leaves (main.ts then closes the runner, servers included).
 *
 * Libraries (imported only here, never on `mcphost --help`): chalk for colors, yocto-spinner for
 * the status line, marked + marked-terminal for markdown (loaded in the background, since it
 * takes a few hundred milliseconds to import, and used once it is there), string-width for
 * measuring what is on screen.
 */
import { AbortedError, messageOf } from '../errors.js';
import type { ToolDescription } from '../mcp/pool.js';
import type { ServerStatus } from '../mcp/status.js';
import { optional } from '../optional.js';
import { parseModelString } from '../../providers/index.js';
import type { Runner } from '../runner.js';
import { saveConversation } from '../saved-conversation.js';
import type { McpRunner } from '../setup/create-runner.js';
import type { Provider } from '../types.js';
import { ChatInput } from './chat/chat-input.js';
import { completeChatLine } from './chat/completion.js';
import { completeAskedArgument } from './chat/offerings-completion.js';
import { detectDisplay, type Display } from './chat/display.js';
import { HistoryFile, historyFilePath, loadHistory } from './chat/input-history.js';
import type { MarkdownRenderer } from './chat/markdown.js';
import type { PrompterSlot } from './chat/prompter.js';
import type { PromptArgument } from '@modelcontextprotocol/client';
import type { PromptEntry } from '../mcp/prompts.js';
import type { ServerOfferings } from '../mcp/server-offerings.js';
import type { ServerLogRecord } from '../mcp/server-logs.js';
import type { Prompt } from '../runner.js';
import { createStatusIndicator } from './chat/status-line.js';
import type { ToolOrigin } from './chat/tool-lines.js';
import { TurnView } from './chat/turn-view.js';
import { UsageTotals } from './chat/usage.js';
import {
  parseCommand,
  promptText,
  runCommand,
  type CommandContext,
  type CommandOutcome,
} from './commands.js';
import { describeError, ExitCode, type ExitCodeValue } from './exit-codes.js';
import { userPath, type CliIO } from './io.js';

export interface ChatOptions {
  /** The model in use, as `provider:model` (shown in the prompt). */
  readonly modelString: string;
  readonly debug: boolean;
  /** Aborted on SIGTERM/SIGHUP: the chat ends (and so do the servers). */
  readonly signal: AbortSignal;
  /** False with --no-color: plain text, as with NO_COLOR. Default true. */
  readonly color?: boolean;
  /**
   * Creates a provider for `/model`; without it, `/model` only shows the model in use.
   * `sameProvider` is true when the model belongs to the provider the chat started with: the
   * provider URL and key given for that one (flags, config) are meant for it, not for another.
   */
  readonly createProvider?: (modelString: string, sameProvider: boolean) => Promise<Provider>;
  /** Bound to the chat while it runs, to ask the user something during a turn. */
  readonly prompter?: PrompterSlot;
  /** The input history file; default `$XDG_STATE_HOME/mcphost/history`; null keeps none. */
  readonly historyPath?: string | null;
  /** A markdown renderer to use at once (tests); by default marked-terminal, loaded in the background. */
  readonly renderMarkdown?: MarkdownRenderer;
}

/** What the chat needs besides the runner: tool and server listings. */
export interface ChatHost {
  readonly runner: Runner;
  /** Saved with the conversation by `/save`. */
  readonly systemPrompt?: string;
  describeTools(): Promise<readonly ToolDescription[]>;
  servers(): readonly ServerStatus[];
  /** Resources and prompts: `@server:uri` and `/server:prompt` in a message, `/resources`, `/prompts`. */
  readonly offerings?: ServerOfferings;
  /** The servers' kept log messages, for `/logs`. */
  serverLogs?(server?: string): readonly ServerLogRecord[];
}

export function runInteractive(runner: McpRunner, io: CliIO, options: ChatOptions): Promise<ExitCodeValue> {
  return runChat(
    {
      runner,
      ...optional('systemPrompt', runner.systemPrompt),
      describeTools: () => runner.pool.describeTools(),
      servers: () => runner.servers,
      offerings: runner.mcp,
      serverLogs: (server) => runner.serverLogs.list(server),
    },
    io,
    options,
  );
}

/** Runs the chat until /quit, Ctrl-D, Ctrl-C twice, the end of the input, or `options.signal`. */
export async function runChat(host: ChatHost, io: CliIO, options: ChatOptions): Promise<ExitCodeValue> {
  throwIfAborted(options.signal);
  const display = detectDisplay({
    stdin: io.stdin,
    stdout: io.stdout,
    env: io.env,
    color: options.color ?? true,
  });
  const { style } = display;
  const renderer = markdownRenderer(display, options.renderMarkdown);
  const historyFile =
    options.historyPath === null
      ? undefined
      : new HistoryFile(options.historyPath ?? historyFilePath(io.env, io.homeDir));
  const earlier = historyFile === undefined ? [] : await loadHistory(historyFile.path).catch(() => []);
  const usage = new UsageTotals();
  const status = createStatusIndicator(io.stdout, display);
  let modelString = options.modelString;
  const startedAt = new Date().toISOString();
  let turn: { readonly controller: AbortController; readonly view: TurnView } | undefined;
  let openQuestions = 0;

  const input = new ChatInput({
    input: io.stdin,
    output: io.stdout,
    terminal: display.terminal,
    history: earlier,
    style,
    completer: (line) => completeChatLine(line, [modelString], host.offerings),
    onInterrupt: () => turn?.controller.abort(),
    onEnd: () => turn?.controller.abort(),
  });
  const unbind = options.prompter?.bind({
    ask: async (question, askOptions) => {
      if (openQuestions++ === 0) turn?.view.suspend();
      try {
        return await input.ask(question, askOptions);
      } finally {
        if (--openQuestions === 0) turn?.view.resume();
      }
    },
    write: (text) => {
      writeAside(text);
    },
  });
  function writeAside(text: string): void {
    if (turn === undefined) {
      // At the prompt (a server warning between turns): print above it, then redraw it.
      input.printAbove(text);
      return;
    }
    turn.view.suspend();
    io.stdout.write(text);
    // A question usually follows at once; if none does, the spinner comes back.
    setImmediate(() => {
      if (openQuestions === 0) turn?.view.resume();
    });
  }
  // Listings for Tab are gathered while the user reads the banner; updates of attached resources
  // are one line each.
  void host.offerings?.catalog();
  const stopHearingChanges = host.offerings?.onChange((change) => {
    if (change.type !== 'resource-updated') return;
    writeAside(
      `${style.dim(`↻ @${change.server}:${change.uri} changed on the server (attach it again to send the new contents)`)}\n`,
    );
  });
  const onSignal = () => {
    turn?.controller.abort();
    input.close();
  };
  options.signal.addEventListener('abort', onSignal);
  const onResize = () => turn?.view.terminalResized();
  io.stdout.on('resize', onResize);
  let historyFailed = false;
  const remember = (entry: string) => {
    historyFile?.add(entry).catch((error: unknown) => {
      if (historyFailed) return;
      historyFailed = true;
      const reason = messageOf(error);
      io.stderr.write(`${style.yellow(`mcphost: could not save the input history: ${reason}`)}\n`);
    });
  };

  const context: CommandContext = {
    runner: host.runner,
    describeTools: () => host.describeTools(),
    servers: () => host.servers(),
    usage,
    modelString: () => modelString,
    switchModel: async (next) => {
      if (options.createProvider === undefined) throw new Error('switching models is not available here');
      const sameProvider = parseModelString(next, '/model').provider === providerOf(options.modelString);
      host.runner.provider = await options.createProvider(next, sameProvider);
      modelString = next;
    },
    saveSession: async (path) => {
      const absolute = userPath(io, path);
      await saveConversation(absolute, {
        model: modelString,
        ...optional('systemPrompt', host.systemPrompt),
        createdAt: startedAt,
        updatedAt: new Date().toISOString(),
        messages: host.runner.history,
      });
      return absolute;
    },
    style,
    columns: () => display.columns(),
    debug: options.debug,
    ...optional('offerings', host.offerings),
    ...(host.serverLogs === undefined
      ? {}
      : { serverLogs: (server?: string) => host.serverLogs?.(server) ?? [] }),
  };

  const runTurn = async (text: string): Promise<void> => {
    await renderer.ready;
    const controller = new AbortController();
    const view = new TurnView({
      stdout: io.stdout,
      stderr: io.stderr,
      display,
      status,
      renderer: renderer.current,
      origins: await toolOrigins(host),
      usage,
      contextUsage: () => host.runner.contextUsage,
      debug: options.debug,
    });
    turn = { controller, view };
    view.start();
    try {
      const prompt = await expandTurn(host, text, options.prompter, controller.signal, (note) => {
        io.stderr.write(`${style.dim(note)}\n`);
      });
      const result = await host.runner.run(prompt, {
        signal: controller.signal,
        onEvent: (event) => {
          view.onEvent(event);
        },
      });
      view.succeeded(result);
    } catch (error) {
      // A failed turn is shown and the chat goes on.
      view.failed(error);
    } finally {
      turn = undefined;
    }
    // A blank line between one turn and the next prompt.
    io.stdout.write('\n');
  };

  try {
    io.stdout.write(`${await banner(host, modelString, style)}\n`);
    for (;;) {
      const entry = await input.next(promptFor(modelString, display));
      if (entry === undefined) break;
      if (entry.trim() === '') continue;
      remember(entry);
      const command = parseCommand(entry);
      if (command === undefined) {
        await runTurn(promptText(entry));
        continue;
      }
      const outcome = await runCommand(command, context).catch((error: unknown): CommandOutcome => ({
        kind: 'error',
        text: describeError(error, options.debug),
      }));
      if (outcome.kind === 'quit') break;
      if (outcome.kind === 'show') io.stdout.write(`${outcome.text}\n`);
      else io.stderr.write(`${style.red(outcome.text)}\n`);
    }
  } finally {
    status.hide();
    unbind?.();
    stopHearingChanges?.();
    options.signal.removeEventListener('abort', onSignal);
    io.stdout.off('resize', onResize);
    input.close();
    await historyFile?.flush();
  }
  // Ended by a signal (SIGTERM…): main.ts turns this into the signal's exit code.
  throwIfAborted(options.signal);
  return ExitCode.ok;
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new AbortedError();
}

function providerOf(modelString: string): string | undefined {
  try {
    return parseModelString(modelString).provider;
  } catch {
    return undefined;
  }
}

/** `ollama:mistral-small › ` */
function promptFor(modelString: string, display: Display): string {
  return `${display.style.cyan(modelString)} ${display.style.bold('›')} `;
}

/** Said when the model would have no tools at all: how to give it some. */
export const NO_SERVERS_HINT =
  'No MCP servers are configured, so the model has no tools. Try `mcphost --builtin fs,todo` for the built-in ones, or add servers to ~/.mcp.json (see docs/builtin-servers.md).';

/**
 * `/server:prompt args` and `@server:uri` filled in through the servers; a missing required
 * prompt argument is asked on the chat's own prompt. Plain text when there are no servers.
 */
async function expandTurn(
  host: ChatHost,
  text: string,
  prompter: PrompterSlot | undefined,
  signal: AbortSignal,
  note: (line: string) => void,
): Promise<Prompt> {
  if (host.offerings === undefined) return text;
  const offerings = host.offerings;
  const turn = await offerings.expandUserTurn(text, {
    signal,
    subscribe: true,
    ...optional(
      'askArgument',
      prompter &&
        ((prompt: PromptEntry, argument: PromptArgument, given: Readonly<Record<string, string>>) => {
          const about = argument.description === undefined ? '' : ` (${argument.description})`;
          return prompter.ask(`/${prompt.server}:${prompt.name} needs ${argument.name}${about}: `, {
            signal,
            complete: (partial) =>
              completeAskedArgument(offerings, prompt, argument.name, given, partial, signal),
          });
        }),
    ),
  });
  for (const line of turn.notes) note(line);
  return turn.content;
}

async function banner(host: ChatHost, modelString: string, style: Display['style']): Promise<string> {
  const servers = host.servers();
  const ready = servers.filter((server) => server.state === 'ready').length;
  const failed = servers.filter((server) => server.state === 'failed').length;
  const tools = (await host.describeTools().catch(() => [])).length;
  const parts = [
    `${style.bold('mcphost')} · ${modelString}`,
    `${tools} ${tools === 1 ? 'tool' : 'tools'} from ${ready} ${ready === 1 ? 'server' : 'servers'}`,
  ];
  if (failed > 0) parts.push(style.red(`${failed} failed (see /servers)`));
  const help = style.dim('/help for commands · Ctrl-C stops a turn · Ctrl-D quits');
  return servers.length === 0
    ? `${parts.join(' · ')}\n${style.yellow(NO_SERVERS_HINT)}\n${help}`
    : `${parts.join(' · ')}\n${help}`;
}

async function toolOrigins(host: ChatHost): Promise<ReadonlyMap<string, ToolOrigin>> {
  try {
    const tools = await host.describeTools();
    return new Map(tools.map((tool) => [tool.exposedName, { server: tool.server, tool: tool.tool }]));
  } catch {
    return new Map();
  }
}

/**
 * The markdown renderer, loading in the background from the start of the chat (it takes a few
 * hundred milliseconds to import). `ready` settles once it is there, or failed to load: a turn
 * waits for it, so that its answer is rendered, which costs nothing once the user has typed.
 */
function markdownRenderer(
  display: Display,
  given: MarkdownRenderer | undefined,
): { readonly current: () => MarkdownRenderer | undefined; readonly ready: Promise<void> } {
  if (!display.rich) return { current: () => undefined, ready: Promise.resolve() };
  if (given !== undefined) return { current: () => given, ready: Promise.resolve() };
  let loaded: MarkdownRenderer | undefined;
  const ready = import('./chat/markdown.js').then(
    (module) => {
      loaded = module.createMarkdownRenderer(display.style);
    },
    // Without it, answers stay raw markdown, which reads fine.
    () => undefined,
  );
  return { current: () => loaded, ready };
}
