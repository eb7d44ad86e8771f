/**
 * One discovery for both sign-in paths: a provider that has seen no 401 (what `mcphost auth login`
 * starts with) finds the metadata wherever the server and its authorization server publish it —
 * each RFC 9728 protected-resource location, each RFC 8414 / OpenID Connect Discovery location of
 * the authorization server's metadata, with the metadata served ONLY there. A real authorization
 * server (oidc-provider) and a protected MCP server on loopback; the browser step automated.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpOAuthProvider } from '../../../src/mcp/auth/provider.js';
import { signIn } from '../../../src/mcp/auth/sign-in.js';
import { SignInStore } from '../../../src/mcp/auth/token-store.js';
import type { UserQuestions } from '../../../src/core/questions.js';
import {
  browse,
  startAuthorizationServer,
  startProtectedMcpServer,
  type AuthorizationServer,
  type AuthorizationServerLayout,
  type ProtectedMcpServer,
  type ProtectedResourceLayout,
} from '../../support/oauth-servers.js';

let folder: string;
let authorization: AuthorizationServer | undefined;
let mcp: ProtectedMcpServer | undefined;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'mcphost-discovery-'));
});

afterEach(async () => {
  await mcp?.close();
  await authorization?.close();
  mcp = undefined;
  authorization = undefined;
  await rm(folder, { recursive: true, force: true });
});

const browsingUser: UserQuestions = {
  signIn: (request) => {
    void browse(request.url);
    return Promise.resolve({ kind: 'opened' });
  },
};

async function whoami(provider: McpOAuthProvider, url: string): Promise<string> {
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider }));
  try {
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    const [first] = result.content as Array<{ type: string; text?: string }>;
    return first?.text ?? '';
  } finally {
    await client.close();
  }
}

/** Signs in as `auth login` does (a fresh provider, nothing learnt from a 401), then uses the token. */
async function signInFresh(
  serverLayout: AuthorizationServerLayout,
  resourceLayout: ProtectedResourceLayout,
): Promise<string> {
  authorization = await startAuthorizationServer([], serverLayout);
  mcp = await startProtectedMcpServer(authorization, resourceLayout);
  const store = new SignInStore(join(folder, 'oauth.json'));
  const provider = new McpOAuthProvider({
    server: 'protected',
    serverUrl: mcp.url,
    settings: { grant: 'authorization_code' },
    store,
  });
  expect(provider.resourceMetadataUrl).toBeUndefined();
  const outcome = await signIn({ provider, questions: browsingUser, fresh: true, timeoutMs: 20_000 });
  expect(outcome.kind).toBe('signed-in');
  expect((await store.get(mcp.url)).tokens?.access_token).toEqual(expect.any(String));
  return whoami(provider, mcp.url);
}

describe('sign-in discovery without a prior 401 (auth login)', () => {
  // Authorization server metadata only at one location each (issuer http://…/tenant1).
  const authorizationServerVariants: ReadonlyArray<[string, AuthorizationServerLayout]> = [
    [
      'RFC 8414 path insertion',
      { issuerPath: '/tenant1', metadataPath: '/.well-known/oauth-authorization-server/tenant1' },
    ],
    [
      'OpenID Connect path insertion',
      { issuerPath: '/tenant1', metadataPath: '/.well-known/openid-configuration/tenant1' },
    ],
    [
      'OpenID Connect path appending (auth/metadata-var3)',
      { issuerPath: '/tenant1', metadataPath: '/tenant1/.well-known/openid-configuration' },
    ],
    ['RFC 8414 at the root', { metadataPath: '/.well-known/oauth-authorization-server' }],
    ['OpenID Connect at the root', { metadataPath: '/.well-known/openid-configuration' }],
  ];
  // Protected resource metadata at each location RFC 9728 allows.
  const resourceVariants: ReadonlyArray<[string, ProtectedResourceLayout]> = [
    ['path-based well-known, not in the challenge', { challengeNamesMetadata: false }],
    [
      'root well-known, not in the challenge',
      { metadataPath: '/.well-known/oauth-protected-resource', challengeNamesMetadata: false },
    ],
    ['a custom URL named only in the challenge', { metadataPath: '/custom/metadata/location.json' }],
  ];

  for (const [serverName, serverLayout] of authorizationServerVariants) {
    it(`finds authorization server metadata by ${serverName}`, async () => {
      // The resource metadata only in the challenge, as in auth/metadata-var3.
      const answer = await signInFresh(serverLayout, { metadataPath: '/custom/metadata/location.json' });
      expect(answer).toBe('you are alice');
    });
  }

  for (const [resourceName, resourceLayout] of resourceVariants) {
    it(`finds protected resource metadata at ${resourceName}`, async () => {
      const answer = await signInFresh(
        { issuerPath: '/tenant1', metadataPath: '/tenant1/.well-known/openid-configuration' },
        resourceLayout,
      );
      expect(answer).toBe('you are alice');
    });
  }
});
