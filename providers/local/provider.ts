/**
 * The embedded provider (`local:`): a GGUF model run inside the process by llama.cpp, through
 * node-llama-cpp.
 *
 * The Runner owns the loop, so this answers ONE model call: `LlamaChat.generateResponse` with the
 * tools as `functions` and no handlers. node-llama-cpp stops when the model has written its calls
 * (`stopReason: "functionCalls"`) and hands them back; they become tool-call events, the Runner
 * runs them, and the next call continues the same model turn with their results (mapping.ts).
 * (`LlamaChatSession` would run the functions itself, which is the Runner's job.) The model writes
 * a call under a grammar made from the tool's schema (schema.ts), so it is always well-formed.
 * Several calls in one step come where the chat wrapper has a syntax for them (Qwen's, Llama 3.1's).
 *
 * The model and its context are loaded on first use, once per provider, kept for every call (the
 * context's cache makes the next step cheap: only the new tokens are evaluated), and released by
 * {@link LocalProvider.close}. Thought segments (Qwen3's `<think>`) are kept out of the answer and
 * streamed as reasoning.
 */
import type { ChatModelFunctions, LlamaChat, LlamaChatResponse, TokenBias } from 'node-llama-cpp';
import { AbortedError, ProviderError } from '../../src/core/errors.js';
import type { ChatRequest, Provider, ProviderEvent, ToolSpec } from '../../src/core/types.js';
import type { ProviderOptions } from '../options.js';
import { createToolCallId } from '../tool-call-id.js';
import { EventChannel } from './event-channel.js';
import {
  FORCE_TEXT_VARIABLE,
  FORCE_TOOL_CALL_VARIABLE,
  forcedTextBias,
  forcedToolCallBias,
} from './forced-call.js';
import { toFinishReason, toLlamaFunctions, toLlamaHistory } from './mapping.js';
import { homedir } from 'node:os';
import { localModelsFolder } from '../../src/util/user-folders.js';
import { resolveLocalModelFile } from './resolve-model.js';
import { ensureRuntime } from './runtime-source.js';
import { loadLocalModel, localThreads, type LoadedModel } from './runtime.js';
import { dropOmittedProperties } from './schema.js';
import { answerGrammar, answerText } from './answer-grammar.js';
import { definedProperties } from '../../src/util/defined-properties.js';
import { noNativeToolsReason, wrapperToolCalling, type WrapperToolCalling } from './function-calling.js';

/** What the provider holds once the model is loaded. */
interface Session extends LoadedModel {
  readonly chat: LlamaChat;
  /** What the chat wrapper says of tool calling (`toolCalling: auto`). */
  readonly toolCalling: WrapperToolCalling;
}

/** A GGUF model run in-process by llama.cpp. */
export class LocalProvider implements Provider {
  readonly name = 'local';
  readonly model: string;
  /** The absolute path of the model file. */
  readonly modelPath: string;
  readonly #options: ProviderOptions;
  readonly #threads: number;
  #session: Promise<Session> | undefined;
  /** Calls run one at a time: one context sequence, and its cache is the previous call's. */
  #turn: Promise<void> = Promise.resolve();
  #closed = false;
  #warnedImages = false;
  #toolCalling: WrapperToolCalling | undefined;

  /** @throws ConfigError when `MCPHOST_LOCAL_THREADS` is not a positive whole number. */
  constructor(options: ProviderOptions, modelPath: string) {
    this.model = options.model;
    this.modelPath = modelPath;
    this.#options = options;
    this.#threads = localThreads(options.env);
  }

  /** The context size the model runs with (known once it is loaded: this loads it). */
  async contextWindow(): Promise<number | undefined> {
    const session = await this.#load();
    return session.context.contextSize;
  }

  /**
   * Whether the model calls tools natively: its chat wrapper has a function-call syntax of its own
   * (function-calling.ts). This loads the model, as its first call would.
   */
  async supportsTools(): Promise<boolean> {
    const session = await this.#load();
    return session.toolCalling.native;
  }

