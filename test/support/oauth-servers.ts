/**
 * A real OAuth authorization server (`oidc-provider`) and an MCP server that it protects, both on
 * loopback, plus a "browser" that follows an authorization URL the way a person's browser would.
 *
 * The authorization server registers clients dynamically, requires PKCE, issues opaque access
 * tokens bound to the MCP server's URL as audience (RFC 8707), refresh tokens, and revokes. Its
 * login page signs "alice" in at once and consent is granted up front, so that the browser step
 * needs no person. The MCP server answers 401 with a `resource_metadata` challenge until it gets a
 * valid token for itself, and serves its protected resource metadata; `lie` makes it (or the
 * metadata) misbehave for the negative tests.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import Provider, { type Configuration } from 'oidc-provider';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { startLoopbackServer, type LoopbackServer } from './loopback.js';

export interface AuthorizationServer {
  readonly issuer: string;
  readonly provider: Provider;
  /** Makes every access token issued from now on live this many seconds. */
  setAccessTokenTtl(seconds: number): void;
  /** Revokes an access or refresh token, as a user removing the app's access would. */
  revoke(token: string): Promise<void>;
  close(): Promise<void>;
}

/** Clients registered beforehand, as an administrator would (RFC 7591 metadata). */
export type PreRegisteredClient = Record<string, unknown> & { client_id: string };

/**
 * Where the authorization server lives and publishes its metadata. By default its issuer is the
 * server's root and oidc-provider serves `/.well-known/openid-configuration`; `issuerPath` puts
 * the issuer (and every endpoint) under a path, as a multi-tenant server does, and
 * `metadataPath`, when given, is then the ONLY place the metadata is served (RFC 8414 §3.1 path
 * insertion, OpenID Connect Discovery §4 path appending, …), every other well-known path 404s.
 */
export interface AuthorizationServerLayout {
  /** For example `/tenant1`. */
  readonly issuerPath?: string;
  /** For example `/.well-known/oauth-authorization-server/tenant1`. */
  readonly metadataPath?: string;
}

/** Node's request as oidc-provider reads it when mounted under a path (`originalUrl`). */
type MountedRequest = IncomingMessage & { originalUrl?: string };

export async function startAuthorizationServer(
  clients: readonly PreRegisteredClient[] = [],
  layout: AuthorizationServerLayout = {},
): Promise<AuthorizationServer> {
  let accessTokenTtl = 3600;
  const issuerPath = layout.issuerPath ?? '';
  // The provider needs the server's URL (its issuer), and the server needs the provider.
  const ready: { provider?: Provider } = {};
  const server = await startLoopbackServer(async (incoming, response) => {
    const { provider } = ready;
    if (provider === undefined) throw new Error('not ready');
    const request: MountedRequest = incoming;
    const original = request.url ?? '/';
    const path = original.split('?')[0] ?? '/';
    if (layout.metadataPath !== undefined && path.includes('/.well-known/')) {
      if (path !== layout.metadataPath) {
        response.writeHead(404).end();
        return;
      }
      request.url = '/.well-known/openid-configuration';
      request.originalUrl = `${issuerPath}/.well-known/openid-configuration`;
    } else if (issuerPath !== '') {
      // Mounted under the issuer's path: oidc-provider sees the rest, and the prefix as mount path.
      if (!path.startsWith(`${issuerPath}/`)) {
        response.writeHead(404).end();
        return;
      }
      request.url = original.slice(issuerPath.length);
      request.originalUrl = original;
    }
    const match = /^\/interaction\/([^/?]+)/.exec(request.url ?? '');
    if (match !== null) {
      await finishInteraction(provider, request, response);
      return;
    }
    await provider.callback()(request, response);
  });
  const configuration: Configuration = {
    clients: clients.map((client) => ({ ...client })),
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, RefreshToken: 86_400, ClientCredentials: 600 },
    scopes: ['openid', 'offline_access', 'mcp:tools', 'mcp:admin'],
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      revocation: { enabled: true },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        useGrantedResource: () => true,
        getResourceServerInfo: (_context, resource) => ({
          scope: 'mcp:tools mcp:admin',
          audience: resource,
          accessTokenTTL: accessTokenTtl,
          accessTokenFormat: 'opaque',
        }),
      },
    },
    pkce: { required: () => true },
    issueRefreshToken: (_context, client) => Promise.resolve(client.grantTypeAllowed('refresh_token')),
    findAccount: (_context, accountId) => ({ accountId, claims: () => ({ sub: accountId }) }),
    interactions: { url: (_context, interaction) => `${issuerPath}/interaction/${interaction.uid}` },
    cookies: { keys: ['test-only-cookie-key'] },
  };
  const issuer = `${server.url}${issuerPath}`;
  const provider = new Provider(issuer, configuration);
  provider.on('server_error', () => undefined);
  ready.provider = provider;
  return {
    issuer,
    provider,
    setAccessTokenTtl: (seconds) => {
      accessTokenTtl = seconds;
    },
    revoke: async (token) => {
      const access = await provider.AccessToken.find(token);
      if (access !== undefined) {
        await access.destroy();
        return;
      }
      const refresh = await provider.RefreshToken.find(token);
      await refresh?.destroy();
    },
    close: () => server.close(),
  };
}

