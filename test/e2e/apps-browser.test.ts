/**
 * MCP Apps (issue 39) in a real browser: Debian's chromium driven by playwright-core, the fixture
 * app server (v2 server SDK + ext-apps' server helpers), the real Ollama client against its fake,
 * and the library's `runner.apps` with its local page. The app, on load, receives the tool's
 * result, calls an app-only tool of its server through the host (approved through the library's
 * approval callback, audited as from the app), reads a resource and sends a message the model then
 * answers; its try at another server's tool, a request its CSP does not allow, and a message forged
 * from outside its frame are each refused and reported.
 */
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRunner, serveAppPage, type AppEvent, type ApprovalRequest } from '../../src/index.js';
import { startFakeOllama, textReply, toolCallReply, type FakeOllama } from '../fakes/ollama-server.js';
import { startCli, temporaryHome } from '../support/cli.js';
import { hasChromium, launchChromium } from '../support/chromium.js';

/** Where a run keeps what it made to look at (the page's screenshot); gitignored. */
const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts');
const fixtures = join(import.meta.dirname, '..', 'fixtures', 'servers');
const servers = {
  dash: { command: process.execPath, args: [join(fixtures, 'app-server.mjs')] },
  other: { command: process.execPath, args: [join(fixtures, 'modern-server.mjs')] },
};

let folder: string;
let ollama: FakeOllama | undefined;
let browser: Browser | undefined;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'mcphost-apps-'));
  await mkdir(ARTIFACTS, { recursive: true });
});
afterEach(async () => {
  await browser?.close();
  browser = undefined;
  await ollama?.close();
  ollama = undefined;
  await rm(folder, { recursive: true, force: true });
});

function launch(): Promise<Browser> {
  return launchChromium();
}

/** Resolves with the first event `matches` accepts. */
function nextEvent(
  events: AppEvent[],
  matches: (event: AppEvent) => boolean,
  timeoutMs = 20_000,
): Promise<AppEvent> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const poll = (): void => {
      const found = events.find(matches);
      if (found !== undefined) resolve(found);
      else if (Date.now() - started > timeoutMs)
        reject(new Error(`no such app event; saw ${JSON.stringify(events.map(summarize))}`));
      else setTimeout(poll, 50);
    };
    poll();
  });
}

function summarize(event: AppEvent): string {
  switch (event.type) {
    case 'refused':
      return `refused: ${event.reason}`;
    case 'log':
    case 'message':
    case 'model-context':
      return `${event.type}: ${event.text}`;
    case 'app-opened':
    case 'app-closed':
    case 'page-served':
    case 'page-closed':
      return event.type;
    default: {
      const unexpected: never = event;
      return String(unexpected);
    }
  }
}

