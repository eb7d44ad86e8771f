/**
 * @anthropic-ai/sdk errors → our error tree. Whether to retry is decided here, from the status or
 * the error type, never from message text; the Runner does the retrying.
 */
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from '@anthropic-ai/sdk';
import { AbortedError, McpHostError, messageOf, ProviderError } from '../src/core/errors.js';
import {
  isRetryableStatus,
  isTransientNetworkError,
  networkErrorCode,
  parseRetryAfter,
} from './http-errors.js';

const PROVIDER = 'anthropic';

/** Said after a 401 or 403: the usual cause is the key. */
export const ANTHROPIC_KEY_HINT = 'check ANTHROPIC_API_KEY or pass --provider-api-key';

/**
 * Error types that may arrive as an SSE `error` event after the HTTP 200 (no status then) and are
 * worth another try: the stream-time forms of 529, 500, 429 and 504.
 */
const RETRYABLE_ERROR_TYPES: ReadonlySet<string> = new Set([
  'overloaded_error',
  'api_error',
  'rate_limit_error',
  'timeout_error',
]);

/** True for an error type sent after the HTTP 200 (an overload, a server error…) worth another try. */
export function isRetryableAnthropicErrorType(type: string | null): boolean {
  return type !== null && RETRYABLE_ERROR_TYPES.has(type);
}

/** Where the failed call went and what could have cancelled it. */
export interface AnthropicErrorContext {
  /** The API base URL, named when it cannot be reached. */
  readonly baseUrl: string;
  /** The call's signal: an error after it fired is a cancellation, whatever its form. */
  readonly signal?: AbortSignal;
}

/**
 * Maps anything a Messages API call threw. 429, 5xx, 529 (`overloaded_error`), 408, 409, timeouts
 * and transient network failures are retryable, with `Retry-After` honoured; 400, 401, 403, 404
 * fail fast with the vendor's own message; a cancelled call becomes {@link AbortedError}.
 */
export function toAnthropicError(error: unknown, context: AnthropicErrorContext): McpHostError {
  if (error instanceof McpHostError) return error;
  if (context.signal?.aborted === true || error instanceof APIUserAbortError || isAbortError(error)) {
    return new AbortedError('cancelled', { cause: error });
  }
  if (error instanceof APIConnectionTimeoutError) {
    return new ProviderError(PROVIDER, `the Anthropic API at ${context.baseUrl} did not answer in time`, {
      retryable: true,
      cause: error,
    });
  }
  if (error instanceof APIConnectionError) {
    const code = networkErrorCode(error);
    const reason = code === undefined ? '' : ` (${code})`;
    return new ProviderError(PROVIDER, `cannot reach the Anthropic API at ${context.baseUrl}${reason}`, {
      retryable: isTransientNetworkError(error),
      cause: error,
    });
  }
  if (isApiError(error)) return fromApiError(error);
  const detail = messageOf(error);
  return new ProviderError(PROVIDER, `Anthropic API call failed: ${detail}`, {
    retryable: isTransientNetworkError(error),
    cause: error,
  });
}

/**
 * Anthropic's "too long" refusals: a 400 `invalid_request_error` whose message starts "prompt is
 * too long: 215000 tokens > 200000 maximum" (the API has no separate type or code for it, so the
 * message is all there is), and a 413 `request_too_large` for a request over the byte limit.
 */
export function isAnthropicContextLengthError(
  status: number | undefined,
  type: string | null,
  message: string,
): boolean {
  if (status === 413 || type === 'request_too_large') return true;
  return (status === 400 || status === undefined) && /^prompt is too long\b/i.test(message.trim());
}

function fromApiError(error: APIError): ProviderError {
  const status = error.status;
  // Without a JSON error body the SDK's message is "<status> <body>": the status is said already.
  const vendorMessage =
    error.apiMessage ?? (status === undefined ? error.message : error.message.replace(`${status} `, ''));
  const kind = error.type === null ? '' : ` (${error.type})`;
  const contextLength = isAnthropicContextLengthError(status, error.type, vendorMessage);
  if (status === undefined) {
    // An `event: error` in a stream that had started with 200.
    return new ProviderError(PROVIDER, `Anthropic API error during the answer${kind}: ${vendorMessage}`, {
      retryable: isRetryableAnthropicErrorType(error.type),
      contextLength,
      cause: error,
    });
  }
  const hint = status === 401 || status === 403 ? ` — ${ANTHROPIC_KEY_HINT}` : '';
  const retryAfterMs = parseRetryAfter(error.headers);
  return new ProviderError(PROVIDER, `Anthropic API error ${status}${kind}: ${vendorMessage}${hint}`, {
    status,
    retryable: isRetryableStatus(status),
    retryAfterMs,
    contextLength,
    cause: error,
  });
}

/** `instanceof` on the generic class gives `APIError<any, …>`; this gives the default parameters. */
function isApiError(error: unknown): error is APIError {
  return error instanceof APIError;
}

function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}
