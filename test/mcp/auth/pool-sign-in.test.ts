/**
 * Sign-in through the pool: a remote server behind a real authorization server, started the way
 * `-p` starts it (no one to ask: one line, and the run goes on) and the way the chat does (the
 * sign-in page is offered, the redirect awaited, the server started). Every diagnostic and status
 * line is searched for the tokens.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpOAuthProvider } from '../../../src/mcp/auth/provider.js';
import { signIn } from '../../../src/mcp/auth/sign-in.js';
import { SignInStore } from '../../../src/mcp/auth/token-store.js';
import type { UserQuestions } from '../../../src/questions.js';
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

let folder: string;
let authorization: AuthorizationServer;
let mcp: ProtectedMcpServer;
let store: SignInStore;

closePoolsAfterEach();

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'mcphost-pool-auth-'));
  authorization = await startAuthorizationServer();
  mcp = await startProtectedMcpServer(authorization);
  store = new SignInStore(join(folder, 'oauth.json'));
});

afterEach(async () => {
  await mcp.close();
  await authorization.close();
  await rm(folder, { recursive: true, force: true });
});

const browsing: UserQuestions = {
  signIn: (request) => {
    void browse(request.url);
    return Promise.resolve({ kind: 'opened' });
  },
};

/** Everything secret the store holds now: tokens, and any client secret. */
async function secrets(): Promise<string[]> {
  const text = await readFile(store.file, 'utf8');
  const found = [...text.matchAll(/"(access_token|refresh_token|client_secret)": "([^"]+)"/g)].map(
    (m) => m[2] ?? '',
  );
  expect(found.length).toBeGreaterThan(0);
  return found;
}

describe('pool sign-in', () => {
  it('-p: a server that needs sign-in is one line, and the others go on', async () => {
    const logs = logCollector();
    const pool = await startPool({
      servers: { protected: { transport: 'http', url: mcp.url, headers: {} } },
      env: testEnvironment(),
      log: logs.log,
      signIn: { store },
    });
    expect(logs.warnings()).toEqual(['server protected needs sign-in: run `mcphost auth login protected`']);
    expect(pool.status()).toMatchObject([{ name: 'protected', state: 'failed' }]);
    expect(await store.list()).toEqual(new Map());
  });

  it('-p: a server signed in beforehand starts, and its tool answers', async () => {
    const provider = new McpOAuthProvider({
      server: 'protected',
      serverUrl: mcp.url,
      settings: { grant: 'authorization_code' },
      store,
    });
    await signIn({ provider, questions: browsing });
    const logs = logCollector();
    const pool = await startPool({
      servers: { protected: { transport: 'http', url: mcp.url, headers: {} } },
      env: testEnvironment(),
      log: logs.log,
      signIn: { store },
    });
    expect(logs.warnings()).toEqual([]);
    const result = await pool.call(toolCall('protected__whoami'));
    expect(firstText(result)).toBe('you are alice');
    const seen = JSON.stringify({ logs: logs.entries, status: pool.status(), result });
    for (const secret of await secrets()) expect(seen).not.toContain(secret);
  });

  it('chat: the sign-in page is offered during the start, and the server starts once signed in', async () => {
    const logs = logCollector();
    const asked: string[] = [];
    const pool = await startPool({
      servers: { protected: { transport: 'http', url: mcp.url, headers: {} } },
      env: testEnvironment(),
      log: logs.log,
      signIn: {
        store,
        questions: {
          signIn: (request) => {
            asked.push(request.server);
            return browsing.signIn?.(request) ?? Promise.resolve({ kind: 'skip' });
          },
        },
      },
    });
    expect(asked).toEqual(['protected']);
    expect(pool.status()).toMatchObject([{ name: 'protected', state: 'ready', toolCount: 2 }]);
    expect(firstText(await pool.call(toolCall('protected__whoami')))).toBe('you are alice');
    const seen = JSON.stringify({ logs: logs.entries, status: pool.status() });
    for (const secret of await secrets()) expect(seen).not.toContain(secret);
  });

  it('chat: a user who skips gets the same one line', async () => {
    const logs = logCollector();
    await startPool({
      servers: { protected: { transport: 'http', url: mcp.url, headers: {} } },
      env: testEnvironment(),
      log: logs.log,
      signIn: { store, questions: { signIn: () => Promise.resolve({ kind: 'skip' }) } },
    });
    expect(logs.warnings()).toEqual(['server protected needs sign-in: run `mcphost auth login protected`']);
  });

  it('oauth: false sends only the static headers (the 401 is reported, no sign-in offered)', async () => {
    const logs = logCollector();
    await startPool({
      servers: { protected: { transport: 'http', url: mcp.url, headers: {}, oauth: false } },
      env: testEnvironment(),
      log: logs.log,
      signIn: { store },
    });
    expect(logs.warnings()).toEqual([
      'server protected refused the request (HTTP 401) and its sign-in is off ("oauth": false)',
    ]);
    expect(mcp.tokensSeen).toEqual([]);
  });
});

describe('step-up on 403 insufficient_scope', () => {
  it('a call that needs more scope says to sign in, and the next sign-in asks for that scope', async () => {
    const provider = new McpOAuthProvider({
      server: 'protected',
      serverUrl: mcp.url,
      settings: { grant: 'authorization_code' },
      store,
    });
    await signIn({ provider, questions: browsing });
    const pool = await startPool({
      servers: { protected: { transport: 'http', url: mcp.url, headers: {} } },
      env: testEnvironment(),
      signIn: { store },
    });
    const denied = await pool.call(toolCall('protected__admin'));
    expect(denied.isError).toBe(true);
    expect(firstText(denied)).toContain('server protected needs sign-in: run `mcphost auth login protected`');
    expect(firstText(await pool.call(toolCall('protected__whoami')))).toBe('you are alice');

    let asked: URL | undefined;
    await signIn({
      provider,
      fresh: true,
      questions: {
        signIn: (request) => {
          asked = new URL(request.url);
          return browsing.signIn?.(request) ?? Promise.resolve({ kind: 'skip' });
        },
      },
    });
    expect(asked?.searchParams.get('scope')?.split(' ')).toEqual(
      expect.arrayContaining(['mcp:tools', 'mcp:admin']),
    );
    expect((await store.get(mcp.url)).scope).toBeUndefined();
    expect(firstText(await pool.call(toolCall('protected__admin')))).toBe('admin granted');
  });
});