/** The login and consent pages: alice signs in and grants whatever was asked, at once. */
async function finishInteraction(
  provider: Provider,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const details = await provider.interactionDetails(request, response);
  if (details.prompt.name === 'login') {
    await provider.interactionFinished(
      request,
      response,
      { login: { accountId: 'alice' } },
      {
        mergeWithLastSubmission: false,
      },
    );
    return;
  }
  const missing = details.prompt.details as {
    missingOIDCScope?: string[];
    missingOIDCClaims?: string[];
    missingResourceScopes?: Record<string, string[]>;
  };
  const grant =
    details.grantId === undefined
      ? new provider.Grant({
          accountId: details.session?.accountId ?? 'alice',
          clientId: String(details.params.client_id),
        })
      : await provider.Grant.find(details.grantId);
  if (grant === undefined) throw new Error('grant vanished');
  if (missing.missingOIDCScope !== undefined) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  if (missing.missingOIDCClaims !== undefined) grant.addOIDCClaims(missing.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
    grant.addResourceScope(indicator, scopes.join(' '));
  }
  const grantId = await grant.save();
  await provider.interactionFinished(
    request,
    response,
    { consent: { grantId } },
    { mergeWithLastSubmission: true },
  );
}

/**
 * A second authorization server URL that serves the real one's answers (a proxy): its metadata
 * then names an issuer that is not the URL it was fetched from.
 */
export async function startMirror(target: string): Promise<LoopbackServer> {
  return startLoopbackServer(async (request, response) => {
    const answer = await fetch(new URL(request.url ?? '/', target), { redirect: 'manual' });
    response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' });
    response.end(Buffer.from(await answer.arrayBuffer()));
  });
}

/** How the protected MCP server misbehaves, for the negative tests. */
export interface Lies {
  /** Its protected resource metadata names another resource than itself. */
  resource?: string;
  /** Its protected resource metadata points at another authorization server. */
  authorizationServer?: string;
}

export interface ProtectedMcpServer {
  /** The MCP endpoint, `http://127.0.0.1:PORT/mcp`. */
  readonly url: string;
  /** The bearer tokens it received, in order (for redaction checks, and to see refreshes). */
  readonly tokensSeen: string[];
  readonly lies: Lies;
  /**
   * The server moves to another authorization server (SEP-2352): its metadata names that one, and
   * only its tokens are accepted from now on.
   */
  moveTo(next: AuthorizationServer): void;
  close(): Promise<void>;
}

async function requestToFetchRequest(request: IncomingMessage, base: string): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string') headers.set(name, value);
  }
  const method = request.method ?? 'GET';
  return new Request(new URL(request.url ?? '/', base), {
    method,
    headers,
    ...(method === 'GET' || method === 'HEAD' ? {} : { body: Buffer.concat(chunks) }),
  });
}

async function sendResponse(answer: Response, response: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  answer.headers.forEach((value, name) => {
    headers[name] = value;
  });
  response.writeHead(answer.status, headers);
  // Streamed: a 2026-07-28 `subscriptions/listen` answer stays open while the client listens.
  const reader = answer.body?.getReader();
  for (let part = await reader?.read(); part !== undefined && !part.done; part = await reader?.read()) {
    response.write(part.value);
  }
  response.end();
}

/**
 * Where the MCP server publishes its protected resource metadata (RFC 9728): by default at the
 * path-based well-known URL, named in its 401 challenge as well.
 */