  /** The chat wrapper that lacks a function-call syntax, once {@link supportsTools} said so. */
  noNativeToolsReason(): string | undefined {
    return this.#toolCalling === undefined || this.#toolCalling.native
      ? undefined
      : noNativeToolsReason(this.#toolCalling);
  }

  /** Releases the context and the model. Calls after it fail; closing twice is harmless. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const session = this.#session;
    this.#session = undefined;
    await this.#turn;
    const loaded = await session?.catch(() => undefined);
    if (loaded === undefined) return;
    loaded.chat.dispose();
    await loaded.context.dispose();
    await loaded.model.dispose();
  }

  #load(signal?: AbortSignal): Promise<Session> {
    if (this.#closed)
      return Promise.reject(new ProviderError('local', 'the local model was closed', { retryable: false }));
    this.#session ??= (async () => {
      const loaded = await loadLocalModel({
        modelPath: this.modelPath,
        threads: this.#threads,
        ...definedProperties({ signal }),
      });
      const chat = new loaded.binding.LlamaChat({ contextSequence: loaded.context.getSequence() });
      const toolCalling = wrapperToolCalling(chat.chatWrapper, loaded.binding);
      this.#toolCalling = toolCalling;
      return { ...loaded, chat, toolCalling };
    })();
    // A failed load (a missing file, an abort) is tried again on the next call.
    this.#session.catch(() => {
      this.#session = undefined;
    });
    return this.#session;
  }

  /**
   * Streams one answer: text as it is generated, then the tool calls, then `finish` with usage.
   * Throws `ProviderError` when the model cannot load, `AbortedError` when `request.signal` aborts.
   */
  async *chat(request: ChatRequest): AsyncGenerator<ProviderEvent, void, undefined> {
    const { signal } = request;
    const aborted = (): boolean => signal?.aborted === true;
    if (aborted()) throw new AbortedError('cancelled', { cause: signal?.reason });
    const previous = this.#turn;
    let release = (): void => undefined;
    this.#turn = new Promise((resolve) => {
      release = resolve;
    });
    // Stopped when the caller stops reading early too, so no generation outlives its reader.
    const stop = new AbortController();
    const combined = signal === undefined ? stop.signal : AbortSignal.any([signal, stop.signal]);
    let generation: Promise<void> | undefined;
    try {
      await previous;
      let session: Session;
      try {
        session = await this.#load(combined);
      } catch (error) {
        if (aborted()) throw new AbortedError('cancelled', { cause: error });
        throw error;
      }
      const channel = new EventChannel<ProviderEvent>();
      generation = this.#generate(session, request, combined, channel).then(
        () => channel.end(),
        (error: unknown) =>
          channel.fail(aborted() ? new AbortedError('cancelled', { cause: error }) : toLocalError(error)),
      );
      yield* channel;
    } finally {
      stop.abort();
      await generation;
      release();
    }
  }

  async #generate(
    session: Session,
    request: ChatRequest,
    signal: AbortSignal,
    channel: EventChannel<ProviderEvent>,
  ): Promise<void> {
    const { history, notes } = toLlamaHistory(request);
    if (notes.droppedImages && !this.#warnedImages) {
      this.#warnedImages = true;
      this.#options.warn?.('local: images are left out; the embedded models here read text only');
    }
    const functions = toLlamaFunctions(request.tools);
    const { settings } = request;
    const sequence = session.chat.sequence;
    const before = sequence.tokenMeter.getState();
    const tokenBias = this.#testBias(session, request);
    const answer = await answerGrammar(session.model, request);
    const result: LlamaChatResponse<ChatModelFunctions> = await session.chat.generateResponse(history, {
      signal,
      onResponseChunk: (chunk) => {
        // Thought segments stay out of the answer, as the other providers keep them out.
        // A JSON answer is given whole, once its omitted properties are taken out (answer-grammar.ts).
        if (chunk.type === undefined && chunk.text !== '' && answer === undefined)
          channel.pushMerging({ type: 'text-delta', text: chunk.text }, joinTexts);
        else if (chunk.type === 'segment' && chunk.segmentType === 'thought' && chunk.text !== '')
          channel.pushMerging({ type: 'reasoning-delta', text: chunk.text }, joinTexts);
      },
      // node-llama-cpp takes a grammar or functions, never both; a grammar comes only without tools.
      ...(answer !== undefined ? { grammar: answer.grammar } : functions !== undefined ? { functions } : {}),
      ...definedProperties({
        maxTokens: settings.maxTokens,
        temperature: settings.temperature,
        topP: settings.topP,
        topK: settings.topK,
      }),
      ...(settings.stopSequences === undefined || settings.stopSequences.length === 0
        ? {}
        : { customStopTriggers: settings.stopSequences }),
      ...definedProperties({ tokenBias }),
    });
    if (result.metadata.stopReason === 'abort') throw new AbortedError('cancelled');
    if (answer !== undefined && result.response !== '') {
      channel.push({ type: 'text-delta', text: answerText(result.response, answer.schema) });
    }
    const schemas = new Map<string, ToolSpec>(request.tools.map((tool) => [tool.name, tool]));
    const calls = result.functionCalls ?? [];
    for (const call of calls) {
      const tool = schemas.get(call.functionName);
      channel.push({
        type: 'tool-call',
        call: {
          type: 'tool-call',
          id: createToolCallId(),
          name: call.functionName,
          input: tool === undefined ? {} : dropOmittedProperties(call.params, tool.inputSchema),
        },
      });
    }
    const after = sequence.tokenMeter.getState();
    const outputTokens = after.usedOutputTokens - before.usedOutputTokens;
    channel.push({
      type: 'finish',
      reason: toFinishReason(result.metadata.stopReason, calls.length > 0),
      // What the model read is the whole context before its answer, cached tokens included.
      usage: { inputTokens: Math.max(0, sequence.contextTokens.length - outputTokens), outputTokens },
    });
  }

  /** The test hooks of forced-call.ts, only for an answer to a user message. */
  #testBias(session: Session, request: ChatRequest): (() => TokenBias) | undefined {
    if (request.messages.at(-1)?.role !== 'user') return undefined;
    const text = this.#options.env[FORCE_TEXT_VARIABLE];
    if (text !== undefined && text !== '') return forcedTextBias(text, session.model, session.binding);
    if (this.#options.env[FORCE_TOOL_CALL_VARIABLE] !== '1' || request.tools.length === 0) return undefined;
    return forcedToolCallBias(session.chat, session.model, session.binding);
  }
}

