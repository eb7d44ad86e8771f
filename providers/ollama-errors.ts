/**
 * Failures of an Ollama call, mapped to {@link ProviderError} with the retryable flag from the
 * shared policy (providers/http-errors.ts) and a message that says what to do about it.
 */
import { McpHostError, messageOf, ProviderError } from '../src/core/errors.js';
import { OllamaStatusError, OllamaStreamError } from './ollama-stream.js';
import { isRetryableStatus, isTransientNetworkError, networkErrorCode } from './http-errors.js';

/** Where the failed call went, for the message. */
export interface OllamaErrorContext {
  /** The base URL that was called. */
  readonly host: string;
  /** The model that was asked for (named in the `ollama pull` hint). */
  readonly model: string;
}

/**
 * Maps anything an Ollama call threw to a {@link ProviderError}. Errors of mcphost's own tree
 * (an `AbortedError`, a `ProviderError` from reading the answer) pass through unchanged.
 */
export function toOllamaError(error: unknown, context: OllamaErrorContext): McpHostError {
  if (error instanceof McpHostError) return error;
  const status = statusOf(error);
  if (status !== undefined)
    return fromStatus(status.status, status.message, status.retryAfterMs, error, context);
  if (error instanceof OllamaStreamError) {
    // Ollama reports a failure mid-answer (its model runner crashed, ran out of memory…) on an
    // answer that already said 200; like a 5xx, another try may work.
    return new ProviderError('ollama', `Ollama at ${context.host} failed while answering: ${error.message}`, {
      retryable: error.retryable,
      cause: error,
    });
  }
  const code = networkErrorCode(error);
  if (code === 'ECONNREFUSED') {
    return new ProviderError(
      'ollama',
      `cannot reach Ollama at ${context.host} — is \`ollama serve\` running?`,
      {
        retryable: false,
        cause: error,
      },
    );
  }
  if (code === 'ENOTFOUND') {
    return new ProviderError('ollama', `cannot reach Ollama at ${context.host}: no such host`, {
      retryable: false,
      cause: error,
    });
  }
  if (code !== undefined) {
    return new ProviderError('ollama', `network error talking to Ollama at ${context.host} (${code})`, {
      retryable: isTransientNetworkError(error),
      cause: error,
    });
  }
  const message = messageOf(error);
  return new ProviderError('ollama', `Ollama at ${context.host}: ${message}`, {
    retryable: false,
    cause: error,
  });
}

interface StatusDetails {
  readonly status: number;
  readonly message: string;
  readonly retryAfterMs?: number;
}

/** An error answer, read by ollama-stream.ts. */
function statusOf(error: unknown): StatusDetails | undefined {
  if (!(error instanceof OllamaStatusError)) return undefined;
  return error.retryAfterMs === undefined
    ? { status: error.status, message: error.message }
    : { status: error.status, message: error.message, retryAfterMs: error.retryAfterMs };
}

/**
 * Ollama cuts an over-long prompt to its `num_ctx` without saying so (mcphost keeps within the
 * window it reads from the model's info instead), but refuses with a 400/500 when even the cut
 * prompt cannot fit: "input length exceeds the context length" / "prompt too long".
 */
export function isOllamaContextLengthError(message: string): boolean {
  return /exceeds (?:the )?(?:maximum )?context length|prompt too long|context length exceeded/i.test(
    message,
  );
}

/** `registry.ollama.ai/library/gemma3:4b does not support tools`: a model without the capability. */
export function isOllamaNoToolsError(message: string): boolean {
  return /does not support tools/i.test(message);
}

function fromStatus(
  status: number,
  message: string,
  retryAfterMs: number | undefined,
  cause: unknown,
  context: OllamaErrorContext,
): ProviderError {
  const details = {
    status,
    retryable: isRetryableStatus(status),
    retryAfterMs,
    contextLength: isOllamaContextLengthError(message),
    toolsUnsupported: isOllamaNoToolsError(message),
    cause,
  };
  // `model "x" not found, try pulling it first` (chat), `model 'x' not found` (show, pull, delete).
  if (status === 404 && /model/i.test(message)) {
    return new ProviderError('ollama', missingModelMessage(context), {
      ...details,
      missingModel: context.model,
    });
  }
  if (status === 404) {
    return new ProviderError(
      'ollama',
      `Ollama at ${context.host} answered 404 (${message}): is that address an Ollama server?`,
      details,
    );
  }
  return new ProviderError('ollama', `Ollama at ${context.host} answered ${status}: ${message}`, details);
}

/** The one line said when Ollama does not have the model. */
export function missingModelMessage(context: OllamaErrorContext): string {
  return `Ollama at ${context.host} does not have the model "${context.model}": run \`ollama pull ${context.model}\``;
}
