/**
 * Named agents from the library: `createRunner({ agents })` offers the agent tool and reports each
 * child run (`onAgentRun`, `runner.agentRuns`, `agent-event`s); `createRunner({ agent })` runs as
 * one. On the Ollama fake with server-memory from npm.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  createRunner,
  runBatch,
  type AgentRun,
  type BatchResult,
  type RunnerEvent,
} from '../../src/index.js';
import { startFakeOllama, textReply, toolCallReply, type FakeOllama } from '../fakes/ollama-server.js';
import { npmServerConfig, temporaryHome, type TemporaryHome } from '../support/cli.js';

let ollama: FakeOllama | undefined;
let home: TemporaryHome | undefined;
afterEach(async () => {
  await ollama?.close();
  await home?.remove();
});

const AGENTS = {
  helper: { description: 'Reads the memory graph.', servers: ['memory'], systemPrompt: 'You help.' },
};

describe('agents in the library', () => {
  it('createRunner({ agents }) delegates and reports the child run with its transcript', async () => {
    home = await temporaryHome();
    ollama = await startFakeOllama([
      toolCallReply(['agent', { agent: 'helper', task: 'read it' }]),
      toolCallReply(['memory__read_graph', {}]),
      textReply('empty graph'),
      textReply('the helper says: empty graph'),
    ]);
    const runs: AgentRun[] = [];
    await using runner = await createRunner({
      model: 'ollama:mistral-small',
      providerUrl: ollama.url,
      mcpServers: { memory: npmServerConfig('memory') },
      agents: AGENTS,
      onAgentRun: (run) => runs.push(run),
      env: {},
      homeDir: home.path,
    });
    const events: RunnerEvent[] = [];
    const result = await runner.run('ask the helper', { onEvent: (event) => events.push(event) });
    expect(result.text).toBe('the helper says: empty graph');
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      agent: 'helper',
      model: 'ollama:mistral-small',
      outcome: 'completed',
      steps: 2,
    });
    expect(runs[0]?.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(runner.agentRuns.runs).toEqual(runs);
    const childCalls = events.flatMap((event) =>
      event.type === 'agent-event' && event.event.type === 'tool-call' ? [event.event.call.name] : [],
    );
    expect(childCalls).toEqual(['memory__read_graph']);
  }, 60_000);

  it('createRunner({ agent }) runs as the agent; a bad entry is one ConfigError line', async () => {
    home = await temporaryHome();
    ollama = await startFakeOllama([textReply('helper here')]);
    await using runner = await createRunner({
      model: 'ollama:mistral-small',
      providerUrl: ollama.url,
      mcpServers: { memory: npmServerConfig('memory') },
      agents: AGENTS,
      agent: 'helper',
      env: {},
      homeDir: home.path,
    });
    expect((await runner.run('hi')).text).toBe('helper here');
    const body = ollama.requests.find((request) => request.path === '/api/chat')?.body as {
      messages: Array<{ role: string; content: string }>;
      tools: Array<{ function: { name: string } }>;
    };
    expect(body.messages[0]?.role).toBe('system');
    expect(body.messages[0]?.content).toContain('You help.');
    expect(body.tools.every((tool) => tool.function.name.startsWith('memory__'))).toBe(true);

    await expect(
      createRunner({
        model: 'ollama:mistral-small',
        agents: { bad: { description: 'x', maxSteps: 0 } },
        env: {},
        homeDir: home.path,
      }),
    ).rejects.toThrow('agents option: bad.maxSteps: Too small: expected number to be >0');
  }, 60_000);

  it('runBatch runs a job with `agent` as that agent (its prompt and tools); an unknown one fails naming it', async () => {
    home = await temporaryHome();
    ollama = await startFakeOllama([textReply('helper here')]);
    const results: BatchResult[] = [];
    for await (const result of runBatch(
      [
        { id: 'helped', prompt: 'hi', agent: 'helper' },
        { id: 'lost', prompt: 'hi', agent: 'nobody' },
      ],
      {
        concurrency: 1,
        runner: {
          model: 'ollama:mistral-small',
          providerUrl: ollama.url,
          mcpServers: { memory: npmServerConfig('memory') },
          agents: AGENTS,
          env: {},
          homeDir: home.path,
        },
      },
    )) {
      results.push(result);
    }
    const byId = new Map(results.map((result) => [result.id, result]));
    expect(byId.get('helped')).toMatchObject({ status: 'ok', answer: 'helper here' });
    expect(byId.get('lost')).toMatchObject({
      status: 'failed',
      error: { message: 'line 2: "agent": no agent named "nobody" (agents: helper)' },
    });
    const chats = ollama.requests.filter((request) => request.path === '/api/chat');
    expect(chats).toHaveLength(1);
    const body = chats[0]?.body as {
      messages: Array<{ role: string; content: string }>;
      tools: Array<{ function: { name: string } }>;
    };
    expect(body.messages[0]?.content).toContain('You help.');
    expect(body.tools.length).toBeGreaterThan(3);
    expect(body.tools.every((tool) => tool.function.name.startsWith('memory__'))).toBe(true);
  }, 60_000);
});
