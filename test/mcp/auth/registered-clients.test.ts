/**
 * Clients registered beforehand (no dynamic registration): a public client with a fixed redirect
 * port, and a confidential machine client that signs in with the client credentials grant.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpOAuthProvider } from '../../../src/mcp/auth/provider.js';
import { signIn } from '../../../src/mcp/auth/sign-in.js';
import { SignInStore } from '../../../src/mcp/auth/token-store.js';
import type { OAuthSettings } from '../../../src/mcp/definition.js';
import { unusedPort } from '../../support/loopback.js';
import {
  browse,
  startAuthorizationServer,
  startProtectedMcpServer,
  type AuthorizationServer,
  type ProtectedMcpServer,
} from '../../support/oauth-servers.js';
import {
  closePoolsAfterEach,
  firstText,
  logCollector,
  startPool,
  testEnvironment,
  toolCall,
} from '../support.js';

const MACHINE_SECRET = 'machine-secret-that-must-not-leak-0123456789';

let folder: string;
let port: number;
let authorization: AuthorizationServer;
let mcp: ProtectedMcpServer;
let store: SignInStore;

closePoolsAfterEach();

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'mcphost-clients-'));
  port = await unusedPort();
  authorization = await startAuthorizationServer([
    {
      client_id: 'mcphost-desktop',
      token_endpoint_auth_method: 'none',
      application_type: 'native',
      redirect_uris: [`http://127.0.0.1:${port}/callback`],
      grant_types: ['authorization_code', 'refresh_token'],
    },
    {
      client_id: 'mcphost-ci',
      client_secret: MACHINE_SECRET,
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
    },
  ]);
  mcp = await startProtectedMcpServer(authorization);
  store = new SignInStore(join(folder, 'oauth.json'));
});

afterEach(async () => {
  await mcp.close();
  await authorization.close();
  await rm(folder, { recursive: true, force: true });
});

function provider(settings: OAuthSettings): McpOAuthProvider {
  return new McpOAuthProvider({ server: 'protected', serverUrl: mcp.url, settings, store });
}

describe('clients registered beforehand', () => {
  it('a configured public client id signs in on its fixed port, and nothing is registered', async () => {
    let asked: URL | undefined;
    await signIn({
      provider: provider({ grant: 'authorization_code', clientId: 'mcphost-desktop', redirectPort: port }),
      questions: {
        signIn: (request) => {
          asked = new URL(request.url);
          void browse(request.url);
          return Promise.resolve({ kind: 'opened' });
        },
      },
    });
    expect(asked?.searchParams.get('client_id')).toBe('mcphost-desktop');
    expect(asked?.searchParams.get('redirect_uri')).toBe(`http://127.0.0.1:${port}/callback`);
    const entry = await store.get(mcp.url);
    expect(entry.tokens?.access_token).toBeTruthy();
    expect(entry.client).toBeUndefined();
  });

  it('client credentials: the pool signs in with no person and the secret stays out of the store and logs', async () => {
    const logs = logCollector();
    const pool = await startPool({
      servers: {
        protected: {
          transport: 'http',
          url: mcp.url,
          headers: {},
          oauth: { grant: 'client_credentials', clientId: 'mcphost-ci', clientSecret: MACHINE_SECRET },
        },
      },
      env: testEnvironment(),
      log: logs.log,
      signIn: { store },
    });
    expect(logs.warnings()).toEqual([]);
    expect(firstText(await pool.call(toolCall('protected__whoami')))).toBe('you are alice');
    const entry = await store.get(mcp.url);
    expect(entry.tokens?.access_token).toBeTruthy();
    expect(JSON.stringify(entry)).not.toContain(MACHINE_SECRET);
    expect(JSON.stringify(logs.entries)).not.toContain(MACHINE_SECRET);
  });
});
