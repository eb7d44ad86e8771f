/**
 * The Runner: owns one conversation and loops model call → tool calls → model call until the model
 * answers or the step limit is reached. It prints nothing; it reports through events.
 */
import {
  ContextBudget,
  type Compaction,
  type CompactionReason,
  type ContextUsage,
} from '../context/context-budget.js';
import { ToolCatalog, type StepTools, type ToolMode } from '../context/tool-catalog.js';
import { MaxStepsError, ProviderError, StructuredOutputError, throwIfCancelled } from './errors.js';
import type { RunResult, RunnerEvent, ToolCallRecord } from './events.js';
import { callModel, modelCallOptionsOf } from './model-call.js';
import { checkToolCalls, toolCallIdsIn } from './model-output.js';
import { markToolMessages } from '../safety/untrusted-content.js';
import { addUsage, stopReasonOf, ZERO_USAGE } from './run-accounting.js';
import {
  DEFAULT_MAX_STEPS,
  type CompactOptions,
  type Prompt,
  type RunOptions,
  type RunnerOptions,
} from './runner-contract.js';
import {
  compileOutputSchema,
  DEFAULT_OUTPUT_SCHEMA_RETRIES,
  followUpMessage,
  type OutputSchema,
} from './structured-output.js';
import { observeRun, type RunObservation } from './run-observer.js';
import { runToolCalls } from './tool-execution.js';
import { ToolCallingChoice, type ToolCalling } from './tool-calling/calling-mode.js';
import { callAsChosen, type CallingOptions } from './tool-calling/calling-model.js';
import { TextCallHold } from './tool-calling/text-call-hold.js';
import { ToolStepState } from './tool-calling/tool-step.js';
import type { ChatRequest, Message, Provider, ToolHost, ToolSpec, UserContent } from './types.js';
import { EventQueue } from '../util/event-queue.js';
import { definedProperties } from '../util/defined-properties.js';

export {
  DEFAULT_MAX_STEPS,
  type CompactOptions,
  type HistoryChange,
  type Prompt,
  type RunOptions,
  type RunOutcome,
  type RunnerOptions,
} from './runner-contract.js';

/**
 * One conversation with one model and a set of tools.
 *
 * Runs on one Runner are queued: a second `run()` starts when the first has finished, and sees the
 * history the first left behind. A run that fails or is cancelled before the model answered at all
 * leaves the history as it was; after that, the history keeps every completed step (and every tool
 * call in it has its result), so the conversation can go on.
 */
export class Runner {
  #provider: Provider;
  readonly #options: RunnerOptions;
  #messages: Message[];
  #queue: Promise<unknown> = Promise.resolve();
  #closed: Promise<void> | undefined;
  readonly #context: ContextBudget;
  readonly #toolCatalog: ToolCatalog;
  readonly #toolCalling: ToolCallingChoice;
  readonly #observedRun = { provider: () => this.#provider, settings: () => this.#options.settings ?? {} };

