/**
 * Signing in against a real authorization server (oidc-provider) on loopback, the browser step
 * automated: discovery, dynamic registration, PKCE, state, issuer and resource checks, refresh
 * before expiry and on 401, revocation.
 */
import { chmod, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, IssuerMismatchError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { OAuthSettings } from '../../../src/mcp/definition.js';
import { SignInFailedError, SignInRequiredError } from '../../../src/mcp/auth/errors.js';
import { McpOAuthProvider } from '../../../src/mcp/auth/provider.js';
import { signIn } from '../../../src/mcp/auth/sign-in.js';
import { SignInStore } from '../../../src/mcp/auth/token-store.js';
import type { SignInRequest, UserQuestions } from '../../../src/core/questions.js';
import {
  browse,
  startAuthorizationServer,
  startMirror,
  startProtectedMcpServer,
  type AuthorizationServer,
  type ProtectedMcpServer,
} from '../../support/oauth-servers.js';

const DEFAULT_SETTINGS: OAuthSettings = { grant: 'authorization_code' };

let folder: string;
let authorization: AuthorizationServer;
let mcp: ProtectedMcpServer;
let store: SignInStore;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'mcphost-auth-'));
  authorization = await startAuthorizationServer();
  mcp = await startProtectedMcpServer(authorization);
  store = new SignInStore(join(folder, 'state', 'mcphost', 'oauth.json'));
});

afterEach(async () => {
  await mcp.close();
  await authorization.close();
  await rm(folder, { recursive: true, force: true });
});

function provider(extra: Partial<McpOAuthProvider['settings']> = {}, now?: () => number): McpOAuthProvider {
  return new McpOAuthProvider({
    server: 'protected',
    serverUrl: mcp.url,
    settings: { ...DEFAULT_SETTINGS, ...extra },
    store,
    ...(now === undefined ? {} : { now }),
  });
}

/** A person who opens every sign-in page in the (automated) browser. */
function browsingUser(seen: SignInRequest[] = []): UserQuestions {
  return {
    signIn: (request) => {
      seen.push(request);
      void browse(request.url);
      return Promise.resolve({ kind: 'opened' });
    },
  };
}

/** Connects with the provider and calls `whoami`; returns its text. */
async function whoami(oauth: McpOAuthProvider): Promise<string> {
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url), { authProvider: oauth }));
  try {
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    const [first] = result.content as Array<{ type: string; text?: string }>;
    return first?.text ?? '';
  } finally {
    await client.close();
  }
}