/** Two text (or two reasoning) pieces waiting in a row are one. */
function joinTexts(waiting: ProviderEvent, next: ProviderEvent): ProviderEvent | undefined {
  if (waiting.type === 'text-delta' && next.type === 'text-delta')
    return { type: 'text-delta', text: waiting.text + next.text };
  if (waiting.type === 'reasoning-delta' && next.type === 'reasoning-delta')
    return { type: 'reasoning-delta', text: waiting.text + next.text };
  return undefined;
}

function toLocalError(error: unknown): Error {
  if (error instanceof AbortedError || error instanceof ProviderError) return error;
  const message = (error as Error).message;
  // The grammar keeps a call's form; a value it cannot bound (a number too long to be finite)
  // fails node-llama-cpp's check after generation, and the whole call with it.
  if ((error as Error).name === 'LlamaJsonSchemaValidationError') {
    return new ProviderError(
      'local',
      `the model wrote tool arguments that do not fit the tool's schema: ${message}`,
      { retryable: false, cause: error },
    );
  }
  return new ProviderError('local', `local model: ${message}`, { retryable: false, cause: error });
}

/**
 * Creates the provider for `local:<model>`, finding the file first so that a wrong path fails
 * before anything starts. The model itself loads on the first call (or `contextWindow()`).
 */
export async function createLocalProvider(
  options: ProviderOptions,
  source = '--model',
): Promise<LocalProvider> {
  const files = options.modelFiles ?? {};
  const homeDir = files.homeDir ?? homedir();
  // A model name is downloaded on first use (resolve-model.ts); a path must name a file.
  const modelPath = await resolveLocalModelFile(options.model, {
    source,
    cwd: files.cwd ?? process.cwd(),
    homeDir,
    cacheFolder: files.cacheFolder ?? localModelsFolder(homeDir, options.env),
    env: options.env,
    ...definedProperties({ onProgress: files.onProgress, signal: files.signal }),
  });
  // The llama.cpp runtime too, on first use, with the same progress (runtime-source.ts).
  await ensureRuntime({
    homeDir,
    env: options.env,
    ...definedProperties({ onProgress: files.onProgress, signal: files.signal }),
  });
  return new LocalProvider(options, modelPath);
}