export interface ProtectedResourceLayout {
  /** For example `/.well-known/oauth-protected-resource` (root) or `/custom/metadata.json`. */
  readonly metadataPath?: string;
  /** Whether the 401 challenge names the metadata's URL (`resource_metadata`). Default true. */
  readonly challengeNamesMetadata?: boolean;
}

/** An MCP server with one tool, `whoami`, reachable only with a token the AS issued for it. */
export async function startProtectedMcpServer(
  authorization: AuthorizationServer,
  layout: ProtectedResourceLayout = {},
): Promise<ProtectedMcpServer> {
  const tokensSeen: string[] = [];
  const lies: Lies = {};
  let current = authorization;
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: 'protected', version: '1.0.0' });
    server.registerTool('whoami', { inputSchema: z.object({}) }, () => ({
      content: [{ type: 'text', text: 'you are alice' }],
    }));
    // Needs the `mcp:admin` scope, which the metadata does not name: a step-up.
    server.registerTool('admin', { inputSchema: z.object({}) }, () => ({
      content: [{ type: 'text', text: 'admin granted' }],
    }));
    return server;
  });
  let base = '';
  const metadataPath = layout.metadataPath ?? '/.well-known/oauth-protected-resource/mcp';
  const named = layout.challengeNamesMetadata ?? true;
  const challenge = (extra: string): string => {
    const parameters = [extra, named ? `resource_metadata="${base}${metadataPath}"` : ''].filter(Boolean);
    return parameters.length === 0 ? 'Bearer' : `Bearer ${parameters.join(', ')}`;
  };
  const loopback: LoopbackServer = await startLoopbackServer(async (request, response) => {
    const path = new URL(request.url ?? '/', base).pathname;
    if (path === metadataPath) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          resource: lies.resource ?? `${base}/mcp`,
          authorization_servers: [lies.authorizationServer ?? current.issuer],
          scopes_supported: ['mcp:tools'],
        }),
      );
      return;
    }
    if (path !== '/mcp') {
      response.writeHead(404).end();
      return;
    }
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (bearer !== undefined) tokensSeen.push(bearer);
    const { AccessToken, ClientCredentials } = current.provider;
    const token =
      bearer === undefined
        ? undefined
        : ((await AccessToken.find(bearer)) ?? (await ClientCredentials.find(bearer)));
    if (token === undefined || token.isExpired || token.aud !== `${base}/mcp`) {
      response.writeHead(401, {
        'www-authenticate': challenge(''),
        'content-type': 'application/json',
      });
      response.end(JSON.stringify({ error: 'invalid_token' }));
      return;
    }
    const forwarded = await requestToFetchRequest(request, base);
    const body = forwarded.method === 'POST' ? await forwarded.clone().text() : '';
    const scopes = (token.scope ?? '').split(' ');
    if (body.includes('"name":"admin"') && !scopes.includes('mcp:admin')) {
      response.writeHead(403, {
        'www-authenticate': challenge('error="insufficient_scope", scope="mcp:tools mcp:admin"'),
      });
      response.end();
      return;
    }
    await sendResponse(await handler.fetch(forwarded), response);
  });
  base = loopback.url;
  return {
    url: `${base}/mcp`,
    tokensSeen,
    lies,
    moveTo: (next) => {
      current = next;
    },
    close: () => loopback.close(),
  };
}

/**
 * Follows an authorization URL as a browser would (redirects, cookies) until it reaches the
 * loopback redirect, which it then visits. Returns the redirect URL it visited and its status.
 */
export async function browse(
  authorizationUrl: string,
  rewriteCallback: (callback: URL) => void = () => undefined,
): Promise<{ callback: URL; status: number }> {
  const cookies = new Map<string, string>();
  let url = new URL(authorizationUrl);
  for (let hop = 0; hop < 20; hop++) {
    const response = await fetch(url, {
      redirect: 'manual',
      headers: { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const equals = pair.indexOf('=');
      if (equals > 0) cookies.set(pair.slice(0, equals), pair.slice(equals + 1));
    }
    if (url.pathname === '/callback') return { callback: url, status: response.status };
    const location = response.headers.get('location');
    if (location === null) {
      throw new Error(
        `the browser stopped at ${url.pathname} (${response.status}): ${await response.text()}`,
      );
    }
    await response.body?.cancel();
    url = new URL(location, url);
    if (url.pathname === '/callback') rewriteCallback(url);
  }
  throw new Error('too many redirects');
}
