/**
 * The transport under the `ollama` client: a JSON request, an answer read as chunks. Over `node:http`
 * by default, or over a caller's `fetch` (a library user's proxy, a test's counter).
 *
 * Why the client gets this, through its `fetch` option, and not Node's own `fetch`: on Node 20 the
 * first `fetch` loads undici and everything it needs (http2, tls, zlib, worker_threads…) and
 * compiles its HTTP parser from WebAssembly, ~225 ms and ~40 MB more than `node:http` measured for
 * issue 26, most of a one-shot answer. {@link clientFetch} hands the client an answer with the few
 * things it reads (`ok`, `status`, `headers.get`, `body.getReader()`, `json()`, `text()`), so
 * neither a `Response` nor a `Headers` is ever made.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import {
  checkedNdjson,
  isSuccess,
  readStatusError,
  readText,
  type OllamaHttpAnswer,
} from './ollama-stream.js';
import { definedProperties } from '../src/util/defined-properties.js';

export type { OllamaHttpAnswer } from './ollama-stream.js';

/** One request to Ollama. */
export interface OllamaHttpRequest {
  readonly url: string;
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** JSON text, for a POST. */
  readonly body?: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly signal: AbortSignal;
}

/** Sends a request and resolves once the answer's status and headers have arrived. */
export type OllamaHttp = (request: OllamaHttpRequest) => Promise<OllamaHttpAnswer>;

/**
 * How long the connection may stay silent, waiting for the answer's headers or its next line, before
 * the request fails (retryably, as ETIMEDOUT): the limits undici's `fetch` applied before, 300 s each,
 * long enough for Ollama to load a large model.
 */
export const OLLAMA_IDLE_TIMEOUT_MS = 300_000;

