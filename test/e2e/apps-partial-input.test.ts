/**
 * MCP Apps' partial tool input (`ui/notifications/tool-input-partial`, issue 39) in a real browser:
 * the real Anthropic SDK client against its loopback fake, which streams the tool call's arguments
 * as `input_json_delta` pieces and holds the stream before the last one until the app (the fixture
 * app server's, in Debian's chromium driven by playwright-core) has shown the input so far. The
 * same app then gets the whole input and the result; a call the guard refuses is cancelled.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, FrameLocator } from 'playwright-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRunner, serveAppPage, type AppEvent, type ApprovalDecision } from '../../src/index.js';
import { startFakeAnthropic, textAnswer, type FakeAnthropic } from '../fakes/anthropic-server.js';
import { hasChromium, launchChromium } from '../support/chromium.js';

const fixtures = join(import.meta.dirname, '..', 'fixtures', 'servers');
const servers = { dash: { command: process.execPath, args: [join(fixtures, 'app-server.mjs')] } };

let folder: string;
let anthropic: FakeAnthropic | undefined;
let browser: Browser | undefined;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'mcphost-apps-partial-'));
});
afterEach(async () => {
  await browser?.close();
  browser = undefined;
  await anthropic?.close();
  anthropic = undefined;
  await rm(folder, { recursive: true, force: true });
});

/** The app's log in its frame, once it says `line` (the stream waits on this). */
async function frameSays(frame: () => FrameLocator | undefined, line: string): Promise<void> {
  await expect
    .poll(async () => (await frame()?.locator('#log').textContent()) ?? '', { timeout: 20_000 })
    .toContain(line);
}

/** The model's call to the dashboard tool, its arguments in four pieces as the API cuts them. */
function dashboardCall(waitBefore: (index: number) => Promise<void>) {
  return {
    type: 'tool_use' as const,
    id: 'toolu_dash1',
    name: 'dash__show_dashboard',
    fragments: ['', '{"bo', 'ard": "o', 'ps"}'],
    waitBefore,
  };
}

async function setUp(decision: ApprovalDecision, waitBefore: (index: number) => Promise<void>) {
  anthropic = await startFakeAnthropic([
    { type: 'answer', content: [{ type: 'text', text: 'Opening it.' }, dashboardCall(waitBefore)] },
    textAnswer('Here is the dashboard.'),
  ]);
  const runner = await createRunner({
    model: 'anthropic:claude-sonnet-4-5',
    providerUrl: anthropic.url,
    mcpServers: servers,
    env: { ANTHROPIC_API_KEY: 'sk-ant-test' },
    homeDir: folder,
    apps: {},
    questions: { approveToolCall: () => Promise.resolve(decision) },
  });
  const apps = runner.apps;
  if (apps === undefined) throw new Error('apps are off');
  const events: AppEvent[] = [];
  apps.listen((event) => events.push(event));
  const page = await serveAppPage(apps);
  browser = await launchChromium();
  const tab = await browser.newPage();
  await tab.goto(page.url);
  return { runner, apps, events, page, frame: tab.frameLocator('iframe') };
}

describe.skipIf(!hasChromium)('MCP Apps: the tool input while the model writes it', () => {
  it('opens the app as the call starts streaming, shows the input so far, then the whole input and the result, in one app', async () => {
    const shown: { frame?: FrameLocator } = {};
    // Before the last piece: the app, open since the first one, must have shown the input so far.
    const waitBefore = (index: number) =>
      index === 3 ? frameSays(() => shown.frame, 'partial input: {"board":"o"}') : Promise.resolve();
    const set = await setUp({ kind: 'allow-once' }, waitBefore);
    const frame = (shown.frame = set.frame);
    await using runner = set.runner;
    const result = await runner.run('show me the ops board');
    expect(result.text).toBe('Here is the dashboard.');
    await frameSays(() => frame, 'tool result: board ops: 3 open tickets');
    const log = (await frame.locator('#log').textContent()) ?? '';
    const lines = log.split('\n');
    const partial = lines.indexOf('partial input: {"board":"o"}');
    const whole = lines.indexOf('input: {"board":"ops"}');
    expect(partial).toBeGreaterThanOrEqual(0);
    expect(whole).toBeGreaterThan(partial);
    // Nothing partial after the whole input.
    expect(lines.slice(whole).some((line) => line.startsWith('partial input:'))).toBe(false);
    // One app for the call, opened while it streamed, carried on when it ran.
    expect(set.apps.list().map((app) => [app.call.id, app.call.input])).toEqual([
      ['toolu_dash1', { board: 'ops' }],
    ]);
    expect(set.events.filter((event) => event.type === 'app-opened')).toHaveLength(1);
    // The model's history has the whole call only.
    expect(JSON.stringify(runner.history)).toContain('"input":{"board":"ops"}');
    await set.page.close();
  }, 60_000);

  it('cancels the app of a call the guard refuses (it opened while the call streamed)', async () => {
    const shown: { frame?: FrameLocator } = {};
    const waitBefore = (index: number) =>
      index === 3 ? frameSays(() => shown.frame, 'partial input: {"board":"o"}') : Promise.resolve();
    const set = await setUp({ kind: 'deny', reason: 'not now' }, waitBefore);
    const frame = (shown.frame = set.frame);
    await using runner = set.runner;
    await runner.run('show me the ops board');
    await frameSays(() => frame, 'cancelled: the tool call did not run');
    const log = (await frame.locator('#log').textContent()) ?? '';
    expect(log).toContain('input: {"board":"ops"}');
    expect(log).not.toContain('tool result:');
    await set.page.close();
  }, 60_000);
});
