/**
 * Editor sessions are mcphost's saved conversations: one started in the editor goes on with
 * `mcphost -r ID`, and one started with `mcphost -p` is listed and loaded by the editor.
 */
import { describe, expect, it } from 'vitest';
import { textReply } from '../fakes/ollama-server.js';
import { cliFixture } from '../support/cli-fixture.js';
import { runCli } from '../support/cli.js';
import { EditorsOfTest, answerText, type ScriptedEditor } from '../support/acp-editor.js';

const editors = new EditorsOfTest();
const fixture = cliFixture({}, () => editors.closeAndCheck());

const modelFlags = () => ['-m', 'ollama:mistral-small', '--provider-url', fixture.model.url];

function editor(cwd: string): Promise<ScriptedEditor> {
  return editors.start({ home: fixture.home.path, cwd, args: modelFlags() });
}

function userAndAnswers(): unknown[] | undefined {
  return fixture.model.chatRequests
    .at(-1)
    ?.messages.filter((message) => message.role !== 'system')
    .map((message) => message.content);
}

describe('mcphost acp sessions and the CLI', () => {
  it('a session started in the editor goes on with mcphost -r ID in the same folder', async () => {
    await fixture.startModel([textReply('noted'), textReply('mango')]);
    const cwd = await fixture.temporaryFolder('acp-cwd-');
    const started = await editor(cwd);
    const { sessionId } = await started.agent.request('session/new', { cwd, mcpServers: [] });
    await started.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'the word is mango' }],
    });
    const run = await runCli(['-r', sessionId, '-p', 'which word?', ...modelFlags()], fixture.home.path, {
      cwd,
    });
    expect(run.stderr).toContain(`continuing ${sessionId}`);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe('mango');
    expect(userAndAnswers()).toEqual(['the word is mango', 'noted', 'which word?']);
  });

  it('a conversation of mcphost -p is listed and loaded by the editor, and goes on there', async () => {
    await fixture.startModel([textReply('hello from the CLI'), textReply('hello from the editor')]);
    const cwd = await fixture.temporaryFolder('acp-cwd-');
    const run = await runCli(['-p', 'first from the CLI', ...modelFlags()], fixture.home.path, { cwd });
    expect(run.code).toBe(0);
    const started = await editor(cwd);
    const listed = await started.agent.request('session/list', { cwd });
    expect(listed.sessions).toHaveLength(1);
    const [saved] = listed.sessions;
    expect(saved?.title).toBe('first from the CLI');
    await started.agent.request('session/load', { sessionId: saved?.sessionId ?? '', cwd, mcpServers: [] });
    expect(answerText(started.updates)).toBe('hello from the CLI');
    await started.agent.request('session/prompt', {
      sessionId: saved?.sessionId ?? '',
      prompt: [{ type: 'text', text: 'and now?' }],
    });
    expect(userAndAnswers()).toEqual(['first from the CLI', 'hello from the CLI', 'and now?']);
  });

  it('an image, an embedded file and a resource link in a prompt reach the model as the chat attaches them', async () => {
    await fixture.startModel([textReply('seen')]);
    const cwd = await fixture.temporaryFolder('acp-cwd-');
    const started = await editor(cwd);
    const { sessionId } = await started.agent.request('session/new', { cwd, mcpServers: [] });
    // A 1×1 PNG.
    const png =
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
    await started.agent.request('session/prompt', {
      sessionId,
      prompt: [
        { type: 'text', text: 'look' },
        { type: 'image', mimeType: 'image/png', data: png },
        {
          type: 'resource',
          resource: { uri: `file://${cwd}/notes.md`, text: 'the plan is ready', mimeType: 'text/markdown' },
        },
        { type: 'resource_link', uri: `file://${cwd}/big.log`, name: 'big.log' },
      ],
    });
    const sent = fixture.model.chatRequests[0]?.messages.filter((message) => message.role === 'user') ?? [];
    const text = sent.map((message) => message.content).join('\n');
    expect(text).toContain('look');
    expect(text).toContain(`${cwd}/notes.md\n\`\`\`\nthe plan is ready\n\`\`\``);
    expect(text).toContain(`[big.log](file://${cwd}/big.log)`);
    expect(sent.flatMap((message) => message.images ?? [])).toEqual([png]);
  });
});
