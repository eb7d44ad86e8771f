/**
 * Anthropic's Messages API through @anthropic-ai/sdk: a thin class around the pure mappers in
 * `anthropic-request.ts`, `anthropic-stream.ts` and `anthropic-errors.ts`.
 */
import { Anthropic } from '@anthropic-ai/sdk';
import { ConfigError } from '../src/core/errors.js';
import type { ChatRequest, Provider, ProviderEvent } from '../src/core/types.js';
import { toAnthropicError } from './anthropic-errors.js';
import { finalAnswerAsText, finalAnswerTool } from './anthropic-final-answer.js';
import { toAnthropicRequest, unsupportedAnthropicSettings } from './anthropic-request.js';
import { fromAnthropicStream } from './anthropic-stream.js';
import { nonEmptySetting, type ProviderOptions } from './options.js';
import { definedProperties } from '../src/util/defined-properties.js';

export { ANTHROPIC_KEY_HINT, toAnthropicError, type AnthropicErrorContext } from './anthropic-errors.js';
export {
  DEFAULT_ANTHROPIC_MAX_TOKENS,
  toAnthropicMessages,
  toAnthropicRequest,
  toAnthropicTool,
  unsupportedAnthropicSettings,
} from './anthropic-request.js';
export { fromAnthropicStream, toFinishReason, toToolCall, toUsage } from './anthropic-stream.js';

/** Where requests go when neither `--provider-url` nor `ANTHROPIC_BASE_URL` says otherwise. */
export const DEFAULT_ANTHROPIC_BASE_URL = 'https://api.anthropic.com';

/** A Claude model behind the Anthropic Messages API, streamed. */
export class AnthropicProvider implements Provider {
  readonly name = 'anthropic';
  readonly model: string;
  /** The API base URL in use, for messages. */
  readonly baseUrl: string;
  readonly #client: Anthropic;
  readonly #warn: (message: string) => void;
  /** Unsupported settings already reported, so each is reported once per provider. */
  readonly #reported = new Set<string>();

  /**
   * Reads the key from `options.apiKey`, else `ANTHROPIC_API_KEY` in `options.env`, and throws
   * {@link ConfigError} when there is none, before any request. The base URL is `options.baseUrl`,
   * else `ANTHROPIC_BASE_URL`, else {@link DEFAULT_ANTHROPIC_BASE_URL}.
   */
  constructor(options: ProviderOptions) {
    const apiKey = nonEmptySetting(options.apiKey) ?? nonEmptySetting(options.env['ANTHROPIC_API_KEY']);
    if (apiKey === undefined) {
      throw new ConfigError('ANTHROPIC_API_KEY', 'is not set; export it or pass --provider-api-key');
    }
    this.model = options.model;
    // Always passed explicitly: left undefined, the SDK would read process.env behind our back.
    this.baseUrl =
      nonEmptySetting(options.baseUrl) ??
      nonEmptySetting(options.env['ANTHROPIC_BASE_URL']) ??
      DEFAULT_ANTHROPIC_BASE_URL;
    this.#warn = options.warn ?? (() => undefined);
    const warn = this.#warn;
    this.#client = new Anthropic({
      apiKey,
      baseURL: this.baseUrl,
      // The Runner owns the one retry policy.
      maxRetries: 0,
      fetch: options.fetch,
      // The SDK logs to the console by default; only the CLI may print, through `warn`.
      logLevel: 'warn',
      logger: {
        error: (message) => {
          warn(`anthropic: ${message}`);
        },
        warn: (message) => {
          warn(`anthropic: ${message}`);
        },
        info: () => undefined,
        debug: () => undefined,
      },
    });
  }

  /** Streams one model call; throws `ProviderError` or `AbortedError`. */
  async *chat(request: ChatRequest): AsyncIterable<ProviderEvent> {
    this.#reportUnsupported(request);
    const body = toAnthropicRequest(request, this.model);
    const context = {
      baseUrl: this.baseUrl,
      ...definedProperties({ signal: request.signal }),
    };
    try {
      // `messages.create` would do the same POST, but it also writes to the console on its own
      // (a `console.warn` for deprecated models, on every call); only the CLI may print.
      // `unknown`: the SDK parses each event's JSON but checks nothing; fromAnthropicStream does.
      const stream = await this.#client.post<AsyncIterable<unknown>>('/v1/messages', {
        body: { ...body, stream: true },
        stream: true,
        signal: request.signal,
      });
      const events = fromAnthropicStream(stream, request.signal);
      const finalAnswer = finalAnswerTool(request);
      yield* finalAnswer === undefined ? events : finalAnswerAsText(events, finalAnswer.tool.name);
    } catch (error) {
      throw toAnthropicError(error, context);
    }
  }

  #reportUnsupported(request: ChatRequest): void {
    for (const flag of unsupportedAnthropicSettings(request.settings)) {
      if (this.#reported.has(flag)) continue;
      this.#reported.add(flag);
      this.#warn(`anthropic: ${flag} is not supported by the Anthropic Messages API and was not sent`);
    }
  }
}
