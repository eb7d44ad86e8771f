/**
 * MCP Apps in an editor session (`mcphost acp --apps`, issue 39): the built CLI driven by the ACP
 * SDK's client side as the editor, the fixture app server, a fake Ollama, and Debian's chromium
 * opening the link the editor was given. When the model's call opens the app, the session gets a
 * `resource_link` to the local page; the app, opened there, calls its app-only tool, which is asked
 * about through `session/request_permission` like the model's call; its `ui/message` is answered
 * as not delivered (ACP has no agent-started turns). Without `--apps`, no link and no page.
 */
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { textReply, toolCallReply } from '../fakes/ollama-server.js';
import { EditorsOfTest, updatesOf, type ScriptedEditor } from '../support/acp-editor.js';
import { cliFixture } from '../support/cli-fixture.js';
import { hasChromium, launchChromium } from '../support/chromium.js';

const fixtures = join(import.meta.dirname, '..', 'fixtures', 'servers');
const editors = new EditorsOfTest();
let browser: Browser | undefined;
const fixture = cliFixture(
  {
    config: {
      mcpServers: {
        dash: { command: process.execPath, args: [join(fixtures, 'app-server.mjs')] },
        other: { command: process.execPath, args: [join(fixtures, 'modern-server.mjs')] },
      },
    },
  },
  () => editors.closeAndCheck(),
);
afterEach(async () => {
  await browser?.close();
  browser = undefined;
});

async function editorSession(
  extraArgs: readonly string[],
): Promise<{ editor: ScriptedEditor; sessionId: string }> {
  const cwd = await fixture.temporaryFolder('acp-apps-');
  const editor = await editors.start({
    home: fixture.home.path,
    cwd,
    args: ['-m', 'ollama:mistral-small', '--provider-url', fixture.model.url, ...extraArgs],
  });
  const { sessionId } = await editor.agent.request('session/new', { cwd, mcpServers: [] });
  return { editor, sessionId };
}

function appLinks(editor: ScriptedEditor): string[] {
  return updatesOf(editor.updates, 'agent_message_chunk').flatMap((update) =>
    update.content.type === 'resource_link' ? [update.content.uri] : [],
  );
}

describe.skipIf(!hasChromium)('MCP Apps in an ACP session', () => {
  it('gives the editor a resource_link to the page; the app runs there, its call asked through the editor', async () => {
    await fixture.startModel([
      toolCallReply(['dash__show_dashboard', { board: 'ops' }]),
      textReply('Shown.'),
    ]);
    const { editor, sessionId } = await editorSession(['--apps']);
    const answer = await editor.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'show the ops board' }],
    });
    expect(answer.stopReason).toBe('end_turn');
    await expect.poll(() => appLinks(editor), { timeout: 10_000 }).toHaveLength(1);
    const link = appLinks(editor)[0] ?? '';
    expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[\w-]{32}\/#app-1-\w+$/);
    const update = updatesOf(editor.updates, 'agent_message_chunk').find(
      (chunk) => chunk.content.type === 'resource_link',
    );
    expect(update?.content).toMatchObject({ name: 'dash__show_dashboard (MCP App)', mimeType: 'text/html' });

    browser = await launchChromium();
    const tab = await browser.newPage();
    await tab.goto(link);
    const log = tab.frameLocator('iframe').locator('#log');
    await expect.poll(() => log.textContent(), { timeout: 20_000 }).toContain('message: ');
    const shown = (await log.textContent()) ?? '';
    expect(shown).toContain('tool result: board ops: 3 open tickets');
    expect(shown).toContain('refresh_counts: board ops: 5 open tickets');
    expect(shown).toContain('echo (another server): refused');
    // No turn can start from the agent's side in ACP: the message is not delivered.
    expect(shown).toContain('message: refused');
    // The model's call, then the app's: both asked through the editor, the app's saying it is the app's.
    const titles = editor.permissions.map((question) => question.toolCall.title);
    expect(titles).toEqual([
      expect.stringContaining('show_dashboard'),
      expect.stringContaining('refresh_counts'),
    ]);
    expect(titles[0]).not.toContain('MCP App');
    expect(titles[1]).toMatch(/refresh_counts.* — asked by the MCP App app-1-\w+, not the model — /);
    expect(editor.stderr()).toMatch(/apps: app app-1-\w+: tools\/call "echo" refused/);
  }, 60_000);

  it('without --apps: no link is sent', async () => {
    await fixture.startModel([
      toolCallReply(['dash__show_dashboard', { board: 'ops' }]),
      textReply('Shown.'),
    ]);
    const { editor, sessionId } = await editorSession([]);
    await editor.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'show' }] });
    expect(appLinks(editor)).toEqual([]);
  });
});