describe('sign-in', () => {
  it('discovers, registers, signs in with PKCE and a resource-bound token, and stores it 0600', async () => {
    const seen: SignInRequest[] = [];
    const oauth = provider();
    expect(await signIn({ provider: oauth, questions: browsingUser(seen) })).toEqual({ kind: 'signed-in' });

    const [request] = seen;
    expect(request?.server).toBe('protected');
    const asked = new URL(request?.url ?? '');
    expect(asked.origin).toBe(authorization.issuer);
    expect(asked.searchParams.get('code_challenge_method')).toBe('S256');
    expect(asked.searchParams.get('resource')).toBe(mcp.url);
    expect(asked.searchParams.get('state')?.length).toBeGreaterThanOrEqual(40);
    expect(asked.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);

    const entry = await store.get(mcp.url);
    expect(entry.tokens?.access_token).toBeTruthy();
    expect(entry.tokens?.refresh_token).toBeTruthy();
    expect(entry.client?.client_id).toBeTruthy();
    expect((await stat(store.file)).mode & 0o777).toBe(0o600);
    expect((await stat(join(folder, 'state', 'mcphost'))).mode & 0o777).toBe(0o700);

    expect(await whoami(oauth)).toBe('you are alice');
    expect(mcp.tokensSeen.at(-1)).toBe(entry.tokens?.access_token);
  });

  it('in the background, without tokens, asks for sign-in instead of registering a client', async () => {
    await expect(whoami(provider())).rejects.toThrow(SignInRequiredError);
    expect(await store.list()).toEqual(new Map());
  });

  it('a user who skips leaves nothing stored', async () => {
    const skipping: UserQuestions = { signIn: () => Promise.resolve({ kind: 'skip' }) };
    await expect(signIn({ provider: provider(), questions: skipping })).rejects.toThrow(SignInRequiredError);
    expect((await store.get(mcp.url)).tokens).toBeUndefined();
  });

  it('refuses a redirect with the wrong state and redeems nothing', async () => {
    const forger: UserQuestions = {
      signIn: async (request) => {
        // Walk the real flow, but come back with another state (a forged redirect).
        const url = new URL(request.url);
        url.searchParams.set('state', 'forged-state-value');
        await browse(url.href).catch(() => undefined);
        return { kind: 'opened' };
      },
    };
    const attempt = signIn({ provider: provider(), questions: forger, timeoutMs: 20_000 });
    await expect(attempt).rejects.toThrow(SignInFailedError);
    await expect(attempt).rejects.toThrow(/wrong state/);
    expect((await store.get(mcp.url)).tokens).toBeUndefined();
  });

  it('times out when no redirect comes back', async () => {
    const idle: UserQuestions = { signIn: () => Promise.resolve({ kind: 'opened' }) };
    await expect(signIn({ provider: provider(), questions: idle, timeoutMs: 300 })).rejects.toThrow(
      /no redirect came back in time/,
    );
  });

  it('refreshes a token about to expire before sending it', async () => {
    let now = Date.now();
    const oauth = provider({}, () => now);
    await signIn({ provider: oauth, questions: browsingUser() });
    const first = (await store.get(mcp.url)).tokens?.access_token;
    now += 3590 * 1000; // 10 s before the hour-long token expires: inside the refresh margin
    expect(await whoami(oauth)).toBe('you are alice');
    const second = (await store.get(mcp.url)).tokens?.access_token;
    expect(second).not.toBe(first);
    expect(mcp.tokensSeen).not.toContain(first);
  });

  it('never sends a token the server says expires within the margin: it refreshes first', async () => {
    authorization.setAccessTokenTtl(2);
    const oauth = provider();
    await signIn({ provider: oauth, questions: browsingUser() });
    const first = (await store.get(mcp.url)).tokens?.access_token;
    authorization.setAccessTokenTtl(3600);
    await new Promise((resolve) => setTimeout(resolve, 2100)); // expired at the server now
    expect(await whoami(oauth)).toBe('you are alice');
    expect(mcp.tokensSeen).not.toContain(first);
  });

  it('refreshes on 401 when the server refuses an access token it thinks is still valid', async () => {
    const oauth = provider();
    await signIn({ provider: oauth, questions: browsingUser() });
    const first = (await store.get(mcp.url)).tokens?.access_token ?? '';
    await authorization.revoke(first); // the access token only: the refresh token still works
    expect(await whoami(oauth)).toBe('you are alice');
    expect(mcp.tokensSeen[0]).toBe(first); // refused with 401, then refreshed
    expect((await store.get(mcp.url)).tokens?.access_token).not.toBe(first);
  });

  it('a revoked sign-in (access and refresh token) needs a new sign-in', async () => {
    const oauth = provider();
    await signIn({ provider: oauth, questions: browsingUser() });
    const { tokens } = await store.get(mcp.url);
    await authorization.revoke(tokens?.access_token ?? '');
    await authorization.revoke(tokens?.refresh_token ?? '');
    await expect(whoami(oauth)).rejects.toThrow(SignInRequiredError);
    expect((await store.get(mcp.url)).tokens).toBeUndefined();
  });

  it('rejects metadata whose resource is not this server (resource mismatch)', async () => {
    mcp.lies.resource = 'https://elsewhere.example/mcp';
    await expect(signIn({ provider: provider(), questions: browsingUser() })).rejects.toThrow(/resource/i);
    expect(await store.list()).toEqual(new Map());
  });

  it('rejects an authorization server whose metadata names another issuer (wrong issuer)', async () => {
    const mirror = await startMirror(authorization.issuer);
    try {
      mcp.lies.authorizationServer = mirror.url;
      await expect(signIn({ provider: provider(), questions: browsingUser() })).rejects.toThrow(
        IssuerMismatchError,
      );
      expect(await store.list()).toEqual(new Map());
    } finally {
      await mirror.close();
    }
  });

  it('rejects a redirect whose iss names another authorization server (mix-up)', async () => {
    const mixUp: UserQuestions = {
      signIn: (request) => {
        void browse(request.url, (callback) => {
          callback.searchParams.set('iss', 'https://attacker.example');
        });
        return Promise.resolve({ kind: 'opened' });
      },
    };
    await expect(signIn({ provider: provider(), questions: mixUp })).rejects.toThrow(IssuerMismatchError);
    expect((await store.get(mcp.url)).tokens).toBeUndefined();
  });

  it('keeps the file readable only by its owner even when it was widened', async () => {
    await signIn({ provider: provider(), questions: browsingUser() });
    await chmod(store.file, 0o644);
    await signIn({ provider: provider(), questions: browsingUser(), fresh: true });
    expect((await stat(store.file)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(store.file, 'utf8'))).toMatchObject({ version: 1 });
  });
});
