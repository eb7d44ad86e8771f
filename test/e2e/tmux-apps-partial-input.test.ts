/**
 * MCP Apps' partial tool input in the chat (issue 39), in a real terminal (tmux) with the BUILT CLI,
 * `-m anthropic:…` against the fake Messages API, and the page in Debian's chromium: the app opens
 * (one line in the chat) while the model still writes its call — the fake holds the stream before
 * the last piece of the arguments until the app shows the input so far — then the call is asked
 * about in the chat, approved, and the app gets the whole input and the result. Skipped, saying
 * why, without tmux or chromium.
 */
import { join } from 'node:path';
import type { Browser, FrameLocator } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic, textAnswer, type FakeAnthropic } from '../fakes/anthropic-server.js';
import { startChatTerminal } from '../support/chat-terminal.js';
import { temporaryHome, type TemporaryHome } from '../support/cli.js';
import { hasChromium, launchChromium } from '../support/chromium.js';
import { tmuxAvailable, type TmuxTerminal } from '../support/tmux.js';

const hasTmux = tmuxAvailable();
if (!hasTmux)
  console.warn('tmux is not installed: skipping the partial-input chat test (apt-get install tmux)');
if (!hasChromium)
  console.warn('chromium is not installed: skipping the partial-input chat test (apt-get install chromium)');

const PROMPT = 'anthropic:claude-sonnet-4-5 ›';
const QUESTION = 'Allow? [y] once  [t] always this tool  [s] always this server';
const fixtures = join(import.meta.dirname, '..', 'fixtures', 'servers');

let home: TemporaryHome | undefined;
let anthropic: FakeAnthropic | undefined;
let chat: TmuxTerminal | undefined;
let browser: Browser | undefined;

afterEach(async () => {
  await chat?.close();
  await browser?.close();
  await anthropic?.close();
  await home?.remove();
  chat = browser = anthropic = home = undefined;
});

describe.skipIf(!hasTmux || !hasChromium)('MCP Apps in the chat: the input while the model writes it', () => {
  it('opens the app as the call streams, shows the input so far, then asks about the call and the app gets the whole input and result', async () => {
    const shown: { frame?: FrameLocator } = {};
    const frameLog = async () => (await shown.frame?.locator('#log').textContent()) ?? '';
    anthropic = await startFakeAnthropic((request) => {
      const messages = (request.body as { messages: Array<{ role: string; content: unknown }> }).messages;
      const last = JSON.stringify(messages.at(-1)?.content ?? '');
      if (last.includes('tool_result')) return textAnswer('Here is the dashboard.');
      if (last.includes('5 open tickets')) return textAnswer('Start with the oldest ticket.');
      return {
        type: 'answer',
        content: [
          { type: 'text', text: 'Opening it.' },
          {
            type: 'tool_use',
            id: 'toolu_dash1',
            name: 'dash__show_dashboard',
            fragments: ['', '{"bo', 'ard": "o', 'ps"}'],
            // Before the last piece, the app (open since the first) has shown the input so far.
            waitBefore: (index) =>
              index === 3
                ? expect.poll(frameLog, { timeout: 20_000 }).toContain('partial input: {"board":"o"}')
                : Promise.resolve(),
          },
        ],
      };
    });
    home = await temporaryHome();
    await home.writeConfig({
      mcpServers: { dash: { command: process.execPath, args: [join(fixtures, 'app-server.mjs')] } },
    });
    chat = await startChatTerminal({
      home: home.path,
      providerUrl: anthropic.url,
      args: ['-m', 'anthropic:claude-sonnet-4-5', '--apps', '--no-color'],
      env: { ANTHROPIC_API_KEY: 'sk-ant-test' },
      columns: 220,
      rows: 60,
    });
    await chat.waitFor(PROMPT);
    chat.type('/apps');
    chat.keys('Enter');
    let screen = await chat.waitFor('No app yet');
    const url = /^mcphost: apps: (http:\/\/127\.0\.0\.1:\d+\/[\w-]+\/)$/m.exec(screen)?.[1] ?? '';
    browser = await launchChromium();
    const tab = await browser.newPage();
    await tab.goto(url);
    shown.frame = tab.frameLocator('iframe');

    chat.type('show the ops board');
    chat.keys('Enter');
    // The app opened while the call streamed; the call is asked about once it is complete.
    screen = await chat.waitFor(QUESTION);
    expect(screen).toMatch(/mcphost: apps: dash__show_dashboard opened an app \(http:\/\/127\.0\.0\.1:\d+\//);
    expect(screen).toMatch(/arguments:[\s\S]*board[\s\S]*ops/);
    expect(screen.indexOf('opened an app')).toBeLessThan(screen.indexOf('→ dash__show_dashboard'));
    // The whole input reaches the app before the call runs (while the chat asks about it).
    await expect.poll(frameLog, { timeout: 10_000 }).toContain('input: {"board":"ops"}');
    expect(await frameLog()).not.toContain('tool result:');
    chat.type('y');
    chat.keys('Enter');
    await chat.waitFor('Here is the dashboard.');

    // The app now has the result and calls its app-only tool: asked in the chat too.
    screen = await chat.waitFor((text) => text.split(QUESTION).length === 3);
    chat.type('y');
    chat.keys('Enter');
    await chat.waitFor('Start with the oldest ticket.');
    const lines = (await frameLog()).split('\n');
    const partial = lines.indexOf('partial input: {"board":"o"}');
    expect(partial).toBeGreaterThanOrEqual(0);
    expect(lines.indexOf('input: {"board":"ops"}')).toBeGreaterThan(partial);
    expect(lines).toContain('tool result: board ops: 3 open tickets');
    await chat.waitFor((text) => text.trimEnd().endsWith(PROMPT));
    chat.keys('C-d');
    expect(await chat.waitForExit()).toBe(0);
  }, 90_000);
});
