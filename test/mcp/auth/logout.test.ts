/**
 * `mcphost auth logout` against a real authorization server (oidc-provider, revocation enabled):
 * the tokens are revoked there (refresh token first, then access token) and forgotten here; a
 * revocation that fails is one warning line, and the local sign-in is forgotten all the same.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { refreshAuthorization, discoverOAuthServerInfo, type FetchLike } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { authLogout, type AuthCommandContext } from '../../../src/cli/command-line/auth-commands.js';
import type { CliIO } from '../../../src/cli/io.js';
import { McpOAuthProvider } from '../../../src/mcp/auth/provider.js';
import { signIn } from '../../../src/mcp/auth/sign-in.js';
import { SignInStore } from '../../../src/mcp/auth/token-store.js';
import {
  browse,
  startAuthorizationServer,
  startProtectedMcpServer,
  type AuthorizationServer,
  type ProtectedMcpServer,
} from '../../support/oauth-servers.js';

let folder: string;
let authorization: AuthorizationServer;
let mcp: ProtectedMcpServer;
let store: SignInStore;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'mcphost-logout-'));
  authorization = await startAuthorizationServer();
  mcp = await startProtectedMcpServer(authorization);
  store = new SignInStore(join(folder, 'oauth.json'));
});

afterEach(async () => {
  await mcp.close();
  await authorization.close();
  await rm(folder, { recursive: true, force: true });
});

function memoryIo(): { io: CliIO; stdout: () => string; stderr: () => string } {
  const out: string[] = [];
  const err: string[] = [];
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stdout.on('data', (chunk: Buffer) => out.push(chunk.toString()));
  stderr.on('data', (chunk: Buffer) => err.push(chunk.toString()));
  return {
    io: { stdin: new PassThrough(), stdout, stderr, env: {}, homeDir: folder, cwd: folder },
    stdout: () => out.join(''),
    stderr: () => err.join(''),
  };
}

async function signedIn(): Promise<{ context: AuthCommandContext; output: ReturnType<typeof memoryIo> }> {
  const provider = new McpOAuthProvider({
    server: 'protected',
    serverUrl: mcp.url,
    settings: { grant: 'authorization_code' },
    store,
  });
  await signIn({
    provider,
    questions: {
      signIn: (request) => {
        void browse(request.url);
        return Promise.resolve({ kind: 'opened' });
      },
    },
  });
  const output = memoryIo();
  const context: AuthCommandContext = {
    io: output.io,
    store,
    config: {
      path: join(folder, '.mcp.json'),
      servers: { protected: { transport: 'http', url: mcp.url, headers: {} } },
    },
  };
  return { context, output };
}

describe('auth logout', () => {
  it('revokes the refresh token (which then no longer works) and the access token, and forgets both', async () => {
    const { context, output } = await signedIn();
    const entry = await store.get(mcp.url);
    const refreshToken = entry.tokens?.refresh_token;
    const accessToken = entry.tokens?.access_token;
    expect(refreshToken).toBeDefined();
    expect(await authorization.provider.RefreshToken.find(refreshToken ?? '')).toBeDefined();
    const revokedHints: string[] = [];
    const recording: FetchLike = async (input, init) => {
      if (String(input).endsWith('/token/revocation')) {
        const body = init?.body instanceof URLSearchParams ? init.body : new URLSearchParams();
        revokedHints.push(body.get('token_type_hint') ?? '');
      }
      return fetch(input, init);
    };

    expect(await authLogout(context, 'protected', recording)).toBe(0);
    expect(output.stdout()).toBe('Signed out of protected (tokens revoked at the server).\n');
    expect(output.stderr()).toBe('');
    expect(revokedHints).toEqual(['refresh_token', 'access_token']);
    expect(await store.get(mcp.url)).toEqual({});
    expect(await authorization.provider.RefreshToken.find(refreshToken ?? '')).toBeUndefined();
    expect(await authorization.provider.AccessToken.find(accessToken ?? '')).toBeUndefined();

    // The revoked refresh token, tried at the token endpoint as a refresh would: refused.
    const info = await discoverOAuthServerInfo(mcp.url);
    await expect(
      refreshAuthorization(info.authorizationServerUrl, {
        ...(info.authorizationServerMetadata ? { metadata: info.authorizationServerMetadata } : {}),
        clientInformation: { client_id: entry.client?.client_id ?? '' },
        refreshToken: refreshToken ?? '',
      }),
    ).rejects.toThrow(/grant/i);
  });

  it('a revocation that fails is one warning line, and the sign-in is forgotten anyway', async () => {
    const { context, output } = await signedIn();
    const refusing: FetchLike = async (input, init) =>
      String(input).endsWith('/token/revocation')
        ? new Response(JSON.stringify({ error: 'temporarily_unavailable' }), { status: 503 })
        : fetch(input, init);
    const entry = await store.get(mcp.url);
    expect(await authLogout(context, 'protected', refusing)).toBe(0);
    expect(output.stderr()).toBe(
      'mcphost: warning: protected: tokens not revoked at the server: the authorization server refused to revoke the refresh token (HTTP 503 temporarily_unavailable)\n',
    );
    expect(output.stdout()).toBe('Signed out of protected.\n');
    expect(await store.get(mcp.url)).toEqual({});
    for (const secret of [entry.tokens?.access_token, entry.tokens?.refresh_token]) {
      expect(output.stdout() + output.stderr()).not.toContain(secret);
    }
  });
});
