/**
 * The HTTP exchange with Ollama: a JSON request, an answer read as chunks. Over `node:http` by
 * default, or over a caller's `fetch` (a library user's proxy, a test's counter).
 *
 * Why not the `ollama` client and Node's `fetch`, as before: the client touches the global
 * `Headers` on every request, and that, with the first `fetch`, loads undici and everything it
 * needs (http2, tls, zlib, web streams, worker_threads…) and compiles its HTTP parser from
 * WebAssembly. Measured on the development machine, that was ~120 ms of CPU and ~15 MB of peak
 * memory on every run, a third of a whole one-shot answer; `node:http` does the same exchange for
 * ~5 ms. The client added nothing else we used: the request body, the NDJSON stream and the error
 * answers were already ours (ollama-mapping.ts, ollama-stream.ts).
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';

/** Ollama's answer before its body is read: the status, one header, and the body as chunks. */
export interface OllamaHttpAnswer {
  readonly status: number;
  readonly statusText: string;
  /** A response header's value (`retry-after`), or `null`, as `Headers.get` gives it. */
  header(name: string): string | null;
  readonly body: AsyncIterable<Uint8Array>;
}

/** One request to Ollama. */
export interface OllamaHttpRequest {
  readonly url: string;
  readonly method: 'GET' | 'POST';
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
      const outgoing = send(url, {
        method: request.method,
        headers: { ...request.headers },
        signal: request.signal,
      });
      // Every error, not the first only: after the answer began, its stream carries the failure.
      outgoing.on('error', reject);
      outgoing.setTimeout(idleTimeoutMs, () => {
        const silence = Object.assign(new Error(`no answer for ${idleTimeoutMs / 1000} s`), {
          code: 'ETIMEDOUT',
        });
        outgoing.destroy(silence);
      });
      outgoing.once('response', (incoming: IncomingMessage) => {
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

/** The same exchange over a `fetch` function (its network errors keep fetch's shape: a cause chain). */
export function fetchOllamaHttp(fetchFunction: typeof fetch): OllamaHttp {
  return async (request) => {
    const response = await fetchFunction(request.url, {
      method: request.method,
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: request.body }),
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
