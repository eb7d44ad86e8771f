/**
 * One chat on a terminal: read an entry, run it as a slash command or a turn, show what happens,
 * repeat. The history lives in the runner and is kept across turns; the model's name is the
 * runner's provider's (never a copy of it); saving goes through the one ConversationRecorder.
 *
 * The chat is in one {@link ChatMode} at a time: at the prompt, in a turn, or asking the user
 * something (during a turn or a command). What Ctrl-C, a resize, a server's message or the end of
 * the input do depends on that mode and nothing else.
 */
import { messageOf, ProviderError } from '../../core/errors.js';
import { ConversationRecorder, modelNameOf } from '../sessions/conversation-recorder.js';
import { openConversationFiles } from '../../conversation/conversation-journal.js';
import type { Prompt } from '../../core/runner.js';
import {
  parseCommand,
  promptText,
  runCommand,
  type CommandContext,
  type CommandOutcome,
} from './slash-commands.js';
import { describeError } from '../exit-codes.js';
import { userPath, type CliIO } from '../io.js';
import { conversationFolder, listConversations } from '../sessions/saved-conversations.js';
import { ChatInput } from './chat-input.js';
import { completeChatLine } from './completion.js';
import type { Display } from './display.js';
import type { HistoryFile } from './input-history.js';
import type { MarkdownRenderer } from './markdown.js';
import type { AskOptions, Prompter } from './prompter.js';
import { listTasks } from './tasks-command.js';
import type { StatusIndicator } from './status-line.js';
import type { ToolOrigin } from './tool-lines.js';
import { TurnView, type ShownLine } from './turn-view.js';
import { UsageTotals } from './usage.js';
import type { ChatHost, ChatOptions } from './chat-host.js';
import type { ToolProgress } from '../../mcp/server-connection.js';
import { mcphostFolder } from '../../util/user-folders.js';
import { definedProperties } from '../../util/defined-properties.js';
import { postedLine } from './posted-line.js';

/** A turn in progress: what stops it and what shows it. */
interface Turn {
  readonly controller: AbortController;
  readonly view: TurnView;
}

/** What the chat is doing. A tagged union: switch on `kind`. */
export type ChatMode =
  | { readonly kind: 'at-prompt' }
  | { readonly kind: 'in-turn'; readonly turn: Turn }
  /** Questions open (nested ones counted), during a turn or a command. */
  | { readonly kind: 'asking'; readonly turn: Turn | undefined; readonly open: number };

/** What the session is made of, built by `runChat` (src/cli/interactive.ts). */
export interface ChatSessionParts {
  readonly host: ChatHost;
  readonly io: CliIO;
  readonly options: ChatOptions;
  readonly display: Display;
  readonly status: StatusIndicator;
  readonly renderer: { readonly current: () => MarkdownRenderer | undefined; readonly ready: Promise<void> };
  readonly historyFile: HistoryFile | undefined;
  readonly earlierEntries: readonly string[];
  /** The origin of each exposed tool name, for the tool lines of a turn. */
  readonly toolOrigins: () => Promise<ReadonlyMap<string, ToolOrigin>>;
  /** `/server:prompt` and `@server:uri` filled in. */
  readonly expandTurn: (text: string, signal: AbortSignal, note: (line: string) => void) => Promise<Prompt>;
  /** The tool-search line last shown (by the banner or a turn): a turn shows it again only if it changed. */
  readonly toolSearchShown?: ShownLine;
}

export class ChatSession implements Prompter {
  readonly #parts: ChatSessionParts;
  readonly #input: ChatInput;
  readonly #usage = new UsageTotals();
  readonly #commands: CommandContext;
  #mode: ChatMode = { kind: 'at-prompt' };
  #historyFailed = false;

