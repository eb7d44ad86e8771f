/**
 * The Ollama provider: `/api/chat`, streamed, through the `ollama` client (ollama-connection.ts)
 * over mcphost's transport (ollama-http.ts, why: see there). The stream checks are in
 * ollama-stream.ts, the mappings in ollama-mapping.ts, the host rules in ollama-host.ts, the error
 * rules in ollama-errors.ts, the window in ollama-model-info.ts.
 */
import { AbortedError } from '../src/core/errors.js';
import type { ChatRequest, Provider, ProviderEvent } from '../src/core/types.js';
import { ollamaClient, ollamaConnection, type OllamaConnection } from './ollama-connection.js';
import { toOllamaError } from './ollama-errors.js';
import { ollamaModelsOver, type OllamaModels } from './ollama-models.js';
import { fromOllamaChunk, parseOllamaChunk, toOllamaRequest } from './ollama-mapping.js';
import { chooseOllamaWindow, modelWindowFromShow, toolsFromShow } from './ollama-model-info.js';
import type { ShowResponse } from 'ollama/browser';
import type { ProviderOptions } from './options.js';
import { OllamaStatusError } from './ollama-stream.js';
import { createToolCallId } from './tool-call-id.js';

export { DEFAULT_OLLAMA_HOST, parseOllamaHost, resolveOllamaHost } from './ollama-host.js';
export { toOllamaError, type OllamaErrorContext } from './ollama-errors.js';
export { DEFAULT_OLLAMA_WINDOW } from './ollama-model-info.js';
export {
  fromOllamaChunk,
  parseOllamaChunk,
  toFinishReason,
  toOllamaMessages,
  toOllamaRequest,
  toToolCallBlock,
  type OllamaChatBody,
  type OllamaChunk,
  type OllamaMessage,
} from './ollama-mapping.js';

/** How long `/api/show` may take when only the budget asks (a chat waits as long as the chat). */
const SHOW_TIMEOUT_MS = 5_000;

/** Talks to a local (or remote) Ollama server through its `/api/chat` streaming endpoint. */
export class OllamaProvider implements Provider {
  readonly name = 'ollama';
  readonly model: string;
  /** The base URL every request goes to, e.g. `http://127.0.0.1:11434`. */
  readonly host: string;
  readonly #connection: OllamaConnection;
  /** `contextWindow` from the flag or config: sent as is. */
  readonly #override: number | undefined;
  /** The chosen window, once `/api/show` has answered (a failure is not kept: the next call asks again). */
  #window: Promise<number> | undefined;
  /** `/api/show`'s answer, asked once for the window and the capabilities (kept like the window). */
  #show: Promise<ShowResponse> | undefined;

  /** The same as {@link host} (the provider contract's name for it). */
  get baseUrl(): string {
    return this.host;
  }

  /** @throws ConfigError when `--provider-url` or `OLLAMA_HOST` is not an address. */
  constructor(options: ProviderOptions) {
    this.model = options.model;
    this.#connection = ollamaConnection(options);
    this.host = this.#connection.host;
    this.#override = options.contextWindow;
  }

  /**
   * The window every chat sends as `num_ctx` (ollama-model-info.ts); `undefined` when Ollama cannot
   * be asked (not running, no such model): the budget then uses its fallback, and the chat says why.
   */
  async contextWindow(): Promise<number | undefined> {
    try {
      return await untilAborted(this.#chosenWindow(), AbortSignal.timeout(SHOW_TIMEOUT_MS));
    } catch {
      return undefined;
    }
  }

  /**
   * Whether the model has the `tools` capability (`/api/show`); `undefined` when Ollama cannot be
   * asked or does not say (the chat then tries tools and reads a refusal).
   */
  async supportsTools(): Promise<boolean | undefined> {
    try {
      return toolsFromShow(await untilAborted(this.#shown(), AbortSignal.timeout(SHOW_TIMEOUT_MS)));
    } catch {
      return undefined;
    }
  }

  /**
   * Streams one answer. Text arrives as it is generated; each tool call comes whole (Ollama sends
   * them complete) with an id made here. Throws `ProviderError` on failure (with `missingModel` when
   * the model is not pulled), `AbortedError` when `request.signal` aborts.
   */
  async *chat(request: ChatRequest): AsyncGenerator<ProviderEvent, void, undefined> {
    const { signal } = request;
    // A function, not a property read: TypeScript would keep the first check's narrowing forever.
    const aborted = (): boolean => signal?.aborted === true;
    if (aborted()) throw new AbortedError('cancelled', { cause: signal?.reason });
    // Aborted when the caller stops reading early too, so the connection is not left streaming.
    const stop = new AbortController();
    const combined = signal === undefined ? stop.signal : AbortSignal.any([signal, stop.signal]);
    let sawToolCalls = false;
    try {
      const numCtx = await untilAborted(this.#chosenWindow(), combined);
      const client = await ollamaClient(this.#connection, combined);
      const body = toOllamaRequest(request, this.model, numCtx);
      // The mapped body is the wire format the client sends as is; its types are looser than ours.
      const answer = await client.chat({ ...body, stream: true });
      for await (const value of answer) {
        const chunk = parseOllamaChunk(value);
        for (const event of fromOllamaChunk(chunk, { createId: createToolCallId, sawToolCalls })) {
          if (event.type === 'tool-call') sawToolCalls = true;
          yield event;
        }
      }
    } catch (error) {
      if (aborted()) throw new AbortedError('cancelled', { cause: error });
      throw toOllamaError(error, { host: this.host, model: this.model });
    } finally {
      stop.abort();
    }
  }

  /** Model management on the same server with the same key (list, pull, remove: ollama-models.ts). */
  models(): OllamaModels {
    const models = ollamaModelsOver(this.#connection);
    // Once this model is pulled, its window is asked again (a missing model's answer was kept).
    const forget = (model: string): void => {
      if (model === this.model) {
        this.#window = undefined;
        this.#show = undefined;
      }
    };
    return {
      ...models,
      async *pull(model, signal) {
        for await (const event of models.pull(model, signal)) {
          if (event.type === 'done') forget(model);
          yield event;
        }
      },
    };
  }

  /** The override, or the window `/api/show` implies (asked once, for the budget and every chat). */
  #chosenWindow(): Promise<number> {
    if (this.#override !== undefined) return Promise.resolve(this.#override);
    if (this.#window === undefined) {
      const asking = (async () => chooseOllamaWindow(modelWindowFromShow(await this.#shown())))();
      this.#window = asking;
      // A model Ollama does not have stays missing for this run (the chat says so once, with no
      // second `/api/show`); any other failure (not running yet, a timeout) is asked again.
      asking.catch((error: unknown) => {
        const missing = error instanceof OllamaStatusError && error.status === 404;
        if (this.#window === asking && !missing) this.#window = undefined;
      });
    }
    return this.#window;
  }

  /** `/api/show` for this model, asked once (a failure is asked again, as for the window). */
  #shown(): Promise<ShowResponse> {
    if (this.#show === undefined) {
      const asking = (async () => {
        // Not ended by one caller's signal: the budget and a chat may be waiting for the same answer.
        const client = await ollamaClient(this.#connection);
        return client.show({ model: this.model });
      })();
      this.#show = asking;
      asking.catch((error: unknown) => {
        const missing = error instanceof OllamaStatusError && error.status === 404;
        if (this.#show === asking && !missing) this.#show = undefined;
      });
    }
    return this.#show;
  }
}

/** `promise`, or a rejection with the signal's reason once `signal` aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
