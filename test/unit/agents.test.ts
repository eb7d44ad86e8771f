/**
 * The agent tool over a scripted provider and a fake tool host: a child's fresh history and tools,
 * its events wrapped for the parent, the parallel bound, the depth limit, aborts, structured
 * answers, failures as error results; and the definitions (config entries, Markdown files).
 */
import { describe, expect, it } from 'vitest';
import { AgentToolHost } from '../../src/agents/agent-tool.js';
import { parseAgentFile } from '../../src/agents/agent-files.js';
import type { AgentRun, AgentRuntime } from '../../src/agents/child-run.js';
import { agentDefinition, agentEntrySchema, type AgentDefinition } from '../../src/agents/definition.js';
import type { RunnerEvent } from '../../src/core/events.js';
import { Runner } from '../../src/core/runner.js';
import type { Provider, ToolHost } from '../../src/core/types.js';
import { FakeToolHost } from '../support/fake-tool-host.js';
import { ScriptedProvider, textReply, toolReply, type ScriptedReply } from '../support/scripted-provider.js';

function agent(name: string, entry: Record<string, unknown>): AgentDefinition {
  return agentDefinition(name, agentEntrySchema.parse({ description: `${name} agent`, ...entry }), {
    kind: 'options',
  });
}

function runtimeOf(
  agents: readonly AgentDefinition[],
  host: ToolHost,
  providers: Record<string, Provider>,
  extra: Partial<AgentRuntime> = {},
): AgentRuntime & { runs: AgentRun[]; hostsFor: string[] } {
  const runs: AgentRun[] = [];
  const hostsFor: string[] = [];
  return {
    runs,
    hostsFor,
    agents: new Map(agents.map((definition) => [definition.name, definition])),
    hostFor: (name) => {
      hostsFor.push(name);
      return host;
    },
    serverOf: (name) => name.split('__')[0],
    modelFor: async (model) => {
      const key = model ?? 'parent';
      const provider = providers[key];
      if (provider === undefined) throw new Error(`no provider ${key}`);
      return { provider, model: model ?? 'scripted:parent' };
    },
    childOptions: (definition) =>
      definition.systemPrompt === undefined ? {} : { systemPrompt: definition.systemPrompt },
    maxParallel: 4,
    onRun: (run) => runs.push(run),
    ...extra,
  };
}

const TOOLS = {
  memory__read_graph: () => 'graph',
  filesystem__write_file: () => 'written',
};

