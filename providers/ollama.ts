/**
 * The Ollama provider: `POST /api/chat`, streamed. The exchange lives in ollama-http.ts (why not
 * the `ollama` client: see there), the stream checks in ollama-stream.ts, the mappings in
 * ollama-mapping.ts, the host rules in ollama-host.ts, the error rules in ollama-errors.ts.
 */
import { AbortedError } from '../src/core/errors.js';
import type { ChatRequest, Provider, ProviderEvent } from '../src/core/types.js';
import { toOllamaError } from './ollama-errors.js';
import { fetchOllamaHttp, nodeOllamaHttp, type OllamaHttp } from './ollama-http.js';
import { ollamaStreamObjects, isSuccess, readStatusError } from './ollama-stream.js';
import { resolveOllamaHost } from './ollama-host.js';
import { fromOllamaChunk, parseOllamaChunk, toOllamaRequest } from './ollama-mapping.js';
import { fetchOllamaContextWindow } from './ollama-model-info.js';
import { nonEmptySetting, type ProviderOptions } from './options.js';
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
  readonly #http: OllamaHttp;
  readonly #headers: Readonly<Record<string, string>>;

  /** @throws ConfigError when `--provider-url` or `OLLAMA_HOST` is not an address. */
  constructor(options: ProviderOptions) {
    this.model = options.model;
    this.host = resolveOllamaHost({ baseUrl: options.baseUrl, env: options.env });
    this.#http = options.fetch === undefined ? nodeOllamaHttp() : fetchOllamaHttp(options.fetch);
    this.#headers = requestHeaders(this.host, options);
  }

  /** The window Ollama runs this model with (see ollama-model-info.ts); `undefined` if it cannot say. */
  contextWindow(): Promise<number | undefined> {
    return fetchOllamaContextWindow(this.#http, {
      host: this.host,
      model: this.model,
      headers: this.#headers,
    });
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
    let sawToolCalls = false;
    try {
      const answer = await this.#http({
        url: `${this.host}/api/chat`,
        method: 'POST',
        headers: this.#headers,
        body: JSON.stringify(toOllamaRequest(request, this.model)),
        signal: combined,
      });
      if (!isSuccess(answer)) throw await readStatusError(answer);
      for await (const value of ollamaStreamObjects(answer.body)) {
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

/** Ollama's cloud (`https://ollama.com`), the one host the `OLLAMA_API_KEY` variable is sent to. */
const OLLAMA_CLOUD_ORIGIN = 'https://ollama.com';

/**
 * The headers of every request. A key from `--provider-api-key` goes wherever the user pointed
 * mcphost (a proxy in front of Ollama may want one); a key from `OLLAMA_API_KEY` only to Ollama's
 * cloud, as the `ollama` client does, so that a key in the environment does not leak to another host.
 */
function requestHeaders(host: string, options: ProviderOptions): Record<string, string> {
  const key =
    nonEmptySetting(options.apiKey) ??
    (new URL(host).origin === OLLAMA_CLOUD_ORIGIN ? nonEmptySetting(options.env.OLLAMA_API_KEY) : undefined);
  return {
    'content-type': 'application/json',
    accept: 'application/x-ndjson',
    ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
  };
}