  constructor(options: RunnerOptions) {
    const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
    if (!Number.isInteger(maxSteps) || maxSteps < 1) {
      throw new TypeError(`maxSteps must be a positive integer, got ${String(options.maxSteps)}`);
    }
    this.#options = options;
    this.#provider = options.provider;
    this.#messages = [...(options.history ?? [])];
    this.#context = new ContextBudget(options.context);
    this.#toolCalling = new ToolCallingChoice(options.toolCalling);
    this.#toolCatalog = new ToolCatalog({
      ...definedProperties({ setting: options.context?.toolSearch, searchAt: options.context?.toolSearchAt }),
      history: this.#messages,
    });
  }

  /** The model in use. */
  get provider(): Provider {
    return this.#provider;
  }

  /** Switches model, keeping the conversation. */
  set provider(provider: Provider) {
    this.#provider = provider;
  }

  /** Where tool calls go (`undefined`: the model gets no tools). Durable workers wrap it per job. */
  get tools(): ToolHost | undefined {
    return this.#options.tools;
  }

  /** A copy of the conversation so far. */
  get history(): readonly Message[] {
    return [...this.#messages];
  }

  /** The tools the model has loaded with the tool search (or called), oldest first. */
  get loadedTools(): readonly string[] {
    return this.#toolCatalog.loaded;
  }

  /**
   * How the next step would send the tools: every definition, or the tool search and why.
   * `undefined` without a tool host. The first call asks the provider for its window (once).
   */
  async toolMode(): Promise<ToolMode | undefined> {
    return (await this.#stepTools())?.mode;
  }

  /**
   * Starts a new conversation, empty or from `history` (a saved one, say); the system prompt and
   * tools stay. Not reported to `onHistoryChange`: the next change is, against this history.
   */
  reset(history: readonly Message[] = []): void {
    this.#messages = [...history];
    this.#toolCatalog.forget(history);
  }

  /**
   * Tokens in use against the model's window, as of the last model call (`undefined` before the
   * first): the vendor's count when it gave one, else an estimate.
   */
  get contextUsage(): ContextUsage | undefined {
    return this.#context.lastUsage;
  }

  /**
   * Replaces the older part of the conversation with a summary written by the model, keeping the
   * recent turns. Queued like {@link run}. Resolves `undefined` when there is nothing to summarize.
   */
  compact(options: CompactOptions = {}): Promise<Compaction | undefined> {
    const done = this.#queue.then(() =>
      this.#compact('manual', options.onEvent ?? (() => undefined), options.signal, options.focus),
    );
    this.#queue = done.catch(() => undefined);
    return done;
  }

  /** Sends a prompt and runs until the model answers. Throws on provider failure, abort or max steps. */
  run(prompt: Prompt, options: RunOptions = {}): Promise<RunResult> {
    // Telemetry, when on, sees every event and holds the run (and its tool calls) in its context.
    const work = (observed: RunOptions, seen?: RunObservation) => this.#runWithHooks(prompt, observed, seen);
    const turn = this.#queue.then(() => observeRun(this.#options.observer, this.#observedRun, options, work));
    this.#queue = turn.catch(() => undefined);
    return turn;
  }

  /**
   * Like {@link run}, as an async iterable of events ending with `done`. A failure is thrown by the
   * iteration. Leaving the loop early (`break`) cancels the run, as its signal would.
   */
  stream(prompt: Prompt, options: Omit<RunOptions, 'onEvent'> = {}): AsyncIterable<RunnerEvent> {
    const stop = new AbortController();
    const signal =
      options.signal === undefined ? stop.signal : AbortSignal.any([options.signal, stop.signal]);
    const queue = new EventQueue<RunnerEvent>(() => stop.abort());
    this.run(prompt, { signal, onEvent: (event) => queue.push(event) }).then(
      () => queue.end(),
      (error: unknown) => queue.fail(error),
    );
    return queue;
  }

  /** Ends the tool host (MCP servers). Safe to call more than once. */
  close(): Promise<void> {
    this.#closed ??= this.#options.onClose?.() ?? Promise.resolve();
    return this.#closed;
  }

  /** `await using runner = …`: closes the runner when the scope ends. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  async #runWithHooks(prompt: Prompt, options: RunOptions, seen?: RunObservation): Promise<RunResult> {
    const content: readonly UserContent[] =
      typeof prompt === 'string' ? [{ type: 'text', text: prompt }] : prompt;
    await this.#options.beforePrompt?.(content, options.signal);
    let result: RunResult;
    try {
      result = await this.#run(content, options, seen);
    } catch (error) {
      await this.#options.afterRun?.({ kind: 'failed', error });
      throw error;
    }
    await this.#options.afterRun?.({ kind: 'completed', result });
    return result;
  }

  async #run(
    content: readonly UserContent[],
    options: RunOptions,
    seen?: RunObservation,
  ): Promise<RunResult> {
    const { signal } = options;
    const emit = options.onEvent ?? (() => undefined);
    const now = this.#options.now ?? Date.now;
    const maxSteps = this.#options.maxSteps ?? DEFAULT_MAX_STEPS;
    const schema = options.outputSchema ?? this.#options.outputSchema;
    const output = schema === undefined ? undefined : await compileOutputSchema(schema);
    let answersRefused = 0;
    let followUp: Message | undefined; // the last follow-up asking for a valid answer
    let historyBefore = this.#messages.length; // where this run's messages start
    const promptMessage: Message = { role: 'user', content };
    await this.#append(promptMessage);
    const toolCalls: ToolCallRecord[] = [];
    let usage = ZERO_USAGE;
    const toolStep = new ToolStepState();
    try {
      for (let step = 1; step <= maxSteps; step++) {
        throwIfCancelled(signal);
        const tools = await this.#stepTools();
        emit({ type: 'step-start', step });
        const calling =
          tools === undefined
            ? undefined
            : await this.#toolCalling.decide(this.#provider, tools.offered.length > 0);
        const offered = toolStep.start(emit, tools, calling, followUp !== undefined);
        const hold = new TextCallHold(emit, offered.length > 0); // a call written as text is not shown
        const switched = { calling, switched: (next: ToolCalling) => toolStep.report(emit, tools, next) };
        const replied = await this.#callModelWithinWindow(offered, hold.emit, signal, output, switched);
        const reply = hold.settle(replied, offered);
        // A compaction replaced the history: the run's own messages start at its prompt, if kept.
        if (this.#messages[historyBefore] !== promptMessage)
          historyBefore = this.#messages.indexOf(promptMessage);
        if (reply.usage !== undefined) usage = addUsage(usage, reply.usage);
        emit({
          type: 'step-finish',
          step,
          finishReason: reply.finishReason,
          ...definedProperties({ usage: reply.usage }),
        });
        // Before anything runs or joins the history: ids every vendor accepts, names and arguments checked.
        const checked = checkToolCalls(reply.content, toolCallIdsIn(this.#messages));
        if (checked.content.length > 0) await this.#append({ role: 'assistant', content: checked.content });
        if (checked.toolCalls.length === 0) {
          const text = checked.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
          const answer = output?.check(text);
          if (answer?.ok === false) {
            answersRefused += 1;
            if (answersRefused > DEFAULT_OUTPUT_SCHEMA_RETRIES) {
              throw new StructuredOutputError(answersRefused, answer.problems, text);
            }
            followUp = followUpMessage(answer.problems);
            await this.#append(followUp);
            continue;
          }
          const result: RunResult = {
            text,
            ...(answer?.ok === true ? { structured: answer.value } : {}),
            steps: step,
            toolCalls,
            usage,
            stopReason: stopReasonOf(reply.finishReason),
            messages: this.#messages.slice(Math.max(historyBefore, 0)),
          };
          emit({ type: 'done', result });
          return result;
        }
        const refused = await toolStep.refused(checked, offered, tools?.callable ?? new Set());
        const records = await runToolCalls(checked.toolCalls, {
          host: tools?.host,
          refused,
          offered: tools?.callable ?? new Set(),
          signal,
          emit,
          now,
          ...definedProperties({ around: seen?.withinToolCall.bind(seen) }),
        });
        toolCalls.push(...records);
        await this.#append({ role: 'tool', content: records.map((record) => record.result) });
        throwIfCancelled(signal);
      }
      throw new MaxStepsError(maxSteps);
    } catch (error) {
      // A turn the model never answered did not happen: leave no dangling user message behind.
      // (A compaction may have moved the prompt: look it up by identity.)
      if (followUp !== undefined && this.#messages.at(-1) === followUp) {
        // A follow-up nobody answered would leave two user messages in a row.
        this.#messages.pop();
        await this.#options.onHistoryChange?.(this.history);
      }
      const promptAt = this.#messages.lastIndexOf(promptMessage);
      if (promptAt !== -1 && promptAt === this.#messages.length - 1) {
        this.#messages.length = promptAt;
        await this.#options.onHistoryChange?.(this.history);
      }
      throw error;
    }
  }

  /** The tools of the next step: every definition, or the search tool and the loaded ones. */
  async #stepTools(): Promise<StepTools | undefined> {
    const host = this.#options.tools;
    if (host === undefined) return undefined;
    const tools = await host.tools();
    const window = await this.#context.window(this.#provider);
    return this.#toolCatalog.select(host, tools, { provider: this.#provider.name, window });
  }

  /**
   * One model call, kept within the window: compacts first when the request would pass the
   * threshold, and once more (then retries once) when the vendor refuses it as too long anyway.
   */
  async #callModelWithinWindow(
    tools: readonly ToolSpec[],
    emit: (event: RunnerEvent) => void,
    signal: AbortSignal | undefined,
    output: OutputSchema | undefined,
    calling: CallingOptions,
  ): Promise<Awaited<ReturnType<typeof callModel>>> {
    const settings = this.#options.settings ?? {};
    const system = [this.#options.systemPrompt, output?.instruction].filter((part) => part !== undefined);
    const request = (): ChatRequest => ({
      ...(system.length === 0 ? {} : { system: system.join('\n\n') }),
      messages: this.#messages,
      tools,
      settings,
      ...(output === undefined ? {} : { responseFormat: output.responseFormat }),
      signal,
    });
    if (await this.#context.shouldCompact(this.#provider, request(), settings)) {
      await this.#compact('threshold', emit, signal);
    }
    let sent = request();
    let provider = this.#provider;
    let reply;
    try {
      ({ reply, provider } = await callAsChosen({
        provider,
        choice: this.#toolCalling,
        calling,
        withTools: tools.length > 0,
        call: (chosen) => callModel(chosen, this.#marked(sent), emit, modelCallOptionsOf(this.#options)),
      }));
    } catch (error) {
      if (!(error instanceof ProviderError && error.contextLength && this.#context.autoCompact)) throw error;
      // The window figure was too generous: what was refused is the new upper bound.
      await this.#context.windowBelow(this.#provider, this.#context.meter.lastMeasure);
      if ((await this.#compact('context-length', emit, signal)) === undefined) throw error;
      sent = request();
      reply = await callModel(provider, this.#marked(sent), emit, modelCallOptionsOf(this.#options));
    }
    if (reply.usage !== undefined) {
      this.#context.observe(sent.messages, reply.usage.inputTokens, reply.usage.outputTokens);
    }
    return reply;
  }

  /**
   * The request as sent: tool output marked as data when asked (issue 16). Only the copy sent is
   * marked, so the history and the token meter keep the same message objects from call to call.
   */
  #marked(request: ChatRequest): ChatRequest {
    return this.#options.markToolOutput === true
      ? { ...request, messages: markToolMessages(request.messages) }
      : request;
  }

  /** Summarizes the older history, replaces it, tells the listener and the journal. */
  async #compact(
    reason: CompactionReason,
    emit: (event: RunnerEvent) => void,
    signal: AbortSignal | undefined,
    focus?: string,
  ): Promise<Compaction | undefined> {
    throwIfCancelled(signal);
    const startedAt = Date.now();
    const compaction = await this.#context.compact({
      provider: this.#provider,
      messages: this.#messages,
      reason,
      ...definedProperties({ focus, signal }),
      settings: this.#options.settings ?? {},
      emit,
      retry: modelCallOptionsOf(this.#options),
    });
    if (compaction === undefined) return undefined;
    this.#messages = [...compaction.messages];
    const { summary, replacedMessages, tokensBefore, tokensAfter } = compaction;
    emit({ type: 'compaction', reason, replacedMessages, tokensBefore, tokensAfter, summary, startedAt });
    await this.#options.onHistoryChange?.(this.history, { type: 'compaction', summary, replacedMessages });
    return compaction;
  }

  async #append(message: Message): Promise<void> {
    this.#messages.push(message);
    await this.#options.onHistoryChange?.(this.history);
  }
}