describe('the agent tool', () => {
  it("runs a child with a fresh history, the agent's model and only its tools; its events are wrapped", async () => {
    const child = new ScriptedProvider(
      [toolReply({ id: 'c1', name: 'memory__read_graph', input: {} }), textReply('child answer')],
      { name: 'other', model: 'small' },
    );
    const host = new FakeToolHost(TOOLS);
    const researcher = agent('researcher', {
      model: 'other:small',
      servers: ['memory'],
      systemPrompt: 'Research.',
    });
    const runtime = runtimeOf([researcher], host, { 'other:small': child });
    const parent = new ScriptedProvider([
      toolReply({ id: 'p1', name: 'agent', input: { agent: 'researcher', task: 'look it up' } }),
      textReply('parent answer'),
    ]);
    const runner = new Runner({
      provider: parent,
      tools: new AgentToolHost({ inner: host, runtime, level: { depth: 0, mayCall: 'all' } }),
    });
    const events: RunnerEvent[] = [];
    const result = await runner.run('PARENT SECRET', { onEvent: (event) => events.push(event) });

    expect(result.text).toBe('parent answer');
    expect(parent.requests[0]?.tools.map((tool) => tool.name).sort()).toEqual([
      'agent',
      'filesystem__write_file',
      'memory__read_graph',
    ]);
    // The child: only memory's tools, no agent tool (depth 1 without `agents`), only its task.
    expect(child.requests[0]?.tools.map((tool) => tool.name)).toEqual(['memory__read_graph']);
    expect(child.requests[0]?.system).toBe('Research.');
    expect(child.requests[0]?.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'look it up' }] },
    ]);
    expect(JSON.stringify(child.requests)).not.toContain('PARENT SECRET');
    // The child's calls went to the guard's view for its name.
    expect(runtime.hostsFor).toEqual(['researcher']);
    expect(host.calls.map((call) => call.name)).toEqual(['memory__read_graph']);
    // Its answer is the tool result.
    const toolMessage = result.messages.find((message) => message.role === 'tool');
    expect(toolMessage?.content[0]).toMatchObject({
      toolCallId: 'p1',
      isError: false,
      content: [{ text: 'child answer' }],
    });
    // Its events reached the parent's listener, tagged with the agent, the model and the call id.
    const wrapped = events.filter((event) => event.type === 'agent-event');
    expect(wrapped.map((event) => event.event.type)).toContain('tool-call');
    expect(
      wrapped.every(
        (event) => event.agent === 'researcher' && event.toolCallId === 'p1' && event.model === 'other:small',
      ),
    ).toBe(true);
    expect(wrapped.at(-1)?.event.type).toBe('done');
    // The run is recorded with its transcript and usage.
    expect(runtime.runs).toHaveLength(1);
    expect(runtime.runs[0]).toMatchObject({
      agent: 'researcher',
      outcome: 'completed',
      steps: 2,
      usage: { inputTokens: 30, outputTokens: 12 },
    });
    expect(runtime.runs[0]?.messages).toHaveLength(4);
  });

  it('a tool the agent may not use is refused even if called', async () => {
    const child = new ScriptedProvider([
      toolReply({ id: 'c1', name: 'filesystem__write_file', input: {} }),
      textReply('ok'),
    ]);
    const host = new FakeToolHost(TOOLS);
    const runtime = runtimeOf([agent('reader', { tools: ['memory__*'] })], host, { parent: child });
    const parent = new ScriptedProvider([
      toolReply({ id: 'p1', name: 'agent', input: { agent: 'reader', task: 'write' } }),
      textReply('done'),
    ]);
    await new Runner({
      provider: parent,
      tools: new AgentToolHost({ inner: host, runtime, level: { depth: 0, mayCall: 'all' } }),
    }).run('go');
    expect(host.calls).toEqual([]);
    const childResult = child.requests[1]?.messages.find((message) => message.role === 'tool');
    expect(JSON.stringify(childResult)).toContain('Unknown tool');
  });

  it('maxParallel bounds the agent calls of one step', async () => {
    let running = 0;
    let most = 0;
    const slowReply: ScriptedReply = () => [
      { type: 'text-delta', text: 'x' },
      { type: 'finish', reason: 'stop' },
    ];
    const host = new FakeToolHost({
      memory__slow: async () => {
        running += 1;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 20));
        running -= 1;
        return 'slow';
      },
    });
    const replies: ScriptedReply[] = [];
    for (let index = 0; index < 3; index++) {
      replies.push(toolReply({ id: `s${index}`, name: 'memory__slow', input: {} }), slowReply);
    }
    // One provider for the three children: each takes a tool call then an answer, in turn.
    const child = new ScriptedProvider(replies);
    const runtime = runtimeOf([agent('worker', {})], host, { parent: child }, { maxParallel: 1 });
    const parent = new ScriptedProvider([
      toolReply(
        { id: 'a', name: 'agent', input: { agent: 'worker', task: 'one' } },
        { id: 'b', name: 'agent', input: { agent: 'worker', task: 'two' } },
        { id: 'c', name: 'agent', input: { agent: 'worker', task: 'three' } },
      ),
      textReply('all done'),
    ]);
    const result = await new Runner({
      provider: parent,
      tools: new AgentToolHost({ inner: host, runtime, level: { depth: 0, mayCall: 'all' } }),
    }).run('go');
    expect(result.text).toBe('all done');
    expect(runtime.runs.map((run) => run.outcome)).toEqual(['completed', 'completed', 'completed']);
    expect(most).toBe(1);
  });

  it('a child calls agents only when its entry allows it', async () => {
    const host = new FakeToolHost(TOOLS);
    const lead = agent('lead', { agents: ['helper'] });
    const helper = agent('helper', {});
    const seen: string[][] = [];
    const provider = new ScriptedProvider([
      (request) => {
        seen.push(request.tools.map((tool) => tool.name));
        return toolReply({ id: 'p1', name: 'agent', input: { agent: 'lead', task: 'lead it' } });
      },
      (request) => {
        seen.push(request.tools.map((tool) => tool.name));
        return toolReply({ id: 'l1', name: 'agent', input: { agent: 'helper', task: 'help' } });
      },
      (request) => {
        seen.push(request.tools.map((tool) => tool.name));
        return textReply('helped');
      },
      textReply('lead done'),
      textReply('parent done'),
    ]);
    const runtime = runtimeOf([lead, helper], host, { parent: provider });
    const events: RunnerEvent[] = [];
    const result = await new Runner({
      provider,
      tools: new AgentToolHost({ inner: host, runtime, level: { depth: 0, mayCall: 'all' } }),
    }).run('go', { onEvent: (event) => events.push(event) });
    expect(result.text).toBe('parent done');
    expect(seen[0]).toContain('agent');
    expect(seen[1]).toContain('agent'); // lead may call helper
    expect(seen[2]).not.toContain('agent'); // helper may call no one
    // The grandchild's events come wrapped twice.
    const nested = events.find((event) => event.type === 'agent-event' && event.event.type === 'agent-event');
    expect(nested).toMatchObject({
      agent: 'lead',
      toolCallId: 'p1',
      event: { agent: 'helper', toolCallId: 'l1' },
    });
  });

  it("an agent's maxTokens counts the tokens of the agents it calls; past it, the agent is stopped", async () => {
    const host = new FakeToolHost(TOOLS);
    // Each tool step of the scripted model costs 27 tokens, each text answer 15: on its own the
    // lead (a call, then its answer) would use 42, under its 50; with the helper's 27 it is past.
    const lead = agent('lead', { agents: ['helper'], budgets: { maxTokens: 50 } });
    const helper = agent('helper', {});
    const provider = new ScriptedProvider([
      toolReply({ id: 'p1', name: 'agent', input: { agent: 'lead', task: 'lead it' } }),
      toolReply({ id: 'l1', name: 'agent', input: { agent: 'helper', task: 'help' } }),
      toolReply({ id: 'h1', name: 'memory__read_graph', input: {} }),
      textReply('parent done'),
    ]);
    const runtime = runtimeOf([lead, helper], host, { parent: provider });
    const result = await new Runner({
      provider,
      tools: new AgentToolHost({ inner: host, runtime, level: { depth: 0, mayCall: 'all' } }),
    }).run('go');
    expect(result.text).toBe('parent done');
    expect(result.toolCalls[0]?.result).toMatchObject({
      isError: true,
      content: [
        { text: 'The agent "lead" was stopped: it used more than its 50 tokens (budgets.maxTokens).' },
      ],
    });
    const outcomes = Object.fromEntries(runtime.runs.map((run) => [run.agent, run]));
    expect(outcomes.lead?.outcome).toBe('failed');
    expect(outcomes.helper?.outcome).toBe('cancelled');
    // Its own usage is its own model calls only.
    expect(outcomes.lead?.usage).toEqual({ inputTokens: 20, outputTokens: 7 });
  });

  it("a child's failure and a structured answer come back as tool results", async () => {
    const host = new FakeToolHost(TOOLS);
    const broken = agent('broken', { model: 'gone:model' });
    const typed = agent('typed', {
      outputSchema: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] },
    });
    const child = new ScriptedProvider([textReply('{"count": 3}')]);
    const runtime = runtimeOf([broken, typed], host, { parent: child });
    const parent = new ScriptedProvider([
      toolReply(
        { id: 'x', name: 'agent', input: { agent: 'broken', task: 't' } },
        { id: 'y', name: 'agent', input: { agent: 'typed', task: 't' } },
        { id: 'z', name: 'agent', input: { agent: 'nobody', task: 't' } },
      ),
      textReply('carried on'),
    ]);
    const result = await new Runner({
      provider: parent,
      tools: new AgentToolHost({ inner: host, runtime, level: { depth: 0, mayCall: 'all' } }),
    }).run('go');
    expect(result.text).toBe('carried on');
    const [x, y, z] = result.toolCalls.map((record) => record.result);
    expect(x).toMatchObject({
      isError: true,
      content: [{ text: 'The agent "broken" failed: no provider gone:model' }],
    });
    expect(y).toMatchObject({ isError: false, content: [{ text: '{"count":3}' }] });
    expect(z?.isError).toBe(true);
    const refusal = z?.content[0];
    expect(refusal?.type === 'text' ? refusal.text : '').toContain('There is no agent "nobody"');
  });

  it("the parent's abort reaches a running child", async () => {
    const controller = new AbortController();
    const host = new FakeToolHost({
      memory__wait: (_input, signal) =>
        new Promise<string>((resolve) => {
          controller.abort();
          signal?.addEventListener('abort', () => resolve('stopped'));
        }),
    });
    const child = new ScriptedProvider([
      toolReply({ id: 'c', name: 'memory__wait', input: {} }),
      textReply('never'),
    ]);
    const runtime = runtimeOf([agent('waiter', {})], host, { parent: child });
    const parent = new ScriptedProvider([
      toolReply({ id: 'p', name: 'agent', input: { agent: 'waiter', task: 't' } }),
    ]);
    await expect(
      new Runner({
        provider: parent,
        tools: new AgentToolHost({ inner: host, runtime, level: { depth: 0, mayCall: 'all' } }),
      }).run('go', { signal: controller.signal }),
    ).rejects.toThrow(/cancel|abort/i);
    expect(runtime.runs[0]?.outcome).toBe('cancelled');
    expect(child.requests).toHaveLength(1);
  });
});

