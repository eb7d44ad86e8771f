/**
 * Where and how mcphost talks to Ollama: the host (ollama-host.ts), the key rule, the transport
 * (ollama-http.ts), and the `ollama` client made over them. The provider and the model management
 * (ollama-models.ts) share it.
 */
import type { Ollama } from 'ollama/browser';
import { clientFetch, fetchOllamaHttp, nodeOllamaHttp, type OllamaHttp } from './ollama-http.js';
import { resolveOllamaHost } from './ollama-host.js';
import { nonEmptySetting, type ProviderOptions } from './options.js';

/** A resolved Ollama address with what every request carries. */
export interface OllamaConnection {
  /** The base URL, e.g. `http://127.0.0.1:11434`. */
  readonly host: string;
  /** Headers of every request (an `authorization` when there is a key for this host). */
  readonly headers: Readonly<Record<string, string>>;
  readonly http: OllamaHttp;
}

/** What a connection is made from: the provider's options, less the model. */
export type OllamaConnectionOptions = Pick<ProviderOptions, 'baseUrl' | 'apiKey' | 'env' | 'fetch'>;

/** Ollama's cloud (`https://ollama.com`), the one host the `OLLAMA_API_KEY` variable is sent to. */
const OLLAMA_CLOUD_ORIGIN = 'https://ollama.com';

/** @throws ConfigError when `--provider-url` or `OLLAMA_HOST` is not an address. */
export function ollamaConnection(options: OllamaConnectionOptions): OllamaConnection {
  const host = resolveOllamaHost(options);
  return {
    host,
    headers: keyHeader(host, options),
    http: options.fetch === undefined ? nodeOllamaHttp() : fetchOllamaHttp(options.fetch),
  };
}

/**
 * The `ollama` client for one call (cheap to make: it holds the host and headers). `signal` ends
 * that call, whether it is waiting for the answer or reading it. Loaded on first use, so that a run
 * that never talks to Ollama (`--help`, another vendor) does not load it. The browser entry: the
 * Node one adds only image paths read from disk, and mcphost sends images as base64 already.
 */
export async function ollamaClient(connection: OllamaConnection, signal?: AbortSignal): Promise<Ollama> {
  const { Ollama: Client } = await import('ollama/browser');
  return new Client({
    host: connection.host,
    headers: { ...connection.headers },
    fetch: clientFetch(connection.http, signal),
  });
}

/**
 * A key from `--provider-api-key` goes wherever the user pointed mcphost (a proxy in front of
 * Ollama may want one); a key from `OLLAMA_API_KEY` only to Ollama's cloud, as the `ollama` client
 * does, so that a key in the environment does not leak to another host.
 */
function keyHeader(host: string, options: OllamaConnectionOptions): Record<string, string> {
  const key =
    nonEmptySetting(options.apiKey) ??
    (new URL(host).origin === OLLAMA_CLOUD_ORIGIN ? nonEmptySetting(options.env.OLLAMA_API_KEY) : undefined);
  return key === undefined ? {} : { authorization: `Bearer ${key}` };
}
