/**
 * @google/genai errors → our error tree. Whether to retry is decided from the HTTP status (or the
 * network error code), never from message text; the Runner does the retrying.
 */
import { ApiError } from '@google/genai';
import * as z from 'zod';
import { AbortedError, McpHostError, messageOf, ProviderError } from '../src/core/errors.js';
import {
  MAX_RETRY_AFTER_MS,
  isRetryableStatus,
  isTransientNetworkError,
  networkErrorCode,
  parseRetryAfter,
} from './http-errors.js';

const PROVIDER = 'google';

/** Where the failed call went, where its key came from, and what could have cancelled it. */
export interface GeminiErrorContext {
  /** The API base URL, named when it cannot be reached. */
  readonly baseUrl: string;
  /** Where the key came from (`GEMINI_API_KEY`, `GOOGLE_API_KEY`, `--provider-api-key`), for the hint. */
  readonly keySource: string;
  /** Headers of the failed HTTP response, when there was one (the SDK's error drops them). */
  readonly headers?: Headers;
  /** True once the answer stream had begun: a network error then means the stream was cut. */
  readonly answering?: boolean;
  /** The call's signal: an error after it fired is a cancellation, whatever its form. */
  readonly signal?: AbortSignal;
}

/** Google's error body: `{"error":{"code":429,"message":"…","status":"RESOURCE_EXHAUSTED","details":[…]}}`. */
const ErrorBodySchema = z.object({
  error: z.looseObject({
    code: z.number().optional(),
    message: z.string().optional(),
    status: z.string().optional(),
    details: z.array(z.looseObject({ '@type': z.string().optional() })).optional(),
  }),
});

type ErrorBody = z.infer<typeof ErrorBodySchema>['error'];

/**
 * Maps anything a Gemini call threw. 429 (RESOURCE_EXHAUSTED), 5xx (503 UNAVAILABLE…), 408, 409
 * and transient network failures are retryable, honouring `Retry-After` or Google's `RetryInfo`
 * delay; 400, 401, 403, 404 fail fast with the vendor's message (and a hint about the key for a
 * refused key); a cancelled call becomes {@link AbortedError}.
 */
export function toGeminiError(error: unknown, context: GeminiErrorContext): McpHostError {
  if (error instanceof McpHostError) return error;
  if (context.signal?.aborted === true || isAbortError(error))
    return new AbortedError('cancelled', { cause: error });
  if (error instanceof ApiError) return fromApiError(error, context);
  const code = networkErrorCode(error);
  if (code !== undefined && context.answering === true) {
    return new ProviderError(PROVIDER, `the Gemini answer stream was cut off before it finished (${code})`, {
      retryable: isTransientNetworkError(error),
      cause: error,
    });
  }
  if (code !== undefined) {
    return new ProviderError(PROVIDER, `cannot reach the Gemini API at ${context.baseUrl} (${code})`, {
      retryable: isTransientNetworkError(error),
      cause: error,
    });
  }
  const detail = messageOf(error);
  return new ProviderError(PROVIDER, `Gemini API call failed: ${detail}`, { retryable: false, cause: error });
}

/**
 * Gemini's "too long" refusal: a 400 `INVALID_ARGUMENT` saying "The input token count (1200000)
 * exceeds the maximum number of tokens allowed (1048576)." The status is shared with every other
 * bad request, so the message is what tells them apart.
 */
export function isGeminiContextLengthError(status: number, message: string): boolean {
  return status === 400 && /input token count.*exceeds the maximum number of tokens/i.test(message);
}

function fromApiError(error: ApiError, context: GeminiErrorContext): ProviderError {
  const status = error.status;
  const body = parseErrorBody(error.message);
  const vendorMessage = body?.message ?? error.message;
  const kind = body?.status === undefined ? '' : ` (${body.status})`;
  const hint = isKeyRefused(status, body) ? ` — check ${context.keySource} or pass --provider-api-key` : '';
  const modelHint = status === 404 ? ' — check the model name (-m google:MODEL)' : '';
  const retryable = isRetryableStatus(status);
  const retryAfterMs = retryable ? (parseRetryAfter(context.headers) ?? retryDelayOf(body)) : undefined;
  return new ProviderError(
    PROVIDER,
    `Gemini API error ${status}${kind}: ${vendorMessage}${hint}${modelHint}`,
    {
      status,
      retryable,
      retryAfterMs,
      contextLength: isGeminiContextLengthError(status, vendorMessage),
      cause: error,
    },
  );
}

/**
 * The SDK puts the JSON error body in the message: whole for an HTTP error, after
 * `got status: …. ` for an error sent inside the stream.
 */
function parseErrorBody(message: string): ErrorBody | undefined {
  const start = message.indexOf('{');
  if (start < 0) return undefined;
  try {
    const json: unknown = JSON.parse(message.slice(start));
    // Some Google front ends wrap the body in a list.
    const parsed = ErrorBodySchema.safeParse(Array.isArray(json) ? json[0] : json);
    return parsed.success ? parsed.data.error : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A refused key: 401/403, or Gemini's 400 with reason `API_KEY_INVALID` (the API says 400, not 401,
 * for a key it does not know).
 */
function isKeyRefused(status: number, body: ErrorBody | undefined): boolean {
  if (status === 401 || status === 403) return true;
  return (body?.details ?? []).some((detail) => detail.reason === 'API_KEY_INVALID');
}

/** Google's `RetryInfo` detail: `{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"30s"}`. */
function retryDelayOf(body: ErrorBody | undefined): number | undefined {
  for (const detail of body?.details ?? []) {
    if (detail['@type'] !== 'type.googleapis.com/google.rpc.RetryInfo') continue;
    const delay = detail.retryDelay;
    // A protobuf Duration in JSON: seconds with an optional fraction, then "s".
    const match = typeof delay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(delay) : null;
    if (match?.[1] !== undefined) return Math.min(Number(match[1]) * 1000, MAX_RETRY_AFTER_MS);
  }
  return undefined;
}

function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}