describe('agent definitions', () => {
  it('reads a Claude Code style file: name, description, comma-separated tools, the body as prompt', async () => {
    const parsed = await parseAgentFile(
      '---\nname: reviewer\ndescription: Reviews.\ntools: a__b, c__*\nmodel: inherit\ncolor: red\n---\nBe strict.\n',
      '/x/reviewer.md',
      'user',
    );
    expect(parsed).toEqual({
      kind: 'agent',
      agent: {
        name: 'reviewer',
        description: 'Reviews.',
        tools: ['a__b', 'c__*'],
        systemPrompt: 'Be strict.',
        mayCall: 'none',
        source: { kind: 'file', path: '/x/reviewer.md', scope: 'user' },
      },
    });
  });

  it('a bad file is one line naming the file and the key', async () => {
    expect(await parseAgentFile('---\ndescription: d\nmodel: sonnet\n---\n', '/x/a.md', 'user')).toEqual({
      kind: 'invalid',
      problem: '/x/a.md: model: expected "provider:model" (e.g. "anthropic:claude-sonnet-4-5") or "inherit"',
    });
    expect(await parseAgentFile('---\ndescription: d\nwhatever: 1\n---\n', '/x/b.md', 'user')).toEqual({
      kind: 'invalid',
      problem: '/x/b.md: unknown key "whatever"',
    });
    expect(await parseAgentFile('no front matter', '/x/c.md', 'user')).toMatchObject({ kind: 'invalid' });
  });
});
