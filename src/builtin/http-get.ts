/**
 * One guarded HTTP GET for the `fetch` server: every hop (the URL, then each redirect) is checked
 * against the network policy on the address really connected to, the whole fetch has one deadline,
 * and the body is read (and decompressed) only up to a size cap.
 *
 * Hand-written over `node:http` rather than the global `fetch`: Node's fetch takes no `lookup`, so
 * the address it connects to could not be checked without the separate undici package; and its
 * automatic redirects would skip the check on each hop.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Readable } from 'node:stream';
import { AddressRefusedError, guardedLookup, refusalFor, type NetworkPolicy } from './network-guard.js';

/** What {@link httpGet} needs. */
export interface HttpGetOptions {
  readonly url: string;
  readonly policy: NetworkPolicy;
  readonly timeoutMs: number;
  readonly maxBytes: number;
  readonly maxRedirects: number;
  readonly signal?: AbortSignal;
  readonly userAgent: string;
  /** Resolves host names (default: the system's resolver), checked by the guard either way. */
  readonly lookup?: Parameters<typeof guardedLookup>[1];
}

/** A fetched page. */
export interface HttpGetResult {
  /** After redirects. */
  readonly url: string;
  readonly status: number;
  readonly contentType: string;
  readonly body: Buffer;
  /** The body was longer than the cap and was cut there. */
  readonly cut: boolean;
}

/** A fetch that failed, in words for the model. */
export class HttpGetError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'HttpGetError';
  }
}

/** GETs `options.url`, following redirects under the same checks. */
export async function httpGet(options: HttpGetOptions): Promise<HttpGetResult> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal === undefined ? deadline : AbortSignal.any([deadline, options.signal]);
  const lookup = guardedLookup(options.policy, options.lookup);
  let url = parseHttpUrl(options.url);
  try {
    for (let redirects = 0; ; redirects += 1) {
      const response = await requestOnce(url, lookup, options, signal);
      const location = response.headers.location;
      if (
        response.statusCode !== undefined &&
        response.statusCode >= 300 &&
        response.statusCode < 400 &&
        location
      ) {
        response.resume();
        if (redirects >= options.maxRedirects) {
          throw new HttpGetError(`too many redirects (more than ${options.maxRedirects})`);
        }
        url = parseHttpUrl(new URL(location, url).href, `redirect from ${url.href}`);
        continue;
      }
      const { body, cut } = await readCapped(decoded(response), options.maxBytes);
      // A cut body leaves the connection open (the decompressor, not the socket, was destroyed).
      response.destroy();
      return {
        url: url.href,
        status: response.statusCode ?? 0,
        contentType: response.headers['content-type'] ?? '',
        body,
        cut,
      };
    }
  } catch (error) {
    if (deadline.aborted)
      throw new HttpGetError(`no complete answer within ${options.timeoutMs} ms`, { cause: error });
    if (options.signal?.aborted === true) throw new HttpGetError('cancelled', { cause: error });
    if (error instanceof HttpGetError) throw error;
    if (error instanceof AddressRefusedError)
      throw new HttpGetError(`refused: ${error.message}`, { cause: error });
    throw new HttpGetError(`${url.href}: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
}

function parseHttpUrl(text: string, where = 'url'): URL {
  if (!URL.canParse(text)) throw new HttpGetError(`${where}: "${text}" is not a URL`);
  const url = new URL(text);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new HttpGetError(`${where}: only http and https URLs are fetched, not ${url.protocol}`);
  }
  return url;
}

function requestOnce(
  url: URL,
  lookup: LookupFunction,
  options: HttpGetOptions,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  // An address written in the URL is never looked up, so the lookup's check would not run: check it here.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (/^[\d.]+$/.test(host) || host.includes(':')) {
    const refusal = refusalFor(host, options.policy);
    if (refusal !== undefined) return Promise.reject(new AddressRefusedError(url.href, refusal));
  }
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = request(url, {
      method: 'GET',
      lookup,
      signal,
      // A fresh connection per request: a kept-alive socket's address was checked for another host.
      agent: false,
      headers: {
        'user-agent': options.userAgent,
        accept: 'text/html, text/markdown, text/plain, application/json, */*;q=0.5',
        'accept-encoding': 'gzip, deflate, br',
      },
    });
    outgoing.once('response', resolve);
    outgoing.once('error', reject);
    outgoing.end();
  });
}

/** The body, decompressed as its Content-Encoding says (the cap applies to what comes out). */
function decoded(response: IncomingMessage): Readable {
  switch ((response.headers['content-encoding'] ?? '').trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return response.pipe(createGunzip());
    case 'deflate':
      return response.pipe(createInflate());
    case 'br':
      return response.pipe(createBrotliDecompress());
    default:
      return response;
  }
}

async function readCapped(stream: Readable, maxBytes: number): Promise<{ body: Buffer; cut: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = chunk as Buffer;
    if (size + buffer.length > maxBytes) {
      chunks.push(buffer.subarray(0, maxBytes - size));
      stream.destroy();
      return { body: Buffer.concat(chunks), cut: true };
    }
    chunks.push(buffer);
    size += buffer.length;
  }
  return { body: Buffer.concat(chunks), cut: false };
}
