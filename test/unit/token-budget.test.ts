/**
 * The session's token budget (`budgets.maxTokens`) over a scripted provider: checked before each
 * model call, charged after; one counter for the session's runs and its agents' runs. (Each tool
 * step of the scripted model costs 27 tokens, each text answer 15.)
 */
import { describe, expect, it } from 'vitest';
import { AgentToolHost } from '../../src/agents/agent-tool.js';
import type { AgentRun, AgentRuntime } from '../../src/agents/child-run.js';
import { agentDefinition, agentEntrySchema } from '../../src/agents/definition.js';
import { TokenBudgetError } from '../../src/core/errors.js';
import { Runner } from '../../src/core/runner.js';
import { TokenBudget } from '../../src/core/token-budget.js';
import { FakeToolHost } from '../support/fake-tool-host.js';
import { ScriptedProvider, textReply, toolReply } from '../support/scripted-provider.js';

const TOOLS = { memory__read_graph: () => 'graph' };

describe('the session token budget', () => {
  it('refuses the next model call once spent; the steps done stay in the history', async () => {
    const provider = new ScriptedProvider([
      toolReply({ id: 'c1', name: 'memory__read_graph', input: {} }),
      toolReply({ id: 'c2', name: 'memory__read_graph', input: {} }),
      textReply('never asked for'),
    ]);
    const tokenBudget = new TokenBudget(40);
    const runner = new Runner({ provider, tools: new FakeToolHost(TOOLS), tokenBudget });

    const failure = await runner.run('go').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TokenBudgetError);
    expect(failure).toMatchObject({ limit: 40, used: 54 });
    expect((failure as Error).message).toBe(
      'stopped: this session used 54 model tokens, its budget is 40 (budgets.maxTokens); no further model call is made',
    );
    // 27 after the first call is under 40: the second went out; 54 is not: the third did not.
    expect(provider.requests).toHaveLength(2);
    expect(runner.history.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
    ]);
    // The session's next prompt is refused before any call.
    await expect(runner.run('again')).rejects.toBeInstanceOf(TokenBudgetError);
    expect(provider.requests).toHaveLength(2);
  });

  it("counts the agents' calls: a child is stopped mid-run, then the parent's next call is refused", async () => {
    const host = new FakeToolHost(TOOLS);
    const helper = agentDefinition('helper', agentEntrySchema.parse({ description: 'helps' }), {
      kind: 'options',
    });
    const provider = new ScriptedProvider([
      toolReply({ id: 'p1', name: 'agent', input: { agent: 'helper', task: 'help' } }),
      toolReply({ id: 'h1', name: 'memory__read_graph', input: {} }),
      textReply('never asked for'),
    ]);
    const tokenBudget = new TokenBudget(50);
    const runs: AgentRun[] = [];
    const runtime: AgentRuntime = {
      agents: new Map([['helper', helper]]),
      hostFor: () => host,
      serverOf: (name) => name.split('__')[0],
      modelFor: () => Promise.resolve({ provider, model: 'scripted:parent' }),
      childOptions: () => ({ tokenBudget }),
      maxParallel: 2,
      onRun: (run) => runs.push(run),
    };
    const runner = new Runner({
      provider,
      tokenBudget,
      tools: new AgentToolHost({ inner: host, runtime, level: { depth: 0, mayCall: 'all' } }),
    });

    const failure = await runner.run('go').catch((error: unknown) => error);
    // Parent 27, child 27: 54 is past 50, so the child's second call was refused…
    expect(provider.requests).toHaveLength(2);
    expect(runs).toMatchObject([{ agent: 'helper', outcome: 'failed', steps: 1 }]);
    expect(runs[0]?.error).toContain('this session used 54 model tokens, its budget is 50');
    // …the parent read that as the agent's error, and its own next call was refused too.
    const toolMessage = runner.history.find((message) => message.role === 'tool');
    expect(toolMessage?.content[0]).toMatchObject({ toolCallId: 'p1', isError: true });
    expect(failure).toBeInstanceOf(TokenBudgetError);
    expect(tokenBudget.used).toBe(54);
  });

  it('takes only a positive whole number', () => {
    expect(() => new TokenBudget(0)).toThrow('budgets.maxTokens must be a positive integer, got 0');
    expect(() => new TokenBudget(1.5)).toThrow('got 1.5');
  });
});
