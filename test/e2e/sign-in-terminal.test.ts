/**
 * The chat signing in to a server in a real terminal (tmux, the BUILT CLI): the sign-in page is
 * shown while the servers start (no browser here: no DISPLAY), the test's automated browser opens
 * it, and the chat starts with the server ready. Skipped, saying why, only without tmux.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { textReply } from '../fakes/ollama-server.js';
import {
  browse,
  startAuthorizationServer,
  startProtectedMcpServer,
  type AuthorizationServer,
  type ProtectedMcpServer,
} from '../support/oauth-servers.js';
import { PROMPT, useChatTerminal } from '../support/chat-terminal.js';
import { tmuxAvailable } from '../support/tmux.js';

const hasTmux = tmuxAvailable();
if (!hasTmux)
  console.warn('tmux is not installed: skipping the terminal sign-in test (apt-get install tmux)');

const fixture = useChatTerminal();
let authorization: AuthorizationServer;
let mcp: ProtectedMcpServer;

beforeEach(async () => {
  authorization = await startAuthorizationServer();
  mcp = await startProtectedMcpServer(authorization);
  await fixture.startModel([textReply('unused')]);
  await fixture.home.writeConfig({ mcpServers: { protected: { type: 'http', url: mcp.url } } });
});

// Runs before the fixture's teardown (after-hooks run last-registered first): a chat still open
// then sees its server go, which is harmless, as the test is over.
afterEach(async () => {
  await mcp.close();
  await authorization.close();
});

describe.skipIf(!hasTmux)('signing in from the chat', () => {
  it('shows the sign-in page, waits for the redirect, then starts with the server ready', async () => {
    const terminal = await fixture.startChat({
      // Wide enough that the sign-in URL is on one line of the screen.
      columns: 1000,
      ready: false,
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
