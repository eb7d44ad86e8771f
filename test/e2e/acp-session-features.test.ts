/**
 * `mcphost acp`, more of a session: the built-in to-do list as `plan` updates, the model as a
 * session config option, a server's elicitation asked of the editor (and declined where the editor
 * shows none), sampling declined with a reason, and a cancel that reaches a running tool's server
 * as MCP `notifications/cancelled`. The editor is the ACP SDK's client side; every stdout line is
 * checked against the schema.
 */
import { mkdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ClientCapabilities, McpServer } from '@agentclientprotocol/sdk';
import { textReply, toolCallReply } from '../fakes/ollama-server.js';
import { cliFixture } from '../support/cli-fixture.js';
import { npmServer, REPOSITORY } from '../support/cli.js';
import {
  EditorsOfTest,
  agentCalls,
  updatesOf,
  type EditorOptions,
  type ScriptedEditor,
} from '../support/acp-editor.js';

const editors = new EditorsOfTest();
const fixture = cliFixture({}, () => editors.closeAndCheck());

function editor(
  options: Partial<EditorOptions> & {
    readonly cwd: string;
    readonly capabilities?: ClientCapabilities;
    readonly extraArgs?: readonly string[];
  },
): Promise<ScriptedEditor> {
  return editors.start({
    home: fixture.home.path,
    args: [
      '-m',
      'ollama:mistral-small',
      '--provider-url',
      fixture.model.url,
      '--context-window',
      '131072',
      ...(options.extraArgs ?? []),
    ],
    ...options,
  });
}

function fixtureServer(name: string, file: string, env: Record<string, string> = {}): McpServer {
  return {
    name,
    command: process.execPath,
    args: [join(REPOSITORY, 'test/fixtures/servers', file)],
    env: Object.entries(env).map(([key, value]) => ({ name: key, value })),
  };
}

function toolText(started: ScriptedEditor): string {
  return JSON.stringify(
    updatesOf(started.updates, 'tool_call_update').flatMap((update) => update.content ?? []),
  );
}

