/** `server.address` and `server.port` of a URL (a model's API, a remote MCP server). */
import type { Attributes } from '@opentelemetry/api';
import { ATTR_SERVER_ADDRESS, ATTR_SERVER_PORT } from './semconv.js';

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };

/**
 * The host and port a URL names (the port its scheme implies when none is written); `{}` for
 * none or an unparsable one. Only these two: the path or query of a URL may hold a key.
 */
export function serverAttributes(url: string | undefined): Attributes {
  if (url === undefined) return {};
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return {};
  }
  // An IPv6 literal is written in brackets in a URL, but not in `server.address`.
  const address = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  if (address === '') return {};
  const port = parsed.port === '' ? DEFAULT_PORTS[parsed.protocol] : Number(parsed.port);
  return port === undefined
    ? { [ATTR_SERVER_ADDRESS]: address }
    : { [ATTR_SERVER_ADDRESS]: address, [ATTR_SERVER_PORT]: port };
}
