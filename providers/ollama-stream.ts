/**
 * Reading Ollama's answers: an error answer becomes an {@link OllamaStatusError}; a streamed
 * answer is NDJSON, one object per line, checked here line by line so that a broken stream fails
 * with an {@link OllamaStreamError} that says how, instead of ending quietly.
 */
import * as z from 'zod';
import { parseRetryAfter } from './http-errors.js';
/** Ollama's answer before its body is read (ollama-http.ts makes it). */
export interface OllamaHttpAnswer {
  readonly status: number;
  readonly statusText: string;
  /** A response header's value (`retry-after`), or `null`, as `Headers.get` gives it. */
  header(name: string): string | null;
  readonly body: AsyncIterable<Uint8Array>;
}

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
/** Most of an error body read: enough for any message worth quoting. */
const ERROR_BODY_LIMIT = 64 * 1024;

const errorBodySchema = z.object({ error: z.string() });

/** True for a 2xx answer. */
export function isSuccess(answer: OllamaHttpAnswer): boolean {
  return answer.status >= 200 && answer.status < 300;
}

/** Reads Ollama's `{"error": "…"}` body, or failing that the text, or failing that the status. */
export async function readStatusError(answer: OllamaHttpAnswer): Promise<OllamaStatusError> {
  const retryAfterMs = parseRetryAfter({ get: (name) => answer.header(name) });
  let text = '';
  try {
    text = (await readText(answer.body, ERROR_BODY_LIMIT)).trim();
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
  if (message === '') message = `${answer.status} ${answer.statusText}`.trim();
  return new OllamaStatusError(answer.status, message, retryAfterMs);
}

/** The body as text, up to `limit` bytes (the rest is not read). */
export async function readText(
  body: AsyncIterable<Uint8Array>,
  limit = Number.POSITIVE_INFINITY,
): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  for await (const chunk of body) {
    text += decoder.decode(chunk, { stream: true });
    size += chunk.byteLength;
    if (size >= limit) break;
  }
  return text + decoder.decode();
}

/**
 * The objects of an NDJSON answer, in order. Blank lines are skipped; an `error` line, a line that
 * is not a JSON object, or an end without the final line (`"done": true` of a chat, `"status":
 * "success"` of a pull) throws {@link OllamaStreamError}.
 */
export async function* ollamaStreamObjects(
  body: AsyncIterable<Uint8Array>,
): AsyncGenerator<Record<string, unknown>, void, undefined> {
  const decoder = new TextDecoder();
  let buffer = '';
  let sawDone = false;
  const check = (line: string): Record<string, unknown> | undefined => {
    if (line.trim() === '') return undefined;
    const value = parseObject(line);
    if (value === undefined) {
      // Not something another try fixes: the address is probably not an Ollama server.
      throw new OllamaStreamError(
        `Ollama sent a line that is not JSON: ${line.slice(0, QUOTE_LIMIT)}`,
        false,
      );
    }
    if (typeof value.error === 'string') throw new OllamaStreamError(value.error, true);
    return value;
  };
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    for (const line of lines) {
      const value = check(line);
      if (value === undefined) continue;
      sawDone ||= isFinalLine(value);
      yield value;
    }
  }
  const last = check(buffer + decoder.decode());
  if (last !== undefined) {
    sawDone ||= isFinalLine(last);
    yield last;
  }
  if (!sawDone) throw new OllamaStreamError('the answer ended before Ollama said it was done', true);
}

/** The last line of a streamed chat (`done`) or pull (`status: success`). */
function isFinalLine(value: Record<string, unknown>): boolean {
  return value.done === true || value.status === 'success';
}

/**
 * The same answer as bytes again, one checked line at a time (see {@link ollamaStreamObjects}), for
 * a reader that is more lenient than we want (the `ollama` client, see ollama-http.ts).
 */
export async function* checkedNdjson(
  body: AsyncIterable<Uint8Array>,
): AsyncGenerator<Uint8Array, void, undefined> {
  const encoder = new TextEncoder();
  const line = (value: Record<string, unknown>): Uint8Array => encoder.encode(`${JSON.stringify(value)}\n`);
  // The last line is passed on once the body has ended: the client stops reading at that line, and
  // a body read to its end frees the connection (for the next request) instead of leaving it open.
  let last: Record<string, unknown> | undefined;
  for await (const value of ollamaStreamObjects(body)) {
    if (last !== undefined) yield line(last);
    last = isFinalLine(value) ? value : undefined;
    if (last === undefined) yield line(value);
  }
  if (last !== undefined) yield line(last);
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
