/**
 * Where a server's protected resource metadata is, as the server itself says in its challenge.
 *
 * RFC 9728 §5.1 lets a server publish its metadata at any URL and name it only in the
 * `WWW-Authenticate: Bearer resource_metadata="…"` of a 401; no well-known path reaches it (the
 * conformance scenario `auth/metadata-var3`). A connection learns that URL from the 401 the SDK's
 * transport receives; `mcphost auth login` sends no MCP request of its own, so before a sign-in
 * whose provider has not seen a challenge, this asks the server once, unauthenticated, exactly as
 * a connection's first request would be refused. Everything after that (the metadata, then the
 * authorization server's RFC 8414 / OpenID variants) is the SDK's own discovery in `auth()`, the
 * same for both paths.
 */
import { extractWWWAuthenticateParams, type FetchLike } from '@modelcontextprotocol/client';

/** How long the probe may take before the sign-in goes on with the well-known paths alone. */
const PROBE_TIMEOUT_MS = 10_000;

/** What {@link challengedResourceMetadataUrl} needs. */
export interface ChallengeProbeOptions {
  readonly serverUrl: string;
  /** Default: the global fetch. */
  readonly fetch?: FetchLike;
  readonly signal?: AbortSignal;
}

/**
 * The `resource_metadata` URL of the server's 401/403 challenge to an unauthenticated request, or
 * undefined when it sends none (it then publishes its metadata at a well-known path, or has none).
 * A server that cannot be reached is not an error here: the sign-in's own discovery reports it.
 */
export async function challengedResourceMetadataUrl(
  options: ChallengeProbeOptions,
): Promise<URL | undefined> {
  const timeout = AbortSignal.timeout(PROBE_TIMEOUT_MS);
  const signal = options.signal === undefined ? timeout : AbortSignal.any([options.signal, timeout]);
  const fetchFn: FetchLike = options.fetch ?? fetch;
  let response: Response;
  try {
    // A `ping`: it changes nothing on a server that turns out to need no sign-in.
    response = await fetchFn(options.serverUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'mcphost-sign-in-probe', method: 'ping' }),
      signal,
    });
  } catch (error) {
    if (options.signal?.aborted === true) throw error;
    return undefined;
  }
  await response.body?.cancel().catch(() => undefined);
  if (response.status !== 401 && response.status !== 403) return undefined;
  return extractWWWAuthenticateParams(response).resourceMetadataUrl;
}
