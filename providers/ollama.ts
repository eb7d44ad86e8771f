/**
 * The Ollama provider: a thin class around the `ollama` client. The mappings live in
 * ollama-mapping.ts, the host rules in ollama-host.ts, the error rules in ollama-errors.ts.
 */
// The browser build, on purpose: the Node build's `encodeImage` reads a file from disk when an
// image string happens to be an existing path, and image data comes from untrusted MCP servers.
import { Ollama, type ChatRequest as OllamaSdkChatRequest } from 'ollama/browser';
import { AbortedError } from '../src/errors.js';
import type { ChatRequest, Provider, ProviderEvent } from '../src/types.js';
import { toOllamaError } from './ollama-errors.js';
import { createOllamaFetch } from './ollama-fetch.js';
import { resolveOllamaHost } from './ollama-host.js';
import { fromOllamaChunk, parseOllamaChunk, toOllamaRequest } from './ollama-mapping.js';
import { fetchOllamaContextWindow } from './ollama-model-info.js';
import type { ProviderOptions } from './options.js';
import { createToolCallId } from './tool-call-id.js';

export { DEFAULT_OLLAMA_HOST, parseOllamaHost, resolveOllamaHost } from './ollama-host.js';
export { toOllamaError, type OllamaErrorContext } from './ollama-errors.js';
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

/** Talks to a local (or remote) Ollama server through its `/api/chat` streaming endpoint. */
export class OllamaProvider implements Provider {
  readonly name = 'ollama';
  readonly model: string;
  /** The base URL every request goes to, e.g. `http://127.0.0.1:11434`. */
  readonly host: string;
  readonly #fetch: typeof fetch;

  /** @throws ConfigError when `--provider-url` or `OLLAMA_HOST` is not an address. */
  constructor(options: ProviderOptions) {
    this.model = options.model;
    this.host = resolveOllamaHost({ baseUrl: options.baseUrl, env: options.env });
    this.#fetch = options.fetch ?? globalThis.fetch;
  }

  /** The window Ollama runs this model with (see ollama-model-info.ts); `undefined` if it cannot say. */
  contextWindow(): Promise<number | undefined> {
    return fetchOllamaContextWindow(this.#fetch, this.host, this.model);
  }

  /**
   * Streams one answer. Text arrives as it is generated; each tool call comes whole (Ollama sends
   * them complete) with an id made here. Throws `ProviderError` on failure, `AbortedError` when
   * `request.signal` aborts.
   */
  async *chat(request: ChatRequest): AsyncGenerator<ProviderEvent, void, undefined> {
    const { signal } = request;
    // A function, not a property read: TypeScript would keep the first check's narrowing forever.
    const aborted = (): boolean => signal?.aborted === true;
    if (aborted()) throw new AbortedError('cancelled', { cause: signal?.reason });
    // Aborted when the caller stops reading early too, so the connection is not left streaming.
    const stop = new AbortController();
    const combined = signal === undefined ? stop.signal : AbortSignal.any([signal, stop.signal]);
    // One client per call: the client has no per-request signal, so the signal goes into its fetch.
    const client = new Ollama({ host: this.host, fetch: createOllamaFetch(this.#fetch, combined) });
    // The SDK's Tool type allows only a few JSON Schema keywords; Ollama's server takes the schema whole.
    const body = toOllamaRequest(request, this.model) as unknown as OllamaSdkChatRequest & { stream: true };
    let sawToolCalls = false;
    try {
      const stream = await client.chat(body);
      for await (const value of stream) {
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
}
