/**
 * The Google Gemini provider (`-m google:…`, alias `gemini:…`): a thin class around @google/genai,
 * the successor of the end-of-life @google/generative-ai. The request mapping lives in
 * google-request.ts, the stream mapping in google-stream.ts, the error rules in google-errors.ts.
 */
import { GoogleGenAI } from '@google/genai';
import { AbortedError, ConfigError } from '../src/core/errors.js';
import type { ChatRequest, Provider, ProviderEvent } from '../src/core/types.js';
import { toGeminiError } from './google-errors.js';
import { toGeminiRequest } from './google-request.js';
import { fromGeminiStream } from './google-stream.js';
import { nonEmptySetting, type ProviderOptions } from './options.js';
import { definedProperties } from '../src/util/defined-properties.js';

export { toGeminiError, type GeminiErrorContext } from './google-errors.js';
export {
  GOOGLE_METADATA_KEY,
  googleCallMetadata,
  toGeminiRequest,
  type GoogleCallMetadata,
} from './google-request.js';
export { fromGeminiStream, toFinishReason, type GeminiStreamOptions } from './google-stream.js';

/** Where the Gemini API lives unless `--provider-url` or `GOOGLE_GEMINI_BASE_URL` says otherwise. */
export const DEFAULT_GEMINI_BASE_URL = 'https://generativelanguage.googleapis.com';

/** Talks to the Gemini API (`streamGenerateContent`, server-sent events). */
export class GoogleProvider implements Provider {
  readonly name = 'google';
  readonly model: string;
  /** The API base URL every request goes to. */
  readonly baseUrl: string;
  /** Where the key came from, named in the hint when the API refuses it. */
  readonly #keySource: string;
  readonly #client: GoogleGenAI;
  readonly #fetch: typeof fetch;

  /**
   * Key: `options.apiKey`, else `GEMINI_API_KEY`, else `GOOGLE_API_KEY`. Base URL:
   * `options.baseUrl`, else `GOOGLE_GEMINI_BASE_URL`, else {@link DEFAULT_GEMINI_BASE_URL}.
   * @throws ConfigError when there is no key, before any request.
   */
  constructor(options: ProviderOptions) {
    this.model = options.model;
    const key = resolveKey(options);
    this.#keySource = key.source;
    this.baseUrl = (
      nonEmptySetting(options.baseUrl) ??
      nonEmptySetting(options.env.GOOGLE_GEMINI_BASE_URL) ??
      DEFAULT_GEMINI_BASE_URL
    ).replace(/\/+$/, '');
    this.#fetch = options.fetch ?? globalThis.fetch;
    // Everything explicit, so what the SDK reads from process.env has no effect (the environment is
    // injected): not its key, not GOOGLE_GEMINI_BASE_URL, not GOOGLE_GENAI_USE_VERTEXAI. (It still
    // warns on stderr when both GEMINI_API_KEY and GOOGLE_API_KEY are set in process.env.)
    // No `retryOptions`: the SDK then makes exactly one attempt, and the Runner owns retrying.
    this.#client = new GoogleGenAI({
      apiKey: key.value,
      vertexai: false,
      httpOptions: { baseUrl: this.baseUrl },
    });
  }

  /**
   * Streams one answer. Text arrives as it is generated; tool calls come whole, with the id Gemini
   * sent or one made here, and Gemini 3's thought signature kept for the next request. Throws
   * `ProviderError` on failure, `AbortedError` when `request.signal` aborts.
   */
  async *chat(request: ChatRequest): AsyncGenerator<ProviderEvent, void, undefined> {
    const { signal } = request;
    if (signal?.aborted === true) throw new AbortedError('cancelled', { cause: signal.reason });
    // Aborted when the caller stops reading early too, so the connection is not left streaming.
    const stop = new AbortController();
    const abortSignal = signal === undefined ? stop.signal : AbortSignal.any([signal, stop.signal]);
    const parameters = toGeminiRequest(request, this.model);
    // The SDK's errors drop the response headers; this fetch keeps them for Retry-After.
    let failedHeaders: Headers | undefined;
    const baseFetch = this.#fetch;
    const keepingHeaders: typeof fetch = async (input, init) => {
      const response = await baseFetch(input, init);
      if (!response.ok) failedHeaders = response.headers;
      return response;
    };
    // Once the response has begun, a dropped connection is a cut answer, not an unreachable API.
    let answering = false;
    try {
      const stream = await this.#client.models.generateContentStream({
        ...parameters,
        config: {
          ...parameters.config,
          abortSignal,
          httpOptions: { fetch: keepingHeaders },
          // Resuming a dropped stream is a retry of its own; the Runner's policy is the only one.
          automaticContinuation: false,
        },
      });
      answering = true;
      yield* fromGeminiStream(stream, definedProperties({ signal }));
    } catch (error) {
      throw toGeminiError(error, {
        baseUrl: this.baseUrl,
        keySource: this.#keySource,
        answering,
        ...definedProperties({ headers: failedHeaders, signal }),
      });
    } finally {
      stop.abort();
    }
  }
}

function resolveKey(options: ProviderOptions): { value: string; source: string } {
  const fromOption = nonEmptySetting(options.apiKey);
  if (fromOption !== undefined) return { value: fromOption, source: '--provider-api-key' };
  for (const variable of ['GEMINI_API_KEY', 'GOOGLE_API_KEY']) {
    const value = nonEmptySetting(options.env[variable]);
    if (value !== undefined) return { value, source: variable };
  }
  throw new ConfigError(
    'GEMINI_API_KEY',
    'is not set (nor GOOGLE_API_KEY); export it or pass --provider-api-key',
  );
}
