/**
 * The message size limit for remote servers. The SDK's HTTP transports read a JSON body whole and
 * an SSE event whole, without a limit; this `fetch` wrapper applies the same limit as our stdio
 * transport: an answer over it is dropped, and in its place the request gets the error response
 * of message-size.ts (its id is read from the POST body we sent), so the call ends at once and
 * says why, and the session goes on. Hand-written: no library limits SSE events by size.
 */
import type { FetchLike, RequestId } from '@modelcontextprotocol/client';
import { oversizeResponse, requestIdOf } from './message-size.js';

/** `fetch`, with every JSON-RPC answer held to `limitBytes`. */
export function sizeLimitedFetch(
  base: FetchLike,
  limitBytes: number,
  onDebug: (message: string) => void,
): FetchLike {
  return async (url, init) => {
    const response = await base(url, init);
    if (response.body === null || !response.ok) return response;
    const id = requestIdOfBody(init?.body);
    const type = response.headers.get('content-type') ?? '';
    if (type.includes('text/event-stream')) {
      const events = response.body
        .pipeThrough(new TextDecoderStream())
        .pipeThrough(limitEvents(limitBytes, id, onDebug))
        .pipeThrough(new TextEncoderStream());
      return new Response(events, { status: response.status, headers: withoutLength(response.headers) });
    }
    if (type.includes('application/json') && id !== undefined)
      return limitBody(response, limitBytes, id, onDebug);
    return response;
  };
}

/** The id of the JSON-RPC request in a POST body, if it holds one. */
function requestIdOfBody(body: RequestInit['body']): RequestId | undefined {
  if (typeof body !== 'string') return undefined;
  try {
    const message: unknown = JSON.parse(body);
    if (typeof message !== 'object' || message === null || Array.isArray(message)) return undefined;
    return requestIdOf(message as Parameters<typeof requestIdOf>[0]);
  } catch {
    return undefined;
  }
}

function withoutLength(headers: Headers): Headers {
  const copy = new Headers(headers);
  copy.delete('content-length');
  copy.delete('content-encoding');
  return copy;
}

/** A JSON answer, read up to the limit; past it, counted to its end and replaced by the error. */
async function limitBody(
  response: Response,
  limitBytes: number,
  id: RequestId,
  onDebug: (message: string) => void,
): Promise<Response> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (let part = await reader.read(); !part.done; part = await reader.read()) {
    bytes += part.value.byteLength;
    // Past the limit nothing more is kept; the rest is only counted, to say how large it was.
    if (bytes <= limitBytes) chunks.push(part.value);
    else chunks.length = 0;
  }
  const headers = withoutLength(response.headers);
  if (bytes <= limitBytes) return new Response(Buffer.concat(chunks), { status: response.status, headers });
  onDebug(
    `dropped an HTTP answer of ${bytes} bytes (over the limit of ${limitBytes}) to request ${String(id)}`,
  );
  const error = oversizeResponse(id, { bytes, atLeast: false, limitBytes });
  return new Response(JSON.stringify(error), { status: response.status, headers });
}

/**
 * Passes SSE events through one by one; an event over the limit is dropped and, on a POST's own
 * stream (which carries that request's answer), replaced by the error response for it.
 */
function limitEvents(
  limitBytes: number,
  id: RequestId | undefined,
  onDebug: (message: string) => void,
): TransformStream<string, string> {
  let parts: string[] = [];
  let bytes = 0;
  let dropping = false;
  // The end of the event so far, so that a blank line split across two chunks is still found.
  let carry = '';
  const append = (text: string): void => {
    bytes += Buffer.byteLength(text);
    if (dropping) return;
    if (bytes > limitBytes) {
      dropping = true;
      parts = [];
    } else parts.push(text);
  };
  const finish = (controller: TransformStreamDefaultController<string>): void => {
    if (!dropping) controller.enqueue(parts.join(''));
    else if (id === undefined)
      onDebug(`dropped an SSE event of ${bytes} bytes (over the limit of ${limitBytes})`);
    else {
      onDebug(
        `dropped an SSE event of ${bytes} bytes (over the limit of ${limitBytes}), the answer to request ${String(id)}`,
      );
      const error = oversizeResponse(id, { bytes, atLeast: false, limitBytes });
      controller.enqueue(`event: message\ndata: ${JSON.stringify(error)}\n\n`);
    }
    parts = [];
    bytes = 0;
    dropping = false;
    carry = '';
  };
  return new TransformStream<string, string>({
    transform(chunk, controller) {
      let text = chunk;
      while (text.length > 0) {
        const boundary = /\r?\n\r?\n/.exec(carry + text);
        if (boundary === null) {
          append(text);
          carry = (carry + text).slice(-3);
          return;
        }
        const end = boundary.index + boundary[0].length - carry.length;
        append(text.slice(0, end));
        finish(controller);
        text = text.slice(end);
      }
    },
    flush(controller) {
      if (bytes > 0) finish(controller);
    },
  });
}