function status(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { headers }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

describe.skipIf(!hasChromium)('MCP Apps in a browser page', () => {
  it('hosts the app under the host rules: tool result, app-only call approved, resource, message answered; refusals reported', async () => {
    ollama = await startFakeOllama([
      toolCallReply(['dash__show_dashboard', { board: 'ops' }]),
      textReply('Here is the dashboard.'),
      textReply('Start with the oldest ticket.'),
    ]);
    const asked: ApprovalRequest[] = [];
    const auditLog = join(folder, 'audit.jsonl');
    await using runner = await createRunner({
      model: 'ollama:mistral-small',
      providerUrl: ollama.url,
      mcpServers: servers,
      env: {},
      homeDir: folder,
      safety: { auditLog },
      apps: {},
      questions: {
        approveToolCall: (question) => {
          asked.push(question);
          return Promise.resolve({ kind: 'allow-once' });
        },
      },
    });
    const apps = runner.apps;
    if (apps === undefined) throw new Error('apps are off');
    const events: AppEvent[] = [];
    apps.listen((event) => events.push(event), { takesMessages: true });
    const page = await serveAppPage(apps);
    expect(page.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[\w-]{32}\/$/);

    // The model is never offered the app-only tool.
    const first = await runner.run('show me the ops board');
    expect(first.text).toBe('Here is the dashboard.');
    const offered = (ollama.chatRequests[0]?.tools ?? []).map((tool) => tool.function.name);
    expect(offered).toContain('dash__show_dashboard');
    expect(offered).not.toContain('dash__refresh_counts');
    expect(apps.list().map((app) => app.call.name)).toEqual(['dash__show_dashboard']);

    // The page refuses a request without its token, and one under another Host name.
    const origin = new URL(page.url).origin;
    expect(await status(`${origin}/`)).toBe(403);
    expect(await status(`${origin}/wrong-token/events`)).toBe(403);
    expect(await status(page.url, { host: `evil.example:${new URL(page.url).port}` })).toBe(421);

    browser = await launch();
    const tab = await browser.newPage({ viewport: { width: 900, height: 700 } });
    await tab.goto(page.url);
    const message = await nextEvent(events, (event) => event.type === 'message');
    if (message.type !== 'message') throw new Error('unreachable');
    expect(message.text).toBe('The dashboard now shows 5 open tickets. What should I do first?');
    // The app's message is a new turn the model answers (with the app's context first).
    const context = apps.takeModelContext();
    expect(context).toContain('The user is looking at the ops board.');
    const answer = await runner.run(`${context}\n\n${message.text}`);
    expect(answer.text).toBe('Start with the oldest ticket.');
    const lastPrompt = ollama.chatRequests.at(-1)?.messages.at(-1)?.content;
    expect(lastPrompt).toContain('5 open tickets');

    const frame = tab.frameLocator('iframe');
    await expect
      .poll(() => frame.locator('#log').textContent(), { timeout: 15_000 })
      .toContain('message: sent');
    const log = (await frame.locator('#log').textContent()) ?? '';
    expect(log).toContain('input: {"board":"ops"}');
    expect(log).toContain('tool result: board ops: 3 open tickets');
    // The servers' structuredContent reaches the app (the model's call and the app's own), and
    // neither the model nor the history gets it.
    expect(log).toContain('structured result: {"board":"ops","open":3}');
    expect(log).toContain('refresh_counts structured: {"board":"ops","open":5}');
    expect(JSON.stringify(runner.history)).not.toContain('"open":');
    expect(JSON.stringify(ollama.chatRequests)).not.toContain('"open":');
    expect(log).toContain('host: theme light, mode inline, tool show_dashboard');
    expect(log).toContain('refresh_counts: board ops: 5 open tickets');
    expect(log).toContain('echo (another server): refused');
    expect(log).toContain('resource: escalate anything older than a day');
    expect(log).toContain('fetch: blocked');

    // The app-only call was asked about like the model's (neither tool says it is read-only),
    // marked as the app's.
    expect(asked.map((question) => [question.tool, question.call.fromApp !== undefined])).toEqual([
      ['show_dashboard', false],
      ['refresh_counts', true],
    ]);
    // A message forged from outside the frame (here, the host page itself) is refused and reported.
    await tab.evaluate(() => {
      window.postMessage(
        { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'refresh_counts', arguments: {} } },
        '*',
      );
    });
    await nextEvent(
      events,
      (event) => event.type === 'refused' && event.reason.includes("outside an app's frame"),
    );
    await nextEvent(events, (event) => event.type === 'refused' && event.reason.includes('CSP blocked'));
    const refusals = events.filter((event) => event.type === 'refused').map(summarize);
    expect(
      refusals.some((line) =>
        line.includes('an app may call only its own server\'s tools, and server "dash" has no tool "echo"'),
      ),
    ).toBe(true);
    expect(refusals.some((line) => line.includes('CSP blocked') && line.includes('127.0.0.1:9'))).toBe(true);
    expect(refusals.some((line) => line.includes("outside an app's frame: tools/call"))).toBe(true);
    expect(events.filter((event) => event.type === 'log').map(summarize)).toContain(
      'log: log info: dashboard ready',
    );

    // The run's screenshot is an artifact (test-artifacts/, not committed); docs/images/apps-page.png
    // is a copy of one, committed, and not rewritten by the tests.
    await tab.screenshot({ path: join(ARTIFACTS, 'apps-page.png') });

    const audit = (await readFile(auditLog, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { tool: string; fromApp?: string; decidedBy: string });
    expect(audit.map((entry) => [entry.tool, entry.fromApp === undefined ? 'model' : 'app'])).toEqual([
      ['show_dashboard', 'model'],
      ['refresh_counts', 'app'],
    ]);
    await page.close();
    // Each wait above is bounded on its own; the whole, with a browser start, runs long on a loaded
    // machine (one CI run on Node 24 ended at 60 s, somewhere in it).
  }, 90_000);

  it('tells the app when its tool call is cancelled (ui/notifications/tool-cancelled)', async () => {
    ollama = await startFakeOllama([toolCallReply(['dash__watch_board', {}]), textReply('not reached')]);
    await using runner = await createRunner({
      model: 'ollama:mistral-small',
      providerUrl: ollama.url,
      mcpServers: servers,
      env: {},
      homeDir: folder,
      apps: {},
      questions: { approveToolCall: () => Promise.resolve({ kind: 'allow-once' }) },
    });
    const apps = runner.apps;
    if (apps === undefined) throw new Error('apps are off');
    const events: AppEvent[] = [];
    apps.listen((event) => events.push(event));
    const page = await serveAppPage(apps);
    const controller = new AbortController();
    const running = runner
      .run('watch the board', { signal: controller.signal })
      .catch((error: unknown) => error);
    await nextEvent(events, (event) => event.type === 'app-opened');
    browser = await launch();
    const tab = await browser.newPage();
    await tab.goto(page.url);
    const log = tab.frameLocator('iframe').locator('#log');
    // The app has its input (so it is initialized) while the call still runs; then it is cancelled.
    await expect.poll(() => log.textContent(), { timeout: 15_000 }).toContain('input: {}');
    controller.abort();
    await running;
    await expect
      .poll(() => log.textContent(), { timeout: 10_000 })
      .toContain('cancelled: the tool call was cancelled');
    expect(await log.textContent()).not.toContain('tool result:');
    await page.close();
  }, 60_000);

  it('refuses a resource that is not an MCP App document, in one line', async () => {
    ollama = await startFakeOllama([toolCallReply(['dash__show_plain', {}]), textReply('ok')]);
    await using runner = await createRunner({
      model: 'ollama:mistral-small',
      providerUrl: ollama.url,
      mcpServers: servers,
      env: {},
      homeDir: folder,
      apps: {},
    });
    const events: AppEvent[] = [];
    runner.apps?.listen((event) => events.push(event));
    await runner.run('plain');
    const refused = await nextEvent(events, (event) => event.type === 'refused');
    expect(summarize(refused)).toBe(
      'refused: app of dash__show_plain not shown: ui://dashboard/plain.html is text/html, not text/html;profile=mcp-app',
    );
  });

  it("-p --apps: prints the page in one line, answers the app's message as a new turn, ends when the page closes", async () => {
    ollama = await startFakeOllama([
      toolCallReply(['dash__host_shows_apps', {}], ['dash__show_dashboard', { board: 'ops' }]),
      textReply('Here is the dashboard.'),
      textReply('Start with the oldest ticket.'),
    ]);
    const home = await temporaryHome();
    try {
      await home.writeConfig({ mcpServers: servers });
      const cli = startCli(
        [
          '-m',
          'ollama:mistral-small',
          '--provider-url',
          ollama.url,
          '-p',
          'show me the ops board',
          '--apps',
          '--apps-timeout',
          '40',
        ],
        home.path,
        { timeoutMs: 50_000 },
      );
      cli.child.stdin.end();
      await expect
        .poll(() => /^mcphost: apps: (http:\/\/127\.0\.0\.1:\d+\/\S+\/)$/m.exec(cli.stderr()), {
          timeout: 20_000,
        })
        .not.toBeNull();
      const url = /^mcphost: apps: (http:\/\/127\.0\.0\.1:\d+\/\S+\/)$/m.exec(cli.stderr())?.[1] ?? '';
      browser = await launch();
      const tab = await browser.newPage();
      await tab.goto(url);
      await cli.waitForStdout((stdout) => stdout.includes('Start with the oldest ticket.'));
      await tab.close();
      const run = await cli.done;
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('Here is the dashboard.');
      expect(run.stderr).toContain('apps: app-1-');
      // The server saw the extension the host declared (on the request's envelope: 2026-07-28 era).
      expect(JSON.stringify(ollama.chatRequests[1]?.messages ?? [])).toContain(
        String.raw`ui extension: {\"mimeTypes\":[\"text/html;profile=mcp-app\"]}`,
      );
      expect(run.stderr).toMatch(/apps: app app-1-\w+: tools\/call "echo" refused/);
      expect(run.stderr).toMatch(/apps: app app-1-\w+: the frame's CSP blocked http:\/\/127\.0\.0\.1:9/);
      expect(run.stderr).toMatch(/apps: app-1-\w+ says: The dashboard now shows 5 open tickets/);
      expect(ollama.chatRequests.at(-1)?.messages.at(-1)?.content).toContain(
        'The user is looking at the ops board.',
      );
    } finally {
      await home.remove();
    }
  }, 60_000);

  it('without --apps no app is opened and no page is served', async () => {
    ollama = await startFakeOllama([
      toolCallReply(['dash__host_shows_apps', {}], ['dash__show_dashboard', { board: 'ops' }]),
      textReply('done'),
    ]);
    const home = await temporaryHome();
    try {
      await home.writeConfig({ mcpServers: servers });
      const cli = startCli(
        ['-m', 'ollama:mistral-small', '--provider-url', ollama.url, '-p', 'check'],
        home.path,
      );
      cli.child.stdin.end();
      const run = await cli.done;
      expect(run.code).toBe(0);
      // The server is told nothing of apps.
      expect(JSON.stringify(ollama.chatRequests[1]?.messages ?? [])).toContain('ui extension: null');
      expect(run.stderr).not.toContain('apps:');
    } finally {
      await home.remove();
    }
  });
});