describe('mcphost acp: plan, model, elicitation, sampling, cancel', () => {
  it('each write of the built-in to-do list is a plan update with every entry', async () => {
    const cwd = await fixture.temporaryFolder('acp-plan-');
    await fixture.startModel([
      toolCallReply([
        'todo__todo_write',
        {
          todos: [
            { content: 'read the code', status: 'in_progress' },
            { content: 'write the test', status: 'pending' },
          ],
        },
      ]),
      toolCallReply([
        'todo__todo_write',
        {
          todos: [
            { content: 'read the code', status: 'completed' },
            { content: 'write the test', status: 'in_progress' },
          ],
        },
      ]),
      textReply('planned'),
    ]);
    const started = await editor({ cwd, extraArgs: ['--builtin', 'todo'] });
    const { sessionId } = await started.agent.request('session/new', { cwd, mcpServers: [] });
    await started.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'plan' }] });
    expect(updatesOf(started.updates, 'plan')).toEqual([
      {
        sessionUpdate: 'plan',
        entries: [
          { content: 'read the code', priority: 'medium', status: 'in_progress' },
          { content: 'write the test', priority: 'medium', status: 'pending' },
        ],
      },
      {
        sessionUpdate: 'plan',
        entries: [
          { content: 'read the code', priority: 'medium', status: 'completed' },
          { content: 'write the test', priority: 'medium', status: 'in_progress' },
        ],
      },
    ]);
  });

  it('the model is a session config option: a select of known models; a change is used by the next prompt', async () => {
    const cwd = await fixture.temporaryFolder('acp-model-');
    await fixture.startModel([textReply('from mistral'), textReply('from qwen')]);
    const started = await editor({ cwd });
    const created = await started.agent.request('session/new', { cwd, mcpServers: [] });
    const { sessionId } = created;
    expect(created.configOptions).toHaveLength(1);
    const option = created.configOptions?.[0];
    expect(option).toMatchObject({ id: 'model', type: 'select', currentValue: 'ollama:mistral-small' });
    // The run's model, and what the Ollama server has installed.
    const values = option !== undefined && option.type === 'select' ? option.options : [];
    expect(values.map((value) => ('value' in value ? value.value : ''))).toEqual([
      'ollama:mistral-small',
      'ollama:qwen2.5:3b',
      'ollama:llama3.2',
    ]);
    await started.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'one' }] });
    const changed = await started.agent.request('session/set_config_option', {
      sessionId,
      configId: 'model',
      value: 'ollama:qwen2.5:3b',
    });
    expect(changed.configOptions[0]).toMatchObject({ id: 'model', currentValue: 'ollama:qwen2.5:3b' });
    await started.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'two' }] });
    expect(fixture.model.chatRequests.map((request) => request.model)).toEqual([
      'mistral-small',
      'qwen2.5:3b',
    ]);
    // The conversation went on with the new model: it read the first turn.
    expect(JSON.stringify(fixture.model.chatRequests[1]?.messages)).toContain('from mistral');
    await expect(
      started.agent.request('session/set_config_option', { sessionId, configId: 'speed', value: 'fast' }),
    ).rejects.toThrow(/unknown config option "speed"/);
    await expect(
      started.agent.request('session/set_config_option', { sessionId, configId: 'model', value: 'nonsense' }),
    ).rejects.toThrow(/"nonsense" is not provider:model/);
  });

  it("a server's elicitation is asked of the editor with elicitation/create, tied to the tool call", async () => {
    const cwd = await fixture.temporaryFolder('acp-elicit-');
    await fixture.startModel([toolCallReply(['offerings__defaults-form', {}]), textReply('thanks')]);
    const started = await editor({
      cwd,
      capabilities: { elicitation: { form: {} } },
      handlers: (app) => {
        app.onRequest('elicitation/create', () => ({
          action: 'accept',
          content: { name: 'Ada', age: 36, verified: false },
        }));
      },
    });
    const { sessionId } = await started.agent.request('session/new', {
      cwd,
      mcpServers: [fixtureServer('offerings', 'offerings.mjs')],
    });
    await started.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'ask me' }] });
    const call = updatesOf(started.updates, 'tool_call')[0];
    const asked = agentCalls(started, 'elicitation/create');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      sessionId,
      toolCallId: call?.toolCallId,
      mode: 'form',
      message: 'offerings: Settings',
      requestedSchema: { type: 'object', required: ['name'] },
    });
    expect(toolText(started)).toContain(
      String.raw`answer: {\"action\":\"accept\",\"content\":{\"name\":\"Ada\",\"age\":36,\"verified\":false}}`,
    );
  });

  it('a cancel while the editor shows an elicitation withdraws it and ends the turn with cancelled', async () => {
    const cwd = await fixture.temporaryFolder('acp-elicit-');
    await fixture.startModel([toolCallReply(['offerings__defaults-form', {}]), textReply('never')]);
    const started = await editor({
      cwd,
      capabilities: { elicitation: { form: {} } },
      handlers: (app) => {
        // The person never answers: only the cancel ends the wait.
        app.onRequest('elicitation/create', () => new Promise<never>(() => undefined));
      },
    });
    const { sessionId } = await started.agent.request('session/new', {
      cwd,
      mcpServers: [fixtureServer('offerings', 'offerings.mjs')],
    });
    const turn = started.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'ask' }],
    });
    await expect.poll(() => agentCalls(started, 'elicitation/create').length, { timeout: 10_000 }).toBe(1);
    const cancelledAt = Date.now();
    await started.agent.notify('session/cancel', { sessionId });
    expect((await turn).stopReason).toBe('cancelled');
    expect(Date.now() - cancelledAt).toBeLessThan(1000);
    expect(agentCalls(started, '$/cancel_request')).toHaveLength(1);
  });

  it('without the elicitation capability the editor is not asked: declined; sampling is declined with a reason', async () => {
    const cwd = await fixture.temporaryFolder('acp-elicit-');
    await fixture.startModel([
      toolCallReply(['offerings__defaults-form', {}]),
      toolCallReply(['sampler__sample', { prompt: 'hello' }]),
      textReply('ok'),
    ]);
    const started = await editor({ cwd });
    const { sessionId } = await started.agent.request('session/new', {
      cwd,
      mcpServers: [fixtureServer('offerings', 'offerings.mjs'), fixtureServer('sampler', 'sampler.mjs')],
    });
    await started.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go' }] });
    expect(agentCalls(started, 'elicitation/create')).toEqual([]);
    const text = toolText(started);
    expect(text).toContain(String.raw`answer: {\"action\":\"decline\"}`);
    expect(text).toMatch(/mcphost declined the sampling request: [^"\\]+/);
  });

  it("a cancel sends MCP notifications/cancelled to the running tool's server", async () => {
    const cwd = await fixture.temporaryFolder('acp-cancel-');
    const callLog = join(cwd, 'calls.log');
    await fixture.startModel([toolCallReply(['slow__sleep', { ms: 60_000 }]), textReply('never')]);
    const started = await editor({ cwd });
    const { sessionId } = await started.agent.request('session/new', {
      cwd,
      mcpServers: [fixtureServer('slow', 'slow-tool.mjs', { CALL_LOG: callLog })],
    });
    const turn = started.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'wait' }],
    });
    await expect
      .poll(() => readFile(callLog, 'utf8').catch(() => ''), { timeout: 10_000 })
      .toMatch(/^started \S+\n$/);
    await started.agent.notify('session/cancel', { sessionId });
    expect((await turn).stopReason).toBe('cancelled');
    const started_ = (await readFile(callLog, 'utf8')).split('\n')[0]?.replace('started ', '');
    await expect
      .poll(() => readFile(callLog, 'utf8'), { timeout: 5_000 })
      .toBe(`started ${started_}\ncancelled ${started_}\n`);
  });

  it("the chat's kept answers for the folder stand in for the editor's question; the editor's own 'always' is not kept", async () => {
    const files = await fixture.temporaryFolder('acp-kept-');
    const store = join(fixture.home.path, '.local/state/mcphost/permissions.json');
    await mkdir(join(fixture.home.path, '.local/state/mcphost'), { recursive: true });
    const kept = {
      version: 1,
      projects: {
        [await realpath(files)]: [
          { kind: 'tool', server: 'files', tool: 'write_file', keptAt: '2026-11-28T10:00:00.000Z' },
        ],
      },
    };
    await writeFile(store, JSON.stringify(kept));
    await fixture.startModel([
      toolCallReply(['files__write_file', { path: join(files, 'a.txt'), content: 'a' }]),
      toolCallReply(['files__create_directory', { path: join(files, 'sub') }]),
      toolCallReply(['files__create_directory', { path: join(files, 'sub2') }]),
      textReply('done'),
    ]);
    const started = await editor({
      cwd: files,
      permission: () => Promise.resolve({ outcome: { outcome: 'selected', optionId: 'allow-always' } }),
    });
    const { sessionId } = await started.agent.request('session/new', {
      cwd: files,
      mcpServers: [
        { name: 'files', command: process.execPath, args: [npmServer('filesystem'), files], env: [] },
      ],
    });
    await started.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go' }] });
    // The kept write is not asked; create_directory is asked once, then allowed for the session.
    expect(started.permissions.map((request) => request.toolCall.title)).toEqual([
      expect.stringContaining('files: create_directory'),
    ]);
    expect(await readFile(join(files, 'a.txt'), 'utf8')).toBe('a');
    // The editor's "always allow" stays with the session: the store is as it was.
    expect(JSON.parse(await readFile(store, 'utf8'))).toEqual(kept);
  });

  it("past the session's token budget a prompt ends with max_tokens and a notice naming the budget", async () => {
    const cwd = await fixture.temporaryFolder('acp-budget-');
    await fixture.home.writeConfig({ budgets: { maxTokens: 1 } });
    await fixture.startModel([textReply('the first answer'), textReply('never asked for')]);
    const started = await editor({ cwd });
    const { sessionId } = await started.agent.request('session/new', { cwd, mcpServers: [] });
    const first = await started.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'one' }],
    });
    expect(first.stopReason).toBe('end_turn');
    const second = await started.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'two' }],
    });
    expect(second.stopReason).toBe('max_tokens');
    expect(fixture.model.chatRequests).toHaveLength(1);
    expect(JSON.stringify(started.updates)).toMatch(/its budget is 1 \(budgets.maxTokens\)/);
  });
});
