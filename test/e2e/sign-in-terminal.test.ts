/**
 * The chat signing in to a server in a real terminal (tmux, the BUILT CLI): the sign-in page is
 * shown while the servers start (no browser here: no DISPLAY), the test's automated browser opens
 * it, and the chat starts with the server ready. Skipped, saying why, only without tmux.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOllama, textReply, type FakeOllama } from '../fakes/ollama-server.js';
import { temporaryHome, type TemporaryHome } from '../support/cli.js';
import {
  browse,
  startAuthorizationServer,
  startProtectedMcpServer,
  type AuthorizationServer,
  type ProtectedMcpServer,
} from '../support/oauth-servers.js';
import { startChatTerminal } from '../support/chat-terminal.js';
import { tmuxAvailable, type TmuxTerminal } from '../support/tmux.js';

const hasTmux = tmuxAvailable();
if (!hasTmux)
  console.warn('tmux is not installed: skipping the terminal sign-in test (apt-get install tmux)');

const PROMPT = 'ollama:mistral-small ›';

let home: TemporaryHome;
let authorization: AuthorizationServer;
let mcp: ProtectedMcpServer;
let ollama: FakeOllama;
let terminal: TmuxTerminal | undefined;

beforeEach(async () => {
  home = await temporaryHome();
  authorization = await startAuthorizationServer();
  mcp = await startProtectedMcpServer(authorization);
  ollama = await startFakeOllama([textReply('unused')]);
  await home.writeConfig({ mcpServers: { protected: { type: 'http', url: mcp.url } } });
});

afterEach(async () => {
  await terminal?.close();
  terminal = undefined;
  await ollama.close();
  await mcp.close();
  await authorization.close();
  await home.remove();
});

describe.skipIf(!hasTmux)('signing in from the chat', () => {
  it('shows the sign-in page, waits for the redirect, then starts with the server ready', async () => {
    terminal = await startChatTerminal({
      home: home.path,
      providerUrl: ollama.url,
      // Wide enough that the sign-in URL is on one line of the screen.
      columns: 1000,
    });
    const screen = await terminal.waitFor(/^\s+http:\/\/127\.0\.0\.1:\d+\/auth\?\S+$/m);
    expect(screen).toContain('server protected needs sign-in. Open this page to sign in:');
    const url = /^\s+(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)$/m.exec(screen)?.[1] ?? '';
    expect((await browse(url)).status).toBe(200);
    await terminal.waitFor(PROMPT);
    terminal.type('/servers');
    terminal.keys('Enter');
    const listing = await terminal.waitFor(/protected\s+ready/);
    expect(listing).not.toContain('needs sign-in: run');
    terminal.type('/quit');
    terminal.keys('Enter');
    expect(await terminal.waitForExit()).toBe(0);
  });
});