/** The default exchange, over `node:http` (or `node:https`, loaded only for an https host). */
export function nodeOllamaHttp(idleTimeoutMs = OLLAMA_IDLE_TIMEOUT_MS): OllamaHttp {
  return async (request) => {
    const url = new URL(request.url);
    const send = url.protocol === 'https:' ? (await import('node:https')).request : httpRequest;
    return new Promise<OllamaHttpAnswer>((resolve, reject) => {
      const { signal } = request;
      if (signal.aborted) {
        reject(abortError(signal));
        return;
      }
      // The signal is ours to apply, not `http.request`'s: Node's own handling destroys the socket
      // with an AbortError even when the answer has arrived whole but is not read to its end (the
      // client stops at Ollama's `done` line and a buggy server or a proxy sent more after it), and
      // by then the socket may have no listener left: an uncaught 'error' ended the process.
      const outgoing = send(url, {
        method: request.method,
        // A length, not chunks: Node sends a DELETE's body unframed unless told its length.
        headers: {
          ...request.headers,
          ...(request.body === undefined
            ? {}
            : { 'content-length': String(Buffer.byteLength(request.body)) }),
        },
      });
      let answer: IncomingMessage | undefined;
      const onAbort = (): void => {
        if (answer === undefined) {
          // Before the answer: the request fails with the abort (through its 'error', below).
          outgoing.destroy(abortError(signal));
          return;
        }
        // The socket goes with the answer and is never used again: whatever it raises while it is
        // torn down is about a connection no one needs any more, not about the answer.
        // (Typed as always there, but null once the answer let go of it.)
        const socket = answer.socket as Socket | null;
        socket?.on('error', () => undefined);
        // A body read to its last byte is whole: ending it is no error. Otherwise its reader, if
        // any, learns of the abort through its iterator.
        answer.destroy(answer.complete ? undefined : abortError(signal));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      outgoing.once('close', () => signal.removeEventListener('abort', onAbort));
      // Every error, not the first only: after the answer began, its stream carries the failure.
      outgoing.on('error', reject);
      outgoing.setTimeout(idleTimeoutMs, () => {
        const silence = Object.assign(new Error(`no answer for ${idleTimeoutMs / 1000} s`), {
          code: 'ETIMEDOUT',
        });
        outgoing.destroy(silence);
      });
      outgoing.once('response', (incoming: IncomingMessage) => {
        answer = incoming;
        // A failure of the body reaches whoever reads it (its async iterator rejects). This
        // listener is for the body no one reads any more: the client stops at Ollama's last line,
        // and the abort that then closes the connection must not become an uncaught exception.
        incoming.on('error', () => undefined);
        resolve({
          status: incoming.statusCode ?? 0,
          statusText: incoming.statusMessage ?? '',
          header: (name) => headerValue(incoming.headers[name.toLowerCase()]),
          body: incoming,
        });
      });
      outgoing.end(request.body);
    });
  };
}

/** An abort as `http.request` reports one (name `AbortError`), with the signal's reason as cause. */
function abortError(signal: AbortSignal): Error {
  return Object.assign(new Error('The operation was aborted', { cause: signal.reason }), {
    name: 'AbortError',
    code: 'ABORT_ERR',
  });
}

/** The same exchange over a `fetch` function (its network errors keep fetch's shape: a cause chain). */
export function fetchOllamaHttp(fetchFunction: typeof fetch): OllamaHttp {
  return async (request) => {
    const response = await fetchFunction(request.url, {
      method: request.method,
      headers: request.headers,
      ...definedProperties({ body: request.body }),
      signal: request.signal,
    });
    // Node's web ReadableStream is async-iterable; lib.dom's type does not say so.
    const body = (response.body ?? emptyBody()) as AsyncIterable<Uint8Array>;
    return {
      status: response.status,
      statusText: response.statusText,
      header: (name) => response.headers.get(name),
      body,
    };
  };
}

function headerValue(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}

async function* emptyBody(): AsyncGenerator<Uint8Array, void, undefined> {
  // A fetch answer without a body (a HEAD, a 204): nothing to read.
}

/**
 * A `fetch` for the `ollama` client over `http`. `signal` (the caller's, for one call) is laid over
 * the client's own, since the client's streamed calls take none. Two rules of ours come first:
 * - an error answer throws {@link OllamaStatusError} here, with Ollama's message and `Retry-After`:
 *   the client's own reading of it drops the header and prints to stdout for a body that is not JSON;
 * - a streamed body is checked line by line ({@link checkedNdjson}): the client skips a line that is
 *   not JSON with a warning on stderr and turns an `error` line into a plain Error.
 */
export function clientFetch(http: OllamaHttp, signal?: AbortSignal): typeof fetch {
  const send = async (url: string, init: ClientInit): Promise<ClientAnswer> => {
    const signals = [init.signal, signal].filter((item): item is AbortSignal => item != null);
    const answer = await http({
      url,
      method: init.method === 'POST' || init.method === 'DELETE' ? init.method : 'GET',
      headers: init.headers ?? {},
      ...(typeof init.body === 'string' ? { body: init.body } : {}),
      signal: AbortSignal.any(signals),
    });
    if (!isSuccess(answer)) throw await readStatusError(answer);
    let stream: ChunkReader | undefined;
    return {
      ok: true,
      status: answer.status,
      statusText: answer.statusText,
      headers: { get: (name: string) => answer.header(name) },
      // Made on first use (a JSON answer, show or tags, never needs one), and once: the client
      // reads `body` twice.
      get body() {
        stream ??= chunkReader(checkedNdjson(answer.body));
        return stream;
      },
      json: async () => JSON.parse(await readText(answer.body)) as unknown,
      text: () => readText(answer.body),
    };
  };
  // What the client passes and reads is a small part of RequestInit and Response (see above); the
  // casts say that this is all it gets, which the provider tests hold against the real client.
  return send as unknown as typeof fetch;
}

/** What the `ollama` client passes to `fetch` (it normalizes headers to a plain object first). */
interface ClientInit {
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: unknown;
  readonly signal?: AbortSignal | null;
}

/** What the `ollama` client reads of an answer. */
interface ClientAnswer {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  readonly headers: { get(name: string): string | null };
  readonly body: ChunkReader;
  json(): Promise<unknown>;
  text(): Promise<string>;
}

/**
 * The part of a web `ReadableStream` the client reads a streamed body through (`getReader()`,
 * `read()`, `releaseLock()`): made over the chunks directly, because a real one loads Node's web
 * streams (and `worker_threads`' message ports) on every run for nothing else.
 */
interface ChunkReader {
  getReader(): {
    read(): Promise<{ done: true; value?: undefined } | { done: false; value: Uint8Array }>;
    releaseLock(): void;
  };
}

function chunkReader(chunks: AsyncIterable<Uint8Array>): ChunkReader {
  const iterator = chunks[Symbol.asyncIterator]();
  return {
    getReader: () => ({
      read: async () => {
        const next = await iterator.next();
        return next.done === true ? { done: true } : { done: false, value: next.value };
      },
      releaseLock: () => undefined,
    }),
  };
}
