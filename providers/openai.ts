/**
 * The OpenAI provider: OpenAI itself and every server that speaks its Chat Completions API (LM Studio,
 * vLLM, llama.cpp's server, OpenRouter, Groq…). A thin class around the `openai` SDK; the mapping is
 * in the pure functions of openai-request.ts, openai-stream.ts and openai-errors.ts.
 */
import { OpenAI } from 'openai';
import { AbortedError, ConfigError } from '../src/core/errors.js';
import type { ChatRequest, Provider, ProviderEvent } from '../src/core/types.js';
import { DEFAULT_OPENAI_BASE_URL, toOpenAIError, withNormalizedErrorBodies } from './openai-errors.js';
import {
  MAX_TOOL_DESCRIPTION_LENGTH,
  shortenedDescriptionsWarning,
  toOpenAIRequest,
} from './openai-request.js';
import { OpenAIStreamAccumulator } from './openai-stream.js';
import { nonEmptySetting, type ProviderOptions } from './options.js';

export { DEFAULT_OPENAI_BASE_URL, toOpenAIError, normalizeErrorBody } from './openai-errors.js';
export type { OpenAIErrorContext } from './openai-errors.js';
export { toOpenAIRequest, toOpenAIMessages, toOpenAITool } from './openai-request.js';
export { shortenedDescriptionsWarning } from './openai-request.js';
export type { OpenAIRequestMapping, OpenAIRequestOptions, ShortenedDescription } from './openai-request.js';
export { OpenAIStreamAccumulator, parseToolArguments, toFinishReason } from './openai-stream.js';
export { toOpenAIParameters } from './openai-schema.js';

/**
 * Sent as the key to a server given by URL when no key is set: the SDK insists on one, and local
 * servers (LM Studio, llama.cpp, vLLM without `--api-key`) ignore it.
 */
const PLACEHOLDER_API_KEY = 'no-key';

/** Chat Completions over the `openai` SDK, streaming, with the SDK's own retries off. */
export class OpenAIProvider implements Provider {
  readonly name = 'openai';
  readonly model: string;
  /** Where requests go, for error messages. */
  readonly baseUrl: string;
  readonly #client: OpenAI;
  readonly #warn: (message: string) => void;
  readonly #warned = new Set<string>();
  /** Cut descriptions already reported (by tool name), so each is told once. */
  readonly #shortenedTold = new Set<string>();
  /** OpenAI's description limit, on OpenAI's own API only (see {@link appliesOpenAILimits}). */
  readonly #maxToolDescriptionLength: number | undefined;

  /**
   * Key: `options.apiKey`, else `OPENAI_API_KEY`. URL: `options.baseUrl`, else `OPENAI_BASE_URL`,
   * else OpenAI's. Throws {@link ConfigError} when there is neither a key nor a URL: a compatible
   * server given by URL may need no key, OpenAI always does.
   */
  constructor(options: ProviderOptions) {
    const apiKey = nonEmptySetting(options.apiKey) ?? nonEmptySetting(options.env.OPENAI_API_KEY);
    const baseUrl = nonEmptySetting(options.baseUrl) ?? nonEmptySetting(options.env.OPENAI_BASE_URL);
    if (apiKey === undefined && baseUrl === undefined) {
      throw new ConfigError('OPENAI_API_KEY', 'is not set; export it or pass --provider-api-key');
    }
    this.model = options.model;
    this.baseUrl = (baseUrl ?? DEFAULT_OPENAI_BASE_URL).replace(/\/+$/, '');
    this.#warn = options.warn ?? (() => undefined);
    this.#maxToolDescriptionLength = appliesOpenAILimits(this.baseUrl)
      ? MAX_TOOL_DESCRIPTION_LENGTH
      : undefined;
    // Everything the SDK would read from process.env is given explicitly, from the injected env.
    this.#client = new OpenAI({
      apiKey: apiKey ?? PLACEHOLDER_API_KEY,
      baseURL: this.baseUrl,
      organization: nonEmptySetting(options.env.OPENAI_ORG_ID) ?? null,
      project: nonEmptySetting(options.env.OPENAI_PROJECT_ID) ?? null,
      adminAPIKey: null,
      webhookSecret: null,
      // One retry policy, the Runner's.
      maxRetries: 0,
      fetch: withNormalizedErrorBodies(options.fetch ?? globalThis.fetch),
      // Library code does not print; failures reach the caller as errors.
      logLevel: 'off',
    });
  }

  /** Streams one model call: text deltas as they come, then the tool calls, then `finish`. */
  async *chat(request: ChatRequest): AsyncIterable<ProviderEvent> {
    const { params, warnings, shortenedTools } = toOpenAIRequest(request, this.model, {
      ...(this.#maxToolDescriptionLength === undefined
        ? {}
        : { maxToolDescriptionLength: this.#maxToolDescriptionLength }),
    });
    for (const warning of warnings) this.#warnOnce(warning);
    // One line for all the cut descriptions of a request (there were 52 in one real set of servers),
    // and later only for tools not told about yet (a server's list may change).
    const untold = shortenedTools.filter((entry) => !this.#shortenedTold.has(entry.tool));
    if (untold.length > 0) {
      for (const entry of untold) this.#shortenedTold.add(entry.tool);
      this.#warn(shortenedDescriptionsWarning(untold));
    }
    const accumulator = new OpenAIStreamAccumulator(undefined, `the server at ${this.baseUrl}`);
    try {
      const stream = await this.#client.chat.completions.create(
        params,
        request.signal === undefined ? {} : { signal: request.signal },
      );
      for await (const chunk of stream) yield* accumulator.push(chunk);
    } catch (error) {
      if (request.signal?.aborted === true) throw new AbortedError('cancelled', { cause: error });
      throw toOpenAIError(error, { baseUrl: this.baseUrl });
    }
    // The SDK ends a stream quietly when it is aborted: without this, a cut answer would look whole.
    if (request.signal?.aborted === true) throw new AbortedError();
    yield* accumulator.finish();
  }

  #warnOnce(message: string): void {
    if (this.#warned.has(message)) return;
    this.#warned.add(message);
    this.#warn(message);
  }
}

/**
 * True for OpenAI's own API (and Azure OpenAI), whose documented limits (a tool description of
 * at most 1024 characters) this provider applies. OpenAI-compatible servers (vLLM, LM Studio,
 * llama.cpp, Ollama's /v1, OpenRouter…) document no such limit, so what they get is not cut.
 */
export function appliesOpenAILimits(baseUrl: string): boolean {
  let host: string;
  try {
    host = new URL(baseUrl).hostname.toLowerCase();
  } catch {
    return false;
  }
  return host === 'api.openai.com' || host.endsWith('.openai.azure.com');
}
