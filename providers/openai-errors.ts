/**
 * What went wrong with a Chat Completions call, as our error tree: HTTP statuses, network failures
 * and cancellation. Retryability comes from providers/http-errors.ts, the one policy for every vendor.
 */
import { APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { AbortedError, McpHostError, messageOf, ProviderError } from '../src/core/errors.js';
import {
  isRetryableStatus,
  isTransientNetworkError,
  networkErrorCode,
  parseRetryAfter,
} from './http-errors.js';

/** The SDK's default base URL, used when neither `--provider-url` nor `OPENAI_BASE_URL` is set. */
export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';

/** The hint for a refused key. */
const KEY_HINT = 'check OPENAI_API_KEY or pass --provider-api-key';

/** A vendor message longer than this is cut (an HTML error page from a proxy, for instance). */
const MAX_VENDOR_MESSAGE_LENGTH = 500;

/**
 * Errors a server reports inside a stream (no HTTP status by then) that may pass on a new try. Read
 * from the error's `type` or `code` field, never from its message.
 */
const RETRYABLE_STREAM_ERRORS: ReadonlySet<string> = new Set([
  'server_error',
  'rate_limit_exceeded',
  'overloaded_error',
]);

/** Where the failing call went, for the message. */
export interface OpenAIErrorContext {
  /** Base URL of the API (the SDK's `baseURL`). */
  readonly baseUrl: string;
}

/**
 * Maps whatever the SDK (or the stream) threw. User aborts become {@link AbortedError}; everything
 * else a {@link ProviderError} whose `retryable` says whether the Runner may try again.
 */
export function toOpenAIError(
  error: unknown,
  context: OpenAIErrorContext = { baseUrl: DEFAULT_OPENAI_BASE_URL },
): ProviderError | AbortedError {
  if (error instanceof ProviderError || error instanceof AbortedError) return error;
  if (error instanceof McpHostError) return fail(error.message, false, error);
  if (error instanceof APIUserAbortError || (error instanceof Error && error.name === 'AbortError')) {
    return new AbortedError('cancelled', { cause: error });
  }
  if (error instanceof APIConnectionTimeoutError) {
    return fail(`the request to ${context.baseUrl} timed out`, true, error);
  }
  // `instanceof` narrows to APIError<any, …>; name the type we read.
  const apiError: APIError | undefined = error instanceof APIError ? (error as APIError) : undefined;
  if (apiError?.status !== undefined) return fromStatus(apiError, apiError.status, context);
  const code = networkErrorCode(error);
  if (code !== undefined) return fromNetwork(error, code, context);
  if (apiError?.error !== undefined) return fromStreamError(apiError);
  if (apiError !== undefined) {
    // A connection error without a recognisable code (a TLS failure, a malformed URL…).
    const cause = apiError.cause instanceof Error ? apiError.cause.message : apiError.message;
    return fail(`cannot reach ${context.baseUrl}: ${cause}`, false, error);
  }
  if (error instanceof SyntaxError) {
    return fail(`${context.baseUrl} sent a stream event that is not JSON: ${error.message}`, false, error);
  }
  const message = messageOf(error);
  return fail(`the call to ${context.baseUrl} failed: ${message}`, false, error);
}

/**
 * The "too long" refusal of OpenAI and of the servers that copy its API: OpenAI's 400 has the code
 * `context_length_exceeded` ("This model's maximum context length is 128000 tokens. However, your
 * messages resulted in 130521 tokens…"); vLLM, llama.cpp's server and LM Studio send the same words
 * (or "exceeds the context size"/"context length") without the code, so their message is read too.
 */
export function isOpenAIContextLengthError(
  status: number | undefined,
  code: unknown,
  message: string,
): boolean {
  if (code === 'context_length_exceeded') return true;
  if (status !== 400 && status !== 413 && status !== undefined) return false;
  return /maximum context length|exceeds? the (?:available )?context (?:size|length|window)|context_length_exceeded/i.test(
    message,
  );
}

/**
 * A server that will not take tools for this model (toolCalling `auto` then calls them by prompt):
 * Ollama's /v1 ("… does not support tools"), vLLM without a tool parser ("\"auto\" tool choice
 * requires --enable-auto-tool-choice and --tool-call-parser to be set"), llama.cpp's server without
 * templates ("tools param requires --jinja flag"), and gateways' "tool use/function calling is not
 * supported" wordings. Read from the message: none of them sends a code for it.
 */
export function isOpenAINoToolsError(status: number | undefined, message: string): boolean {
  if (status !== undefined && status !== 400 && status !== 422 && status !== 500 && status !== 501)
    return false;
  return /does not support (?:tools|tool use|tool calling|function calling)|(?:tools?|tool use|tool calling|function calling) (?:is|are) not supported|support tool use|--enable-auto-tool-choice|tools param requires --jinja/i.test(
    message,
  );
}

function fromStatus(error: APIError, status: number, context: OpenAIErrorContext): ProviderError {
  const vendorWords = vendorMessage(error, status);
  let message = `${context.baseUrl} answered ${status}: ${vendorWords}`;
  if (status === 401 || status === 403) message += ` (${KEY_HINT})`;
  if (status === 404)
    message += ' (check the model name, and the base URL: --provider-url or OPENAI_BASE_URL)';
  // A 429 for an exhausted quota will not pass by waiting; OpenAI marks it with this code.
  const retryable = isRetryableStatus(status) && error.code !== 'insufficient_quota';
  const retryAfterMs = retryable ? parseRetryAfter(error.headers) : undefined;
  return new ProviderError('openai', message, {
    status,
    retryable,
    contextLength: isOpenAIContextLengthError(status, error.code, vendorWords),
    toolsUnsupported: isOpenAINoToolsError(status, vendorWords),
    cause: error,
    retryAfterMs,
  });
}

function fromNetwork(error: unknown, code: string, context: OpenAIErrorContext): ProviderError {
  if (code === 'ECONNREFUSED') {
    return fail(
      `cannot reach ${context.baseUrl} (connection refused) — is the server running? ` +
        'Set its URL with --provider-url or OPENAI_BASE_URL',
      false,
      error,
    );
  }
  if (code === 'ENOTFOUND') return fail(`cannot reach ${context.baseUrl}: host not found`, false, error);
  const retryable = isTransientNetworkError(error);
  return fail(`the connection to ${context.baseUrl} failed (${code})`, retryable, error);
}

/** An `error` event inside a stream: the HTTP status was 200, the body says what went wrong. */
function fromStreamError(error: APIError): ProviderError {
  const type = typeof error.type === 'string' ? error.type : undefined;
  const code = typeof error.code === 'string' ? error.code : undefined;
  const retryable = [type, code].some((value) => value !== undefined && RETRYABLE_STREAM_ERRORS.has(value));
  return fail(`the stream failed: ${vendorMessage(error, undefined)}`, retryable, error);
}

/** The vendor's own words: the body's `error.message`, else the SDK's message without its status. */
function vendorMessage(error: APIError, status: number | undefined): string {
  const body: unknown = error.error;
  const prefix = status === undefined ? '' : `${status} `;
  let message =
    typeof body === 'object' && body !== null && 'message' in body && typeof body.message === 'string'
      ? body.message
      : error.message.startsWith(prefix)
        ? error.message.slice(prefix.length)
        : error.message;
  message = message.trim();
  if (message === '' || message === 'status code (no body)') message = 'no details';
  return message.length > MAX_VENDOR_MESSAGE_LENGTH
    ? `${message.slice(0, MAX_VENDOR_MESSAGE_LENGTH)}…`
    : message;
}

function fail(message: string, retryable: boolean, cause: unknown): ProviderError {
  return new ProviderError('openai', message, { retryable, cause });
}

/**
 * Wraps `fetch` so that error bodies in other shapes reach the SDK as OpenAI's
 * `{"error":{"message":…}}`: the SDK reads only that shape, and compatible servers send
 * `{"message":…}` (older vLLM), `{"detail":…}` (FastAPI-based servers) or `{"error":"…"}`.
 */
export function withNormalizedErrorBodies(fetchFunction: typeof fetch): typeof fetch {
  return async (input, init) => {
    const response = await fetchFunction(input, init);
    if (response.ok) return response;
    const text = await response.text();
    // The body is decoded text now: its original encoding and length no longer describe it.
    const headers = new Headers(response.headers);
    headers.delete('content-encoding');
    headers.delete('content-length');
    return new Response(normalizeErrorBody(text), {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
  };
}

/** The body in OpenAI's shape where it can be read as another server's error shape; else unchanged. */
export function normalizeErrorBody(text: string): string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return text;
  }
  if (typeof body !== 'object' || body === null) return text;
  const record = body as Record<string, unknown>;
  const nested = record.error;
  if (typeof nested === 'object' && nested !== null) return text;
  const message = [nested, record.message, record.detail].find(
    (value) => value !== undefined && value !== null,
  );
  if (message === undefined) return text;
  return JSON.stringify({
    error: {
      message: typeof message === 'string' ? message : JSON.stringify(message),
      type: typeof record.type === 'string' ? record.type : undefined,
      code: typeof record.code === 'string' ? record.code : undefined,
    },
  });
}
