/**
 * Where the Ollama server is. The `ollama` package does not read `OLLAMA_HOST`, and the forms people
 * put there are the ones the `ollama` CLI accepts (`0.0.0.0`, `host:port`, `:port`, no scheme…), so
 * this reads them the way Ollama itself does (its `envconfig.Host`).
 */
import { ConfigError } from '../src/core/errors.js';

/** Ollama's port when none is given and no scheme says otherwise. */
export const DEFAULT_OLLAMA_PORT = 11434;

/** Where a local Ollama listens by default. */
export const DEFAULT_OLLAMA_HOST = `http://127.0.0.1:${DEFAULT_OLLAMA_PORT}`;

/** The configured host and where it came from (for error messages). */
export interface OllamaHostSource {
  /** `--provider-url`, when given. */
  readonly baseUrl?: string;
  /** The environment; `OLLAMA_HOST` is read from it. */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/**
 * The base URL to send requests to: `baseUrl` if given, else `OLLAMA_HOST`, else
 * {@link DEFAULT_OLLAMA_HOST}. The result has a scheme, a host and a port, and no trailing slash.
 *
 * @throws ConfigError when the value cannot be a URL (an unknown scheme, a bad host).
 */
export function resolveOllamaHost(source: OllamaHostSource): string {
  const fromFlag = trimValue(source.baseUrl);
  if (fromFlag !== '') return parseOllamaHost(fromFlag, '--provider-url');
  const fromEnvironment = trimValue(source.env.OLLAMA_HOST);
  if (fromEnvironment !== '') return parseOllamaHost(fromEnvironment, 'OLLAMA_HOST');
  return DEFAULT_OLLAMA_HOST;
}

/**
 * Reads one host value. Without a scheme the port defaults to 11434; with `http://` or `https://` it
 * defaults to 80 or 443, as in Ollama. A listen-everywhere address (`0.0.0.0`, `::`, or none, as in
 * `:11434`) means "this machine" to a client, so it becomes the loopback address.
 */
export function parseOllamaHost(text: string, source: string): string {
  const value = trimValue(text);
  if (value === '') return DEFAULT_OLLAMA_HOST;
  if (value === 'ollama.com') return 'https://ollama.com:443';

  const schemeEnd = value.indexOf('://');
  const scheme = schemeEnd === -1 ? 'http' : value.slice(0, schemeEnd).toLowerCase();
  if (scheme !== 'http' && scheme !== 'https') {
    throw new ConfigError(source, `"${text}" is not an Ollama address (use http:// or https://)`);
  }
  const defaultPort = schemeEnd === -1 ? DEFAULT_OLLAMA_PORT : scheme === 'https' ? 443 : 80;
  const rest = schemeEnd === -1 ? value : value.slice(schemeEnd + 3);
  const pathStart = rest.indexOf('/');
  const hostAndPort = pathStart === -1 ? rest : rest.slice(0, pathStart);
  const path = pathStart === -1 ? '' : rest.slice(pathStart).replace(/\/+$/, '');

  const split = splitHostPort(hostAndPort);
  const host = clientAddress(split?.host ?? hostAndPort.replace(/^\[(.*)\]$/, '$1'));
  const port = validPort(split?.port) ?? defaultPort;
  const url = `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}${path}`;
  try {
    new URL(url);
  } catch {
    throw new ConfigError(source, `"${text}" is not an Ollama address`);
  }
  return url;
}

/** Environment values are sometimes quoted in service files; Ollama strips the quotes too. */
function trimValue(value: string | undefined): string {
  return (value ?? '').trim().replace(/^["']+|["']+$/g, '');
}

/** Go's `net.SplitHostPort`: `host:port` or `[v6]:port`; undefined when there is no port part. */
function splitHostPort(text: string): { host: string; port: string } | undefined {
  if (text.startsWith('[')) {
    const match = /^\[([^\]]*)\]:([^:]*)$/.exec(text);
    return match === null ? undefined : { host: match[1] ?? '', port: match[2] ?? '' };
  }
  const colon = text.indexOf(':');
  if (colon === -1 || colon !== text.lastIndexOf(':')) return undefined;
  return { host: text.slice(0, colon), port: text.slice(colon + 1) };
}

/** A server's listen-everywhere address is not somewhere a client can connect to on every OS. */
function clientAddress(host: string): string {
  if (host === '' || host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '::1';
  return host;
}

/** Ollama falls back to the default port when the given one is not a port number. */
function validPort(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d{1,5}$/.test(text)) return undefined;
  const port = Number(text);
  return port <= 65535 ? port : undefined;
}
