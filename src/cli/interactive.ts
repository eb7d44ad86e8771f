/**
 * The chat: set up the terminal and run a {@link ChatSession} (src/cli/chat/chat-session.ts) on
 * it. Ctrl-C stops a turn; at an empty prompt, Ctrl-C twice or Ctrl-D leaves (main.ts then closes
 * the runner, servers included).
 *
 * Libraries (imported only here, never on `mcphost --help`): chalk for colors, yocto-spinner for
 * the status line, marked + marked-terminal for markdown (loaded in the background, since it
 * takes a few hundred milliseconds to import, and used once it is there), string-width for
 * measuring what is on screen.
 */
import { AbortedError } from '../core/errors.js';
import type { McpRunner } from '../setup/create-runner.js';
import { ChatSession } from './chat/chat-session.js';
import { detectDisplay, type Display } from './chat/display.js';
import { HistoryFile, historyFilePath, loadHistory } from './chat/input-history.js';
import type { MarkdownRenderer } from './chat/markdown.js';
import type { PrompterSlot } from './chat/prompter.js';
import type { PromptArgument } from '@modelcontextprotocol/client';
import type { PromptEntry } from '../mcp/prompts.js';
import type { Prompt } from '../core/runner.js';
import { completeAskedArgument } from './chat/offerings-completion.js';
import { createStatusIndicator } from './chat/status-line.js';
import type { ToolOrigin } from './chat/tool-lines.js';
import { ExitCode, type ExitCodeValue } from './exit-codes.js';
import { attachFiles, processPlaces } from './file-attachments.js';
import type { CliIO } from './io.js';
import type { ChatHost, ChatOptions } from './chat/chat-host.js';
import type { ShownLine } from './chat/turn-view.js';
import { toolSearchNotice } from './output/text.js';
import { definedProperties } from '../util/defined-properties.js';

export type { ChatApps, ChatHost, ChatOptions, ProgressSource } from './chat/chat-host.js';

export function runInteractive(runner: McpRunner, io: CliIO, options: ChatOptions): Promise<ExitCodeValue> {
  return runChat(
    {
      runner,
      ...definedProperties({ systemPrompt: runner.systemPrompt }),
      describeTools: () => runner.pool.describeTools(),
      servers: () => runner.servers,
      offerings: runner.mcp,
      serverLogs: (server) => runner.serverLogs.list(server),
      roots: {
        list: () => runner.roots,
        describe: (server) => runner.rootsOf(server).description,
        followsShared: (server) => runner.rootsOf(server).shared,
        set: (folders) => runner.setRoots(folders, '/roots'),
      },
      skills: () => runner.skills.list(),
      agentRuns: () => runner.agentRuns.runs,
      restoreAgentRuns: (runs) => runner.agentRuns.reset(runs),
      runningTasks: () => runner.pool.runningTasks.list(),
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
  const historyFile =
    options.historyPath === null
      ? undefined
      : new HistoryFile(options.historyPath ?? historyFilePath(io.env, io.homeDir));
  const earlierEntries = historyFile === undefined ? [] : await loadHistory(historyFile.path).catch(() => []);
  const status = createStatusIndicator(io.stdout, display);
  const toolSearchShown: ShownLine = { text: undefined };
  const session = new ChatSession({
    host,
    io,
    options,
    display,
    status,
    renderer: markdownRenderer(display, options.renderMarkdown),
    historyFile,
    earlierEntries,
    toolOrigins: () => toolOrigins(host),
    expandTurn: (text, signal, note) => expandTurn(host, text, options.prompter, signal, note),
    toolSearchShown,
  });
  const unbind = options.prompter?.bind(session);
  const stopProgress = options.progress?.listen((report) => session.progress(report));
  // An MCP App's message is a new turn: at once at an idle prompt, after the running turn otherwise.
  const stopApps = options.apps?.listen((message) => {
    session.post(message);
  });
  // Listings for Tab are gathered while the user reads the banner; updates of attached resources
  // are one line each.
  void host.offerings?.catalog();
  const stopHearingChanges = host.offerings?.onChange((change) => {
    if (change.type !== 'resource-updated') return;
    session.write(
      `${display.style.dim(`↻ @${change.server}:${change.uri} changed on the server (attach it again to send the new contents)`)}\n`,
    );
  });
  const onSignal = () => session.close(options.signal.reason);
  options.signal.addEventListener('abort', onSignal);
  const onResize = () => session.terminalResized();
  io.stdout.on('resize', onResize);
  try {
    await session.run(
      await banner(host, session.modelString, display.style, toolSearchShown),
      options.firstPrompt,
    );
  } finally {
    status.hide();
    unbind?.();
    stopProgress?.();
    stopApps?.();
    stopHearingChanges?.();
    options.signal.removeEventListener('abort', onSignal);
    io.stdout.off('resize', onResize);
    await session.flush();
  }
  // Ended by a signal (SIGTERM…): main.ts turns this into the signal's exit code.
  throwIfAborted(options.signal);
  return ExitCode.ok;
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new AbortedError();
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
  // `@path` files first: one that cannot be attached fails the turn before anything is sent.
  const files = await attachFiles(text, processPlaces());
  for (const line of files.notes) note(line);
  if (host.offerings === undefined) {
    return files.blocks.length === 0 ? text : [{ type: 'text', text }, ...files.blocks];
  }
  const offerings = host.offerings;
  const turn = await offerings.expandUserTurn(text, {
    signal,
    subscribe: true,
    ...definedProperties({
      askArgument:
        prompter &&
        ((prompt: PromptEntry, argument: PromptArgument, given: Readonly<Record<string, string>>) => {
          const about = argument.description === undefined ? '' : ` (${argument.description})`;
          return prompter.ask(`/${prompt.server}:${prompt.name} needs ${argument.name}${about}: `, {
            signal,
            complete: (partial) =>
              completeAskedArgument(offerings, prompt, argument.name, given, partial, signal),
          });
        }),
    }),
  });
  for (const line of turn.notes) note(line);
  return [...turn.content, ...files.blocks];
}

async function banner(
  host: ChatHost,
  modelString: string,
  style: Display['style'],
  toolSearchShown: ShownLine,
): Promise<string> {
  const servers = host.servers();
  const ready = servers.filter((server) => server.state === 'ready').length;
  const failed = servers.filter((server) => server.state === 'failed').length;
  const [described, mode] = await Promise.all([
    host.describeTools().catch(() => []),
    // The tools the model will get: all of them, or the search (said here, with how to turn it off).
    host.runner.toolMode().catch(() => undefined),
  ]);
  const tools = described.length;
  const parts = [
    `${style.bold('mcphost')} · ${modelString}`,
    `${tools} ${tools === 1 ? 'tool' : 'tools'} from ${ready} ${ready === 1 ? 'server' : 'servers'}`,
  ];
  if (failed > 0) parts.push(style.red(`${failed} failed (see /servers)`));
  const help = style.dim('/help for commands · Ctrl-C stops a turn · Ctrl-D quits');
  const lines = [parts.join(' · ')];
  if (servers.length === 0) lines.push(style.yellow(NO_SERVERS_HINT));
  if (mode?.kind === 'search') {
    toolSearchShown.text = toolSearchNotice(mode);
    lines.push(style.yellow(toolSearchShown.text));
  }
  return [...lines, help].join('\n');
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