  constructor(parts: ChatSessionParts) {
    this.#parts = parts;
    const { io, display } = parts;
    this.#input = new ChatInput({
      input: io.stdin,
      output: io.stdout,
      terminal: display.terminal,
      history: parts.earlierEntries,
      style: display.style,
      completer: (line) => completeChatLine(line, [this.modelString], parts.host.offerings),
      onInterrupt: () => this.#stopTurn(),
      onEnd: () => this.#stopTurn(),
      // `/tasks` is answered during a turn too: that is when the tasks it lists run.
      onLineDuringTurn: (text) => {
        if (text.trim() !== '/tasks' || this.#turn() === undefined) return false;
        this.write(`${listTasks(parts.host.runningTasks?.() ?? [], display.style, Date.now())}\n`);
        return true;
      },
    });
    this.#commands = this.#commandContext();
  }

  /** The model in use, as `provider:model`: read from the runner's provider, its one home. */
  get modelString(): string {
    return modelNameOf(this.#parts.host.runner.provider);
  }

  get mode(): ChatMode {
    return this.#mode;
  }

  /** Reads and runs entries until /quit, the end of the input, or `close()`. */
  async run(banner: string, firstPrompt?: string): Promise<void> {
    const { io, display } = this.#parts;
    io.stdout.write(`${banner}\n`);
    // `-p … --no-exit`: the prompt is the first turn, shown as if typed at the prompt.
    if (firstPrompt !== undefined) {
      const continuation = `\n${display.style.dim('… ')}`;
      io.stdout.write(
        `${promptFor(this.modelString, display)}${firstPrompt.split('\n').join(continuation)}\n`,
      );
      await this.#runTurn(firstPrompt);
    }
    for (;;) {
      const next = await this.#input.nextEntry(promptFor(this.modelString, display));
      if (next === undefined) return;
      if (next.kind === 'posted') {
        // An app's message: shown as whose it is, and a turn as it stands (never a command, and
        // no `@file` or `@server:uri` is read for it).
        io.stdout.write(postedLine(display, next.from, next.text));
        await this.#runTurn(next.prompt, { expand: false });
        continue;
      }
      const entry = next.text;
      if (entry.trim() === '') continue;
      this.#remember(entry);
      const command = parseCommand(entry);
      if (command === undefined) {
        await this.#runTurn(promptText(entry));
        continue;
      }
      const outcome = await runCommand(command, this.#commands).catch((error: unknown): CommandOutcome => ({
        kind: 'error',
        text: describeError(error, this.#parts.options.debug),
      }));
      if (outcome.kind === 'quit') return;
      if (outcome.kind === 'show') io.stdout.write(`${outcome.text}\n`);
      else io.stderr.write(`${display.style.red(outcome.text)}\n`);
    }
  }

  /**
   * A message for the model from elsewhere (an MCP App's `ui/message`): a new turn, at once at an
   * idle prompt, after the running turn and the lines typed before it otherwise. `shown` is what
   * the chat shows under `from`; `prompt` what the model gets (default `shown`).
   */
  post(message: { readonly from: string; readonly shown: string; readonly prompt?: string }): void {
    this.#input.post(message.shown, message.from, message.prompt);
  }

  /** Stops the turn and the input (a signal ended the chat; its `reason` goes to the turn). */
  close(reason?: unknown): void {
    this.#stopTurn(reason);
    this.#input.close();
  }

  /** A running tool's progress, in the status line of the turn that runs it. */
  progress(report: ToolProgress): void {
    this.#turn()?.view.progress(report);
  }

  /** Redraws the turn for a new terminal width. */
  terminalResized(): void {
    this.#turn()?.view.terminalResized();
  }

  /** Saves what is left of the input history. */
  async flush(): Promise<void> {
    this.#input.close();
    await this.#parts.historyFile?.flush();
  }

  /** {@link Prompter}: asks on the chat's own prompt, with the turn's spinner out of the way. */
  async ask(question: string, options?: AskOptions): Promise<string> {
    const turn = this.#turn();
    const open = this.#mode.kind === 'asking' ? this.#mode.open : 0;
    // The tool call's id: the time its approval question is on screen is not the tool's time.
    if (open === 0) turn?.view.suspend(options?.toolCallId);
    this.#mode = { kind: 'asking', turn, open: open + 1 };
    try {
      return await this.#input.ask(question, options);
    } finally {
      this.#mode = this.#afterQuestion(turn);
    }
  }

  /** {@link Prompter}: shows text above the prompt, or in the turn with its spinner paused. */
  write(text: string): void {
    const mode = this.#mode;
    switch (mode.kind) {
      case 'at-prompt':
        // A server warning between turns: print above the prompt, then redraw it.
        this.#input.printAbove(text);
        return;
      case 'in-turn':
        mode.turn.view.suspend();
        this.#parts.io.stdout.write(text);
        // A question usually follows at once; if none does, the spinner comes back.
        setImmediate(() => {
          if (this.#mode.kind === 'in-turn') this.#mode.turn.view.resume();
        });
        return;
      case 'asking':
        this.#parts.io.stdout.write(text);
        return;
      default: {
        const unexpected: never = mode;
        throw new TypeError(`unknown chat mode ${JSON.stringify(unexpected)}`);
      }
    }
  }

  #afterQuestion(turn: Turn | undefined): ChatMode {
    const open = this.#mode.kind === 'asking' ? this.#mode.open - 1 : 0;
    if (open > 0) return { kind: 'asking', turn, open };
    turn?.view.resume();
    return turn === undefined ? { kind: 'at-prompt' } : { kind: 'in-turn', turn };
  }

  #turn(): Turn | undefined {
    const mode = this.#mode;
    switch (mode.kind) {
      case 'at-prompt':
        return undefined;
      case 'in-turn':
      case 'asking':
        return mode.turn;
      default: {
        const unexpected: never = mode;
        throw new TypeError(`unknown chat mode ${JSON.stringify(unexpected)}`);
      }
    }
  }

  /** `reason`: the stop's, such as TasksLeftRunning (a closed terminal leaves tasks running). */
  #stopTurn(reason?: unknown): void {
    this.#turn()?.controller.abort(reason);
  }

  /**
   * Runs one turn; `retry` is false for the second try after pulling a missing model; `expand`
   * false sends the text as it is (an app's message: no `@file` or `@server:uri` read for it).
   */
  async #runTurn(text: string, { retry = true, expand = true } = {}): Promise<void> {
    const { io, display, host, options, renderer, status } = this.#parts;
    await renderer.ready;
    const controller = new AbortController();
    const view = new TurnView({
      stdout: io.stdout,
      stderr: io.stderr,
      display,
      status,
      renderer: renderer.current,
      origins: await this.#parts.toolOrigins(),
      usage: this.#usage,
      contextUsage: () => host.runner.contextUsage,
      debug: options.debug,
      ...definedProperties({ toolSearchShown: this.#parts.toolSearchShown }),
    });
    this.#mode = { kind: 'in-turn', turn: { controller, view } };
    view.start();
    try {
      const prompt = expand
        ? await this.#parts.expandTurn(text, controller.signal, (note) => {
            io.stderr.write(`${display.style.dim(note)}\n`);
          })
        : text;
      const result = await host.runner.run(prompt, {
        signal: controller.signal,
        onEvent: (event) => view.onEvent(event),
      });
      view.succeeded(result);
    } catch (error) {
      // A failed turn is shown and the chat goes on.
      view.failed(error);
      // An Ollama model that is not pulled: offered, pulled with a progress bar, and the turn tried again.
      if (retry && (await this.#offerPull(error, controller.signal))) {
        this.#mode = { kind: 'at-prompt' };
        await this.#runTurn(text, { retry: false, expand });
        return;
      }
    } finally {
      this.#mode = { kind: 'at-prompt' };
    }
    // A blank line between one turn and the next prompt.
    io.stdout.write('\n');
  }

  async #offerPull(error: unknown, signal: AbortSignal): Promise<boolean> {
    if (!(error instanceof ProviderError) || error.missingModel === undefined) return false;
    const { offerModelPull } = await import('./model-pull.js');
    return offerModelPull(error, {
      provider: this.#parts.host.runner.provider,
      prompter: this,
      display: this.#parts.display,
      stdout: this.#parts.io.stdout,
      signal,
    });
  }

  #remember(entry: string): void {
    this.#parts.historyFile?.add(entry).catch((error: unknown) => {
      if (this.#historyFailed) return;
      this.#historyFailed = true;
      const { io, display } = this.#parts;
      io.stderr.write(
        `${display.style.yellow(`mcphost: could not save the input history: ${messageOf(error)}`)}\n`,
      );
    });
  }

  /** What slash commands may use of this chat. */
  #commandContext(): CommandContext {
    const { host, io, options, display } = this.#parts;
    const recorder = options.recorder;
    // Without a recorder (the library, tests) /save still writes a copy; /resume is not offered.
    const copies = recorder ?? new ConversationRecorder();
    return {
      runner: host.runner,
      describeTools: () => host.describeTools(),
      servers: () => host.servers(),
      usage: this.#usage,
      modelString: () => this.modelString,
      switchModel: async (next) => {
        if (options.createProvider === undefined) throw new Error('switching models is not available here');
        const replaced = host.runner.provider;
        host.runner.provider = await options.createProvider(next);
        // An embedded model holds gigabytes: the one switched away from is released now.
        await replaced.close?.();
      },
      saveConversation: async (path) => {
        const absolute = userPath(io, path);
        const runs = host.agentRuns?.();
        await copies.saveCopy(
          {
            provider: host.runner.provider,
            systemPrompt: host.systemPrompt,
            history: host.runner.history,
            ...(runs === undefined ? {} : { agentRuns: { runs } }),
          },
          absolute,
        );
        return absolute;
      },
      ask: (question) => this.ask(question),
      ...definedProperties({ permissions: options.permissions }),
      ...(recorder === undefined ? {} : { savedConversations: this.#savedConversations(recorder) }),
      style: display.style,
      columns: () => display.columns(),
      debug: options.debug,
      ...definedProperties({ offerings: host.offerings, roots: host.roots }),
      ...(host.skills === undefined ? {} : { skills: () => host.skills?.() ?? Promise.resolve([]) }),
      ...(host.agentRuns === undefined ? {} : { agentRuns: () => host.agentRuns?.() ?? [] }),
      ...(host.runningTasks === undefined ? {} : { runningTasks: () => host.runningTasks?.() ?? [] }),
      ...(options.apps === undefined ? {} : { apps: options.apps.show.bind(options.apps) }),
      ...(host.serverLogs === undefined
        ? {}
        : { serverLogs: (server?: string) => host.serverLogs?.(server) ?? [] }),
    };
  }

  /** `/resume`: this folder's saved conversations, and taking one up in place of this one. */
  #savedConversations(recorder: ConversationRecorder): NonNullable<CommandContext['savedConversations']> {
    const { host, io } = this.#parts;
    const folder = conversationFolder(mcphostFolder('state', io.homeDir, io.env), io.cwd);
    return {
      list: () => listConversations(folder),
      takeUp: async (path) => {
        const opened = await openConversationFiles({ both: path });
        const messages = opened.loaded?.messages ?? [];
        host.runner.reset(messages);
        host.restoreAgentRuns?.(opened.loaded?.agentRuns ?? []);
        recorder.switchTo(opened.journal);
        // Saved at once under the model in use, so that the file says which model goes on with it.
        await recorder.recordChange(host.runner, host.runner.history);
        return messages;
      },
    };
  }
}

/** `ollama:mistral-small › ` */
function promptFor(modelString: string, display: Display): string {
  return `${display.style.cyan(modelString)} ${display.style.bold('›')} `;
}
