/**
 * Token revocation at sign-out (RFC 7009): when the authorization server advertises a
 * `revocation_endpoint`, the refresh token is revoked first (which, per RFC 7009 §2.1, may take
 * its access tokens with it), then the access token. Written here because the SDK has discovery
 * but no revocation call; the request is one form POST.
 *
 * Never throws: sign-out forgets locally whatever happens at the server, and a revocation that
 * failed is a warning. No outcome carries a token.
 */
import { discoverOAuthServerInfo, type FetchLike } from '@modelcontextprotocol/client';
import type { OAuthSettings } from '../definition.js';
import type { SignInEntry } from './token-store.js';

/** How a revocation went. */
export type RevocationOutcome =
  /** Both tokens held were revoked (the server answered 200 to each). */
  | { readonly kind: 'revoked'; readonly count: number }
  /** Nothing to revoke: no tokens were stored. */
  | { readonly kind: 'nothing-stored' }
  /** The authorization server advertises no revocation endpoint. */
  | { readonly kind: 'not-supported' }
  /** Discovery or a revocation request failed; `reason` is one phrase, without any token. */
  | { readonly kind: 'failed'; readonly reason: string };

/** What {@link revokeStoredTokens} needs. */
export interface RevokeOptions {
  readonly serverUrl: string;
  readonly entry: SignInEntry;
  /** A configured client (id, secret) authenticates the requests; else the stored registration. */
  readonly settings: Pick<OAuthSettings, 'clientId' | 'clientSecret'>;
  readonly fetch?: FetchLike;
}

/** Revokes the entry's refresh token, then its access token, where the server allows it. */
export async function revokeStoredTokens(options: RevokeOptions): Promise<RevocationOutcome> {
  const { tokens, client } = options.entry;
  if (tokens === undefined) return { kind: 'nothing-stored' };
  const fetchFn = options.fetch ?? fetch;
  let endpoint: string | undefined;
  try {
    const info = await discoverOAuthServerInfo(options.serverUrl, { fetchFn });
    // RFC 8414 §2 names it; the SDK's metadata type keeps unknown fields but does not name this one.
    const advertised: unknown = (info.authorizationServerMetadata as Record<string, unknown> | undefined)
      ?.revocation_endpoint;
    endpoint = typeof advertised === 'string' && advertised !== '' ? advertised : undefined;
  } catch (error) {
    return { kind: 'failed', reason: `the authorization server could not be found (${phrase(error)})` };
  }
  if (endpoint === undefined) return { kind: 'not-supported' };

  const clientId = options.settings.clientId ?? client?.client_id;
  const clientSecret = options.settings.clientSecret ?? client?.client_secret;
  const method = authMethodOf(client?.token_endpoint_auth_method, clientSecret);
  const revocations = [
    ...(tokens.refresh_token === undefined
      ? []
      : [{ token: tokens.refresh_token, hint: 'refresh_token' as const }]),
    { token: tokens.access_token, hint: 'access_token' as const },
  ];
  for (const { token, hint } of revocations) {
    const body = new URLSearchParams({ token, token_type_hint: hint });
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    if (method === 'client_secret_basic' && clientId !== undefined && clientSecret !== undefined) {
      // RFC 6749 §2.3.1: each part form-encoded before the Basic encoding.
      const pair = `${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`;
      headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
    } else {
      if (clientId !== undefined) body.set('client_id', clientId);
      if (method === 'client_secret_post' && clientSecret !== undefined)
        body.set('client_secret', clientSecret);
    }
    let response: Response;
    try {
      response = await fetchFn(endpoint, { method: 'POST', headers, body });
    } catch (error) {
      return { kind: 'failed', reason: `the revocation request failed (${phrase(error)})` };
    }
    const answer = await response.text().catch(() => '');
    if (!response.ok) {
      const code = /"error"\s*:\s*"([\w.-]{1,64})"/.exec(answer)?.[1];
      return {
        kind: 'failed',
        reason: `the authorization server refused to revoke the ${hint.replace('_', ' ')} (HTTP ${response.status}${code === undefined ? '' : ` ${code}`})`,
      };
    }
  }
  return { kind: 'revoked', count: revocations.length };
}

type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none';

/** The registration's token endpoint method, else basic with a secret and none without. */
function authMethodOf(registered: unknown, secret: string | undefined): ClientAuthMethod {
  if (registered === 'client_secret_basic' || registered === 'client_secret_post' || registered === 'none')
    return registered;
  return secret === undefined ? 'none' : 'client_secret_basic';
}

/** An error as a short phrase (never a response body, which could echo a token). */
function phrase(error: unknown): string {
  return error instanceof Error ? (error.message.split('\n')[0]?.slice(0, 120) ?? 'unknown') : 'unknown';
}
