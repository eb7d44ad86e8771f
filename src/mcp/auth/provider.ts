/**
 * mcphost's `OAuthClientProvider`: the SDK's `auth()` runs discovery, registration, PKCE, the
 * issuer checks (RFC 8414 §3.3, RFC 9207), resource selection (RFC 8707) and refresh; this class
 * gives it storage and the decisions that are the host's:
 *
 * - tokens and the dynamic registration live in the {@link SignInStore}, keyed by server URL;
 * - the PKCE verifier, the `state` and the discovery result live in memory only, for one sign-in;
 * - an access token about to expire is refreshed before it is sent (the SDK only reacts to 401);
 * - when a person is needed, the authorization URL is handed to `onAuthorizationUrl` (a sign-in in
 *   progress), or the attempt ends with {@link SignInRequiredError} (a connection in the
 *   background, `-p`).
 */
import { randomBytes } from 'node:crypto';
import {
  auth,
  type FetchLike,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { OAuthSettings } from '../definition.js';
import { SignInRequiredError } from './errors.js';
import type { SignInEntry, SignInStore, StoredClient } from './token-store.js';
import { definedProperties } from '../../util/defined-properties.js';

/** Refresh this long before the access token expires, so that no request carries a stale one. */
export const REFRESH_BEFORE_EXPIRY_MS = 60_000;

/** Where the browser is sent back to: `http://127.0.0.1:PORT/callback`. */
export const CALLBACK_PATH = '/callback';

/** What {@link McpOAuthProvider} needs. */
export interface McpOAuthProviderOptions {
  /** The configured server name, for messages. */
  readonly server: string;
  readonly serverUrl: string;
  readonly settings: OAuthSettings;
  readonly store: SignInStore;
  /** Used for refreshing before expiry. Default: the global fetch. */
  readonly fetch?: FetchLike;
  /** The clock, for expiry. Default `Date.now`. */
  readonly now?: () => number;
}

/**
 * Whether a stored credential's issuer stamp and the current authorization server agree. Unknown
 * on either side counts as agreeing; one trailing `/` is tolerated, as the SDK does.
 */
function sameIssuer(stamped: unknown, current: string | undefined): boolean {
  if (typeof stamped !== 'string' || current === undefined) return true;
  const trim = (issuer: string): string => (issuer.endsWith('/') ? issuer.slice(0, -1) : issuer);
  return trim(stamped) === trim(current);
}

/** The SDK's view of our stored tokens, with `expires_in` counted from now instead of from issue. */
function withRemainingLifetime(tokens: StoredOAuthTokens, obtainedAt: number | undefined, now: number) {
  if (tokens.expires_in === undefined || obtainedAt === undefined) return tokens;
  const remaining = Math.floor((obtainedAt + tokens.expires_in * 1000 - now) / 1000);
  return { ...tokens, expires_in: Math.max(0, remaining) };
}

export class McpOAuthProvider implements OAuthClientProvider {
  readonly #options: McpOAuthProviderOptions;
  readonly #now: () => number;
  #redirectUrl: string | undefined;
  #codeVerifier: string | undefined;
  #state: string | undefined;
  #discovery: OAuthDiscoveryState | undefined;
  #refreshing: Promise<void> | undefined;
  /** The scope a sign-in in progress asks for beyond the metadata's (a step-up). */
  #requestedScope: string | undefined;
  /** Set while a sign-in waits for the URL to show; unset, a needed person is an error. */
  #onAuthorizationUrl: ((url: URL) => void) | undefined;
  /**
   * Where the server's protected resource metadata was last found (a challenge may name a place
   * no well-known path reaches): kept across sign-ins, unlike the rest of the discovery.
   */
  #resourceMetadataUrl: string | undefined;
  /** The authorization server's issuer as the SDK's current `auth()` resolved it (SEP-2352). */
  #issuer: string | undefined;
  /** Where this client's metadata document is (a URL used as client id), when the settings name one. */
  readonly clientMetadataUrl?: string;

  constructor(options: McpOAuthProviderOptions) {
    this.#options = options;
    if (options.settings.clientMetadataUrl !== undefined) {
      this.clientMetadataUrl = options.settings.clientMetadataUrl;
    }
    this.#now = options.now ?? Date.now;
    // Until a sign-in starts its listener, the redirect is the one registered last (if any): the
    // SDK needs a redirect URL to know that this is an interactive client.
    this.#redirectUrl =
      options.settings.grant === 'client_credentials' ? undefined : 'http://127.0.0.1/callback';
  }

  get server(): string {
    return this.#options.server;
  }

  get serverUrl(): string {
    return this.#options.serverUrl;
  }

  get settings(): OAuthSettings {
    return this.#options.settings;
  }

  /** What the store holds for this server. */
  storedEntry(): Promise<SignInEntry> {
    return this.#options.store.get(this.#options.serverUrl);
  }

  /** Starts an interactive sign-in: the listener's URL, and who gets the authorization URL. */
  beginSignIn(redirectUrl: string, onAuthorizationUrl: (url: URL) => void, scope?: string): void {
    this.#redirectUrl = redirectUrl;
    this.#onAuthorizationUrl = onAuthorizationUrl;
    this.#requestedScope = scope;
    // Every sign-in discovers afresh: the authorization server may have changed since the last.
    this.#discovery = undefined;
  }

  /** Ends a sign-in: the verifier and state are single-use. */
  endSignIn(): void {
    this.#onAuthorizationUrl = undefined;
    this.#requestedScope = undefined;
    this.#codeVerifier = undefined;
    this.#state = undefined;
    this.#discovery = undefined;
  }

  /** The `state` sent with the last authorization URL, which the redirect must echo. */
  get expectedState(): string | undefined {
    return this.#state;
  }

  get redirectUrl(): string | undefined {
    return this.#redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    const { settings } = this.#options;
    const confidential = settings.clientSecret !== undefined;
    return {
      client_name: 'mcphost',
      redirect_uris: this.#redirectUrl === undefined ? [] : [this.#redirectUrl],
      grant_types:
        settings.grant === 'client_credentials'
          ? ['client_credentials']
          : ['authorization_code', 'refresh_token'],
      response_types: settings.grant === 'client_credentials' ? [] : ['code'],
      token_endpoint_auth_method: confidential ? 'client_secret_basic' : 'none',
      ...(settings.scopes === undefined ? {} : { scope: settings.scopes.join(' ') }),
    };
  }

  /** The client credentials grant's request; undefined leaves the authorization code default. */
  prepareTokenRequest(scope?: string): URLSearchParams | undefined {
    if (this.#options.settings.grant !== 'client_credentials') return undefined;
    return new URLSearchParams({
      grant_type: 'client_credentials',
      ...definedProperties({ scope }),
    });
  }

  state(): string {
    this.#state = randomBytes(32).toString('base64url');
    return this.#state;
  }

  async clientInformation(ctx?: { issuer: string }): Promise<StoredOAuthClientInformation | undefined> {
    const { settings } = this.#options;
    if (ctx !== undefined) this.#issuer = ctx.issuer;
    if (settings.clientId !== undefined) {
      return {
        client_id: settings.clientId,
        ...definedProperties({ client_secret: settings.clientSecret }),
        // Configured for this server whatever its authorization server: stamped as the current one
        // (SEP-2352), which the SDK otherwise warns about on every read.
        ...(ctx === undefined ? {} : { issuer: ctx.issuer }),
      };
    }
    const { client, tokens } = await this.#options.store.get(this.#options.serverUrl);
    const signingIn = this.#onAuthorizationUrl !== undefined;
    // In the background without tokens only a person can help: stop before auth() registers a
    // client for a redirect no one listens on.
    if (!signingIn && tokens === undefined && settings.grant === 'authorization_code') {
      throw new SignInRequiredError(this.#options.server);
    }
    if (client === undefined) return undefined;
    // The metadata now names another authorization server than the one we registered with
    // (SEP-2352): the registration and the tokens are not valid there. In the background only a
    // person can sign in at the new one; during a sign-in the SDK sees the stamp and registers again.
    if (!signingIn && !sameIssuer(client.issuer, ctx?.issuer)) {
      throw new SignInRequiredError(this.#options.server, { authorizationServerChanged: true });
    }
    // During a sign-in, a registration for another redirect (another port), or one whose scope
    // lacks what a step-up asks for, is useless: register again.
    if (signingIn && !this.#registrationFits(client)) return undefined;
    return client;
  }

  async saveClientInformation(client: StoredOAuthClientInformation): Promise<void> {
    // A configured client id is configuration, not state: only a dynamic registration is stored.
    if (this.#options.settings.clientId !== undefined) return;
    await this.#options.store.update(this.#options.serverUrl, (entry) => ({ ...entry, client }));
  }

  /**
   * The stored tokens. The transport's per-request read (no `ctx`) refreshes a token about to
   * expire first; `auth()`'s own reads (with `ctx`) get the tokens as stored.
   */
  async tokens(ctx?: { issuer: string }): Promise<StoredOAuthTokens | undefined> {
    if (ctx === undefined) await this.#refreshIfExpiring();
    const { tokens, obtainedAt } = await this.#options.store.get(this.#options.serverUrl);
    return tokens === undefined ? undefined : withRemainingLifetime(tokens, obtainedAt, this.#now());
  }

  async saveTokens(tokens: StoredOAuthTokens): Promise<void> {
    const obtainedAt = this.#now();
    // A person signed in: whatever scope a step-up asked for was asked for this time.
    const signedIn = this.#onAuthorizationUrl !== undefined;
    await this.#options.store.update(this.#options.serverUrl, (entry) => ({
      ...entry,
      tokens,
      obtainedAt,
      ...(signedIn ? { scope: undefined } : {}),
    }));
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    if (this.#onAuthorizationUrl !== undefined) {
      this.#onAuthorizationUrl(authorizationUrl);
      return;
    }
    // No one to ask now. Remember the scope asked for (a step-up on 403 insufficient_scope asks
    // for more than the metadata names), so that `mcphost auth login` asks for it too.
    const scope = authorizationUrl.searchParams.get('scope') ?? undefined;
    const { tokens } = await this.#options.store.get(this.#options.serverUrl);
    if (scope !== undefined && tokens !== undefined) {
      await this.#options.store.update(this.#options.serverUrl, (entry) => ({ ...entry, scope }));
    }
    throw new SignInRequiredError(this.#options.server, {
      scope,
      authorizationServerChanged: !sameIssuer(tokens?.issuer, this.#issuer),
    });
  }

  /** The scope a step-up asked for while no one could sign in, if any. */
  async pendingScope(): Promise<string | undefined> {
    return (await this.#options.store.get(this.#options.serverUrl)).scope;
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.#codeVerifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.#codeVerifier === undefined) throw new Error('no sign-in is in progress (no PKCE verifier)');
    return this.#codeVerifier;
  }

  /** Where the protected resource metadata was last found, for an `auth()` to start from. */
  get resourceMetadataUrl(): URL | undefined {
    return this.#resourceMetadataUrl === undefined ? undefined : new URL(this.#resourceMetadataUrl);
  }

  /** Takes the metadata URL a challenge named (see discovery.ts) when no connection has seen one. */
  rememberResourceMetadataUrl(url: URL): void {
    this.#resourceMetadataUrl = url.href;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.#resourceMetadataUrl = state.resourceMetadataUrl ?? this.#resourceMetadataUrl;
    // Kept for one sign-in only (its two legs must agree on the authorization server). In the
    // background every `auth()` reads the metadata again, so that a server that moved to another
    // authorization server (SEP-2352) is noticed on its next 401.
    if (this.#onAuthorizationUrl !== undefined) this.#discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#discovery;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    switch (scope) {
      case 'all':
        this.#codeVerifier = undefined;
        this.#discovery = undefined;
        await this.#options.store.forget(this.#options.serverUrl);
        return;
      case 'client':
        await this.#options.store.update(this.#options.serverUrl, (entry) => ({
          ...entry,
          client: undefined,
        }));
        return;
      case 'tokens':
        await this.#options.store.update(this.#options.serverUrl, (entry) => ({
          ...entry,
          tokens: undefined,
          obtainedAt: undefined,
        }));
        return;
      case 'verifier':
        this.#codeVerifier = undefined;
        return;
      case 'discovery':
        this.#discovery = undefined;
        return;
      default: {
        const unknown: never = scope;
        throw new Error(`unknown credential scope ${String(unknown)}`);
      }
    }
  }

  #registrationFits(client: StoredClient): boolean {
    const redirects = client.redirect_uris;
    if (
      redirects !== undefined &&
      this.#redirectUrl !== undefined &&
      !redirects.includes(this.#redirectUrl)
    ) {
      return false;
    }
    const registeredScope = typeof client.scope === 'string' ? client.scope.split(' ') : undefined;
    if (registeredScope === undefined || this.#requestedScope === undefined) return true;
    return this.#requestedScope.split(' ').every((scope) => registeredScope.includes(scope));
  }

  /** Refreshes (once, however many requests wait) when the token expires within the margin. */
  async #refreshIfExpiring(): Promise<void> {
    const { tokens, obtainedAt } = await this.#options.store.get(this.#options.serverUrl);
    if (tokens?.refresh_token === undefined || tokens.expires_in === undefined || obtainedAt === undefined)
      return;
    const expiresAt = obtainedAt + tokens.expires_in * 1000;
    if (expiresAt - this.#now() > REFRESH_BEFORE_EXPIRY_MS) return;
    this.#refreshing ??= this.#refresh().finally(() => {
      this.#refreshing = undefined;
    });
    await this.#refreshing;
  }

  async #refresh(): Promise<void> {
    // auth() takes the refresh branch when a refresh token is stored; if the server refuses it
    // (revoked, expired), auth() falls through to a new authorization, which in the background
    // throws SignInRequiredError from redirectToAuthorization.
    const { resourceMetadataUrl } = this;
    await auth(this, {
      serverUrl: this.#options.serverUrl,
      ...definedProperties({ resourceMetadataUrl, fetchFn: this.#options.fetch }),
    });
  }
}
