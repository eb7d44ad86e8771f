/**
 * `mcphost auth login|status|logout` and `-p` against a server that needs sign-in, end to end: the
 * built CLI, a real authorization server (oidc-provider) and a protected MCP server on loopback,
 * the browser step automated from the URL the CLI prints. Every output — stdout, stderr with
 * --debug, the audit log, the session file — is searched for the tokens.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOllama, textReply, toolCallReply, type FakeOllama } from '../fakes/ollama-server.js';
import { runCli, startCli, temporaryHome, type TemporaryHome } from '../support/cli.js';
import {
  browse,
  startAuthorizationServer,
  startProtectedMcpServer,
  type AuthorizationServer,
  type ProtectedMcpServer,
} from '../support/oauth-servers.js';

let home: TemporaryHome;
let authorization: AuthorizationServer;
let mcp: ProtectedMcpServer;
let ollama: FakeOllama | undefined;

beforeEach(async () => {
  home = await temporaryHome();
  authorization = await startAuthorizationServer();
  mcp = await startProtectedMcpServer(authorization);
  await home.writeConfig({ mcpServers: { protected: { type: 'http', url: mcp.url } } });
});

afterEach(async () => {
  await ollama?.close();
  ollama = undefined;
  await mcp.close();
  await authorization.close();
  await home.remove();
});

const storeFile = () => join(home.path, '.local', 'state', 'mcphost', 'oauth.json');

/** Runs `mcphost auth login protected`, opening the URL it prints like a browser would. */
async function login(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const running = startCli(['auth', 'login', 'protected'], home.path);
  running.child.stdin.end();
  for (let waited = 0; waited < 15_000; waited += 50) {
    const url = /^\s+(http:\/\/127\.0\.0\.1:\d+(?:\/tenant1)?\/auth\?\S+)$/m.exec(running.stderr())?.[1];
    if (url !== undefined) {
      await browse(url);
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return running.done;
}

async function storedSecrets(): Promise<string[]> {
  const text = await readFile(storeFile(), 'utf8');
  return [...text.matchAll(/"(access_token|refresh_token)": "([^"]+)"/g)].map((match) => match[2] ?? '');
}

describe('mcphost auth', () => {
  it('status, login, status, logout: never printing a token', async () => {
    const before = await runCli(['auth', 'status'], home.path);
    expect(before.code).toBe(0);
    expect(before.stdout).toMatch(/^protected\s+http:\/\/127\.0\.0\.1:\d+\/mcp\s+not signed in$/m);

    const signedIn = await login();
    expect(signedIn.stderr).toContain('server protected needs sign-in. Open this page to sign in:');
    expect(signedIn.stdout).toBe('Signed in to protected.\n');
    expect(signedIn.code).toBe(0);
    const secrets = await storedSecrets();
    expect(secrets).toHaveLength(2);

    const after = await runCli(['auth', 'status'], home.path);
    expect(after.stdout).toMatch(/signed in \(expires in 60 min\)$/m);

    const out = await runCli(['auth', 'logout', 'protected'], home.path);
    expect(out.stdout).toBe('Signed out of protected (tokens revoked at the server).\n');
    const last = await runCli(['auth', 'status'], home.path);
    expect(last.stdout).toMatch(/not signed in$/m);

    for (const output of [signedIn, after, out, last]) {
      for (const secret of secrets) expect(output.stdout + output.stderr).not.toContain(secret);
    }
  });

  it('login finds metadata published only in the challenge and under an OpenID path (auth/metadata-var3)', async () => {
    await mcp.close();
    await authorization.close();
    authorization = await startAuthorizationServer([], {
      issuerPath: '/tenant1',
      metadataPath: '/tenant1/.well-known/openid-configuration',
    });
    mcp = await startProtectedMcpServer(authorization, { metadataPath: '/custom/metadata/location.json' });
    await home.writeConfig({ mcpServers: { protected: { type: 'http', url: mcp.url } } });
    const signedIn = await login();
    // The sign-in URL carries random values (client id, PKCE challenge) that may hold "404" by chance.
    expect(signedIn.stderr.replace(/https?:\/\/\S+/g, '')).not.toContain('404');
    expect(signedIn.stdout).toBe('Signed in to protected.\n');
    expect(signedIn.code).toBe(0);
    expect(await storedSecrets()).toHaveLength(2);
  });

  it('names the servers there are when asked for one that is not', async () => {
    const run = await runCli(['auth', 'login', 'nope'], home.path);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/auth login: no server named "nope" in .*\.mcp\.json \(servers: protected\)/);
  });

  it('-p without a sign-in: one line naming the command, and the run goes on', async () => {
    ollama = await startFakeOllama([textReply('answered without it')]);
    const run = await runCli(['-p', 'hi', '--provider-url', ollama.url], home.path);
    expect(run.stderr).toContain('server protected needs sign-in: run `mcphost auth login protected`');
    expect(run.stdout).toBe('answered without it\n');
    expect(run.code).toBe(0);
  });

  it('-p signed in: the tool answers, and no output, log or session holds a token', async () => {
    expect((await login()).code).toBe(0);
    ollama = await startFakeOllama([toolCallReply(['protected__whoami', {}]), textReply('done')]);
    const audit = join(home.path, 'audit.jsonl');
    const session = join(home.path, 'session.json');
    const run = await runCli(
      [
        '-p',
        'who am i',
        '--provider-url',
        ollama.url,
        '--debug',
        '--approve-all',
        '--audit-log',
        audit,
        '--save-session',
        session,
      ],
      home.path,
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('done\n');
    const auditText = await readFile(audit, 'utf8');
    const sessionText = await readFile(session, 'utf8');
    expect(sessionText).toContain('you are alice');
    expect(auditText).toContain('protected__whoami');
    const secrets = await storedSecrets();
    expect(mcp.tokensSeen).toContain(secrets[0]);
    for (const secret of secrets) {
      for (const output of [run.stdout, run.stderr, auditText, sessionText])
        expect(output).not.toContain(secret);
    }
  });
});
