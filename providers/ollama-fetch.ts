/**
 * The `fetch` handed to the `ollama` client. It keeps the client's own error handling out of the
 * way, because that handling prints: on an error answer that is not JSON the client calls
 * `console.log` (on our stdout, which holds the model's answer in `-p` mode), and on a streamed line
 * that is not JSON it calls `console.warn` and skips the line. Here an error answer becomes an
 * {@link OllamaStatusError} before the client sees it, and a bad streamed line becomes an
 * {@link OllamaStreamError}, so the client never reaches its printing paths.
 */
import { z } from 'zod';
import { parseRetryAfter } from './http-errors.js';

/** Ollama answered with an HTTP error status. `message` is Ollama's own `error` text. */
export class OllamaStatusError extends Error {
  readonly status: number;
  readonly retryAfterMs: number | undefined;
  constructor(status: number, message: string, retryAfterMs?: number) {
    super(message);
    this.name = 'OllamaStatusError';
    this.status = status;
    this.retryAfterMs = retryAfterMs;
  }
}

/** The streamed answer broke off: an `{"error": …}` line, a line that is not JSON, or no final line. */
export class OllamaStreamError extends Error {
  /** True for a failure that may pass (Ollama's own error line, a cut stream). */
  readonly retryable: boolean;
  constructor(message: string, retryable: boolean) {
    super(message);
    this.name = 'OllamaStreamError';
    this.retryable = retryable;
  }
}

/** Longest piece of an unexpected body quoted in an error message. */
const QUOTE_LIMIT = 300;

const errorBodySchema = z.object({ error: z.string() });

/**
 * Wraps `baseFetch` so that error answers throw {@link OllamaStatusError}, streamed bodies are
 * checked line by line, and `signal` (the caller's cancellation) aborts the request as well as the
 * client's own signal.
 */
export function createOllamaFetch(baseFetch: typeof fetch, signal: AbortSignal): typeof fetch {
  return async (input, init) => {
    const signals = init?.signal ? [init.signal, signal] : [signal];
    const response = await baseFetch(input, { ...init, signal: AbortSignal.any(signals) });
    if (!response.ok) throw await readStatusError(response);
    if (response.body === null) return response;
    return new Response(response.body.pipeThrough(checkedLines()), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** Reads Ollama's `{"error": "…"}` body, or failing that the text, or failing that the status. */
export async function readStatusError(response: Response): Promise<OllamaStatusError> {
  const retryAfterMs = parseRetryAfter(response.headers);
  let text = '';
  try {
    text = (await response.text()).trim();
  } catch {
    // The body could not be read; the status alone still says what happened.
  }
  let message = text.slice(0, QUOTE_LIMIT);
  try {
    const body = errorBodySchema.safeParse(JSON.parse(text));
    if (body.success) message = body.data.error;
  } catch {
    // Not JSON (a proxy's HTML page, Go's "404 page not found"): the text is the message.
  }
  if (message === '') message = `${response.status} ${response.statusText}`.trim();
  return new OllamaStatusError(response.status, message, retryAfterMs);
}

/**
 * Passes NDJSON lines through unchanged when each is a JSON object, drops blank lines, and fails
 * the stream with an {@link OllamaStreamError} on an `error` line, a line that is not a JSON object,
 * or an end without the final `done` line.
 */
function checkedLines(): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let buffer = '';
  let sawDone = false;
  const passLine = (line: string, controller: TransformStreamDefaultController<Uint8Array>): void => {
    if (line.trim() === '') return;
    const value = parseObject(line);
    if (value === undefined) {
      // Not something another try fixes: the address is probably not an Ollama server.
      throw new OllamaStreamError(
        `Ollama sent a line that is not JSON: ${line.slice(0, QUOTE_LIMIT)}`,
        false,
      );
    }
    if (typeof value.error === 'string') throw new OllamaStreamError(value.error, true);
    if (value.done === true) sawDone = true;
    controller.enqueue(encoder.encode(`${line}\n`));
  };
  return new TransformStream({
    transform(chunk, controller) {
      buffer += decoder.decode(chunk, { stream: true });
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) passLine(line, controller);
    },
    flush(controller) {
      buffer += decoder.decode();
      passLine(buffer, controller);
      if (!sawDone) throw new OllamaStreamError('the answer ended before Ollama said it was done', true);
    },
  });
}

function parseObject(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
