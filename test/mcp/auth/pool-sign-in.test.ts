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
import type { UserQuestions } from '../../../src/core/questions.js';
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

describe('step-up during a call, with someone to ask (the chat)', () => {
  it('a 403 insufficient_scope signs in again for the union of scopes, and the call is sent once more', async () => {
    const asked: URL[] = [];
    const pool = await startPool({
      servers: { protected: { transport: 'http', url: mcp.url, headers: {} } },
      env: testEnvironment(),
      signIn: {
        store,
        questions: {
          signIn: (request) => {
            asked.push(new URL(request.url));
            return browsing.signIn?.(request) ?? Promise.resolve({ kind: 'skip' });
          },
        },
      },
    });
    expect(asked).toHaveLength(1);
    const firstScopes = asked[0]?.searchParams.get('scope')?.split(' ') ?? [];
    expect(firstScopes).toContain('mcp:tools');
    expect(firstScopes).not.toContain('mcp:admin');

    const tokensBefore = mcp.tokensSeen.length;
    const result = await pool.call(toolCall('protected__admin'));
    expect(firstText(result)).toBe('admin granted');
    expect(result.isError).toBe(false);
    expect(asked).toHaveLength(2);
    // The union: what was granted before, and what the challenge named.
    expect(asked[1]?.searchParams.get('scope')?.split(' ')).toEqual(
      expect.arrayContaining(['mcp:tools', 'mcp:admin']),
    );
    // The call went twice: refused with the old token, answered with the new one.
    const sent = mcp.tokensSeen.slice(tokensBefore);
    expect(new Set(sent).size).toBeGreaterThanOrEqual(2);
    expect(firstText(await pool.call(toolCall('protected__whoami')))).toBe('you are alice');
  });

  it('a person who declines the step-up gets the one line for that call only', async () => {
    let answers = 0;
    const pool = await startPool({
      servers: { protected: { transport: 'http', url: mcp.url, headers: {} } },
      env: testEnvironment(),
      signIn: {
        store,
        questions: {
          signIn: (request) => {
            answers += 1;
            // Signs in at the start, declines the step-up.
            if (answers === 1) return browsing.signIn?.(request) ?? Promise.resolve({ kind: 'skip' });
            return Promise.resolve({ kind: 'skip' });
          },
        },
      },
    });
    const denied = await pool.call(toolCall('protected__admin'));
    expect(denied.isError).toBe(true);
    expect(firstText(denied)).toBe('server protected needs sign-in: run `mcphost auth login protected`');
    expect(answers).toBe(2);
    expect(firstText(await pool.call(toolCall('protected__whoami')))).toBe('you are alice');
  });
});

describe('authorization-server migration (SEP-2352)', () => {
  it('a server that moves to another authorization server: registration and sign-in there, nothing reused', async () => {
    const second = await startAuthorizationServer();
    try {
      const asked: URL[] = [];
      const pool = await startPool({
        servers: { protected: { transport: 'http', url: mcp.url, headers: {} } },
        env: testEnvironment(),
        signIn: {
          store,
          questions: {
            signIn: (request) => {
              asked.push(new URL(request.url));
              return browsing.signIn?.(request) ?? Promise.resolve({ kind: 'skip' });
            },
          },
        },
      });
      expect(firstText(await pool.call(toolCall('protected__whoami')))).toBe('you are alice');
      const before = await store.get(mcp.url);
      expect(before.client?.issuer).toBe(authorization.issuer);

      mcp.moveTo(second);
      // The old token is refused (401): the metadata now names the second server.
      expect(firstText(await pool.call(toolCall('protected__whoami')))).toBe('you are alice');
      expect(asked.map((url) => url.origin)).toEqual([
        new URL(authorization.issuer).origin,
        new URL(second.issuer).origin,
      ]);
      const after = await store.get(mcp.url);
      expect(after.client?.issuer).toBe(second.issuer);
      // A new registration: the first server's client id was not presented to the second.
      expect(after.client?.client_id).not.toBe(before.client?.client_id);
      expect(asked[1]?.searchParams.get('client_id')).toBe(after.client?.client_id);
      expect(await second.provider.Client.find(before.client?.client_id ?? '')).toBeUndefined();
    } finally {
      await second.close();
    }
  });

  it('-p: a moved server is one line naming the sign-in, and the store is left for `auth login`', async () => {
    const provider = new McpOAuthProvider({
      server: 'protected',
      serverUrl: mcp.url,
      settings: { grant: 'authorization_code' },
      store,
    });
    await signIn({ provider, questions: browsing });
    const second = await startAuthorizationServer();
    try {
      mcp.moveTo(second);
      const logs = logCollector();
      await startPool({
        servers: { protected: { transport: 'http', url: mcp.url, headers: {} } },
        env: testEnvironment(),
        log: logs.log,
        signIn: { store },
      });
      expect(logs.warnings()).toEqual(['server protected needs sign-in: run `mcphost auth login protected`']);
      // Nothing registered at the second server in the background.
      expect((await store.get(mcp.url)).client?.issuer).toBe(authorization.issuer);
    } finally {
      await second.close();
    }
  });
});
