/**
 * MCP Apps in the chat (issue 39), in a real terminal (tmux) with the BUILT CLI and a real browser
 * (Debian's chromium with playwright-core): `/apps` serves the page and prints its URL; the model
 * calls the fixture server's dashboard tool (approved in the chat); the app, opened in chromium,
 * calls its app-only tool — asked about in the chat under the app's name, approved there — reads a
 * resource and sends a message, which the chat shows as the app's and the model answers while the
 * chat sat idle at its prompt. Skipped, saying why, without tmux or chromium.
 */
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { textReply, toolCallReply } from '../fakes/ollama-server.js';
import { PROMPT, useChatTerminal } from '../support/chat-terminal.js';
import { hasChromium, launchChromium } from '../support/chromium.js';
import { tmuxAvailable } from '../support/tmux.js';

const hasTmux = tmuxAvailable();
if (!hasTmux) console.warn('tmux is not installed: skipping the MCP Apps chat test (apt-get install tmux)');
if (!hasChromium)
  console.warn('chromium is not installed: skipping the MCP Apps chat test (apt-get install chromium)');

const QUESTION = 'Allow? [y] once  [t] always this tool  [s] always this server';
const fixtures = join(import.meta.dirname, '..', 'fixtures', 'servers');
const APP_MESSAGE = 'The dashboard now shows 5 open tickets. What should I do first?';

const fixture = useChatTerminal();
let browser: Browser | undefined;

beforeEach(async () => {
  await fixture.home.writeConfig({
    mcpServers: {
      dash: { command: process.execPath, args: [join(fixtures, 'app-server.mjs')] },
      other: { command: process.execPath, args: [join(fixtures, 'modern-server.mjs')] },
    },
  });
  await fixture.startModel([], {
    fallback: (request) => {
      const last = request.messages.at(-1);
      if (last?.role === 'tool') return textReply('Here is the dashboard.');
      if (last?.content.includes('5 open tickets') === true)
        return textReply('Start with the oldest ticket.');
      return toolCallReply(['dash__show_dashboard', { board: 'ops' }]);
    },
  });
});
afterEach(async () => {
  await browser?.close();
  browser = undefined;
});

describe.skipIf(!hasTmux || !hasChromium)('MCP Apps in the chat', () => {
  it("serves the page on /apps, asks about the app's tool call in the chat, and answers the app's message", async () => {
    const chat = await fixture.startChat({ args: ['--apps', '--no-color'], columns: 220, rows: 60 });

    // `/apps` before any app: the page is served, its URL printed in one line.
    chat.type('/apps');
    chat.keys('Enter');
    let screen = await chat.waitFor('No app yet');
    const url = /^mcphost: apps: (http:\/\/127\.0\.0\.1:\d+\/[\w-]+\/)$/m.exec(screen)?.[1];
    expect(url).toBeDefined();
    expect(screen).toContain(`Apps page: ${url}`);

    // The model opens the app; its own call is asked about as the model's.
    chat.type('show the ops board');
    chat.keys('Enter');
    screen = await chat.waitFor(QUESTION);
    expect(screen).toContain('The model wants to run a tool that needs your approval');
    chat.type('y');
    chat.keys('Enter');
    screen = await chat.waitFor('Here is the dashboard.');
    expect(screen).toMatch(
      /mcphost: apps: dash__show_dashboard opened an app \(http:\/\/127\.0\.0\.1:\d+\/[\w-]+\/#app-1-\w+\)/,
    );
    await chat.waitFor((text) => text.trimEnd().endsWith(PROMPT));

    // The page in a real browser: the app gets the result and calls its app-only tool, which the
    // chat asks about (idle at its prompt) under the app's name.
    browser = await launchChromium();
    const tab = await browser.newPage();
    await tab.goto(url ?? '');
    screen = await chat.waitFor((text) => text.split(QUESTION).length === 3);
    expect(screen).toMatch(
      /The app of dash__show_dashboard \(app-1-\w+\) wants to run a tool that needs your approval/,
    );
    expect(screen).toContain('tool:      refresh_counts  (dash__refresh_counts)');
    chat.type('y');
    chat.keys('Enter');

    // The app's message is a turn the chat shows as the app's, and the model answers it.
    screen = await chat.waitFor('Start with the oldest ticket.');
    expect(screen).toContain(`app dash__show_dashboard › ${APP_MESSAGE}`);
    expect(screen).toMatch(/mcphost: apps: app app-1-\w+: tools\/call "echo" refused/);
    const asked = fixture.model.chatRequests.at(-1)?.messages.at(-1)?.content ?? '';
    expect(asked).toContain('The user is looking at the ops board.');
    expect(asked).toContain(APP_MESSAGE);
    const log = await tab.frameLocator('iframe').locator('#log').textContent();
    expect(log).toContain('refresh_counts: board ops: 5 open tickets');
    expect(log).toContain('resource: escalate anything older than a day');
    expect(log).toContain('message: sent');

    // `/apps` lists the app; the prompt still takes typed turns.
    await chat.waitFor((text) => text.trimEnd().endsWith(PROMPT));
    chat.type('/apps');
    chat.keys('Enter');
    screen = await chat.waitFor(/dash\/show_dashboard {2}open {2}app-1-\w+/);
    expect(screen).toContain('Apps of this session (1, newest first):');
    chat.keys('C-d');
    expect(await chat.waitForExit()).toBe(0);
  }, 90_000);
});
