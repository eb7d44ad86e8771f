/**
 * Named agents end to end (issue 38), the built CLI as a user runs it: a throw-away HOME whose
 * `~/.mcp.json` has real servers from npm (server-memory, server-filesystem) and an `agents` entry;
 * the parent on the Anthropic fake, the child on the OpenAI fake (the real vendor SDKs on both
 * sides). What each fake received shows what each model was offered and told.
 */
import { mkdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, textAnswer, type RecordedAnthropicRequest } from '../fakes/anthropic-server.js';
import { startFakeOpenAI, type FakeOpenAIReply, type RecordedOpenAIRequest } from '../fakes/openai-server.js';
import { npmServerConfig, runCli, startCli, temporaryHome, type TemporaryHome } from '../support/cli.js';

let home: TemporaryHome;
let notes: string;
let auditLog: string;

const RESEARCHER = {
  description: 'Looks things up in the memory graph.',
  model: 'openai:gpt-4o-mini',
  servers: ['memory'],
  systemPrompt: 'You are the researcher. Answer briefly.',
};

async function writeConfig(extra: Record<string, unknown> = {}): Promise<void> {
  await home.writeConfig({
    mcpServers: {
      memory: npmServerConfig('memory'),
      filesystem: npmServerConfig('filesystem', notes),
    },
    auditLog,
    agents: { researcher: RESEARCHER },
    ...extra,
  });
}

beforeAll(async () => {
  home = await temporaryHome();
  const homePath = await realpath(home.path);
  notes = join(homePath, 'notes');
  await mkdir(notes);
  auditLog = join(homePath, 'audit.jsonl');
});
afterAll(async () => {
  await home.remove();
});

function env(anthropicUrl: string, openaiUrl: string): Record<string, string> {
  return {
    ANTHROPIC_API_KEY: 'sk-ant-test',
    ANTHROPIC_BASE_URL: anthropicUrl,
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: openaiUrl,
  };
}

function delegate(id: string, task: string) {
  return { type: 'tool_use' as const, id, name: 'agent', input: { agent: 'researcher', task } };
}

function openaiToolNames(request: RecordedOpenAIRequest): string[] {
  const tools = (request.body.tools ?? []) as Array<{ function: { name: string } }>;
  return tools.map((tool) => tool.function.name).sort();
}

function anthropicToolResults(request: RecordedAnthropicRequest): Array<Record<string, unknown>> {
  const body = request.body as { messages: Array<{ role: string; content: unknown }> };
  const last = body.messages.at(-1);
  return Array.isArray(last?.content)
    ? (last.content as Array<Record<string, unknown>>).filter((block) => block.type === 'tool_result')
    : [];
}

function resultText(block: Record<string, unknown>): string {
  return JSON.stringify(block.content);
}

function taskOf(request: RecordedOpenAIRequest): string {
  const messages = request.body.messages as Array<{ role: string; content: unknown }>;
  return JSON.stringify(messages.find((message) => message.role === 'user')?.content);
}

const readGraph: FakeOpenAIReply = {
  type: 'tool-calls',
  calls: [{ id: 'call_graph', name: 'memory__read_graph', arguments: '{}' }],
  usage: { prompt_tokens: 11, completion_tokens: 3 },
};

describe('mcphost with named agents', () => {
  it('a parent on Anthropic hands a task to a child on OpenAI: only its tools, none of the history', async () => {
    await writeConfig();
    const anthropic = await startFakeAnthropic([
      { type: 'answer', content: [delegate('toolu_1', 'What is in the graph?')] },
      textAnswer('The researcher says the graph is empty.'),
    ]);
    const openai = await startFakeOpenAI([
      readGraph,
      { type: 'text', text: 'The graph is empty.', usage: { prompt_tokens: 20, completion_tokens: 5 } },
    ]);
    try {
      const run = await runCli(
        [
          '-m',
          'anthropic:claude-sonnet-4-5',
          '-p',
          'SECRET-PARENT-PROMPT: ask the researcher',
          '--output-format',
          'json',
        ],
        home.path,
        { env: env(anthropic.url, openai.url), timeoutMs: 60_000 },
      );
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const result = JSON.parse(run.stdout) as Record<string, unknown>;
      expect(result.text).toBe('The researcher says the graph is empty.');
      // Each child's usage, as the OpenAI fake reported it.
      expect(result.agents).toEqual([
        expect.objectContaining({
          agent: 'researcher',
          model: 'openai:gpt-4o-mini',
          toolCallId: 'toolu_1',
          depth: 1,
          steps: 2,
          toolCalls: 1,
          completed: true,
          usage: { inputTokens: 31, outputTokens: 8 },
        }),
      ]);
      // The parent was offered the agent tool beside every server's tools.
      const parentTools = (anthropic.requests[0]?.body as { tools: Array<{ name: string }> }).tools.map(
        (tool) => tool.name,
      );
      expect(parentTools).toContain('agent');
      expect(parentTools).toContain('filesystem__read_text_file');
      // The child: only the memory server's tools, no agent tool, and only its task.
      expect(openai.requests).toHaveLength(2);
      const first = openai.requests[0]!;
      const offered = openaiToolNames(first);
      expect(offered.length).toBeGreaterThan(3);
      expect(offered.every((name) => name.startsWith('memory__'))).toBe(true);
      expect(JSON.stringify(first.body.messages)).not.toContain('SECRET-PARENT-PROMPT');
      expect(JSON.stringify(first.body.messages)).toContain('You are the researcher.');
      expect(taskOf(first)).toContain('What is in the graph?');
      // The child's answer is the parent's tool result.
      const [toolResult] = anthropicToolResults(anthropic.requests[1]!);
      expect(toolResult?.tool_use_id).toBe('toolu_1');
      expect(toolResult?.is_error).not.toBe(true);
      expect(resultText(toolResult!)).toContain('The graph is empty.');
      // The child's call went through the guard and its audit line names the agent.
      const lines = (await readFile(auditLog, 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      const childLine = lines.find((line) => line.exposedName === 'memory__read_graph');
      expect(childLine).toMatchObject({ agent: 'researcher', decision: 'allowed', outcome: 'ok' });
    } finally {
      await Promise.all([anthropic.close(), openai.close()]);
    }
  }, 90_000);

  it('two agent calls of one step run at the same time', async () => {
    await writeConfig();
    const anthropic = await startFakeAnthropic([
      { type: 'answer', content: [delegate('toolu_a', 'Task A'), delegate('toolu_b', 'Task B')] },
      textAnswer('Both done.'),
    ]);
    // Each child: a tool call, then its answer. Run one after the other, A's second request would
    // come before B's first; run together, both first requests come before either second one.
    const seen: string[] = [];
    const openai = await startFakeOpenAI((request) => {
      const task = taskOf(request).includes('Task A') ? 'A' : 'B';
      const second = (request.body.messages as unknown[]).length > 2;
      seen.push(`${task}${second ? 2 : 1}`);
      return second ? { type: 'text', text: `Answer ${task}` } : readGraph;
    });
    try {
      const run = await runCli(['-m', 'anthropic:claude-sonnet-4-5', '-p', 'two tasks'], home.path, {
        env: env(anthropic.url, openai.url),
        timeoutMs: 60_000,
      });
      expect(run.code).toBe(0);
      expect(run.stdout.trim()).toBe('Both done.');
      expect(seen).toHaveLength(4);
      expect(seen.slice(0, 2).sort()).toEqual(['A1', 'B1']);
      expect(seen.slice(2).sort()).toEqual(['A2', 'B2']);
      const results = anthropicToolResults(anthropic.requests[1]!);
      expect(results.map(resultText).join(' ')).toContain('Answer A');
      expect(results.map(resultText).join(' ')).toContain('Answer B');
    } finally {
      await Promise.all([anthropic.close(), openai.close()]);
    }
  }, 90_000);

  it("a child's failure is a tool error the parent reads, and the parent goes on", async () => {
    await writeConfig();
    const anthropic = await startFakeAnthropic([
      { type: 'answer', content: [delegate('toolu_1', 'Look it up')] },
      textAnswer('The researcher failed; I carry on.'),
    ]);
    const openai = await startFakeOpenAI([
      { type: 'error', status: 400, message: 'model not found', errorType: 'invalid_request_error' },
    ]);
    try {
      const run = await runCli(['-m', 'anthropic:claude-sonnet-4-5', '-p', 'go'], home.path, {
        env: env(anthropic.url, openai.url),
        timeoutMs: 60_000,
      });
      expect(run.code).toBe(0);
      expect(run.stdout.trim()).toBe('The researcher failed; I carry on.');
      const [toolResult] = anthropicToolResults(anthropic.requests[1]!);
      expect(toolResult?.is_error).toBe(true);
      expect(resultText(toolResult!)).toContain('The agent \\"researcher\\" failed');
      expect(resultText(toolResult!)).toContain('model not found');
    } finally {
      await Promise.all([anthropic.close(), openai.close()]);
    }
  }, 90_000);

  it("the session's budget counts the child's calls", async () => {
    await writeConfig({ budgets: { session: { maxCalls: 1 } } });
    const anthropic = await startFakeAnthropic([
      // The parent's own call uses the one call the session allows…
      {
        type: 'answer',
        content: [{ type: 'tool_use', id: 'toolu_0', name: 'memory__read_graph', input: {} }],
      },
      { type: 'answer', content: [delegate('toolu_1', 'Read the graph')] },
      textAnswer('done'),
    ]);
    // …so the child's is refused.
    const openai = await startFakeOpenAI([readGraph, { type: 'text', text: 'I could not read it.' }]);
    try {
      const run = await runCli(['-m', 'anthropic:claude-sonnet-4-5', '-p', 'go'], home.path, {
        env: env(anthropic.url, openai.url),
        timeoutMs: 60_000,
      });
      expect(run.code).toBe(0);
      const toolMessage = (
        openai.requests[1]?.body.messages as Array<{ role: string; content: unknown }>
      ).find((message) => message.role === 'tool');
      expect(JSON.stringify(toolMessage?.content)).toContain('maxCalls');
      expect(JSON.stringify(toolMessage?.content)).toContain('the session budget');
    } finally {
      await Promise.all([anthropic.close(), openai.close()]);
    }
  }, 90_000);

  it('-p --agent NAME runs as the agent: its model, its prompt, its tools', async () => {
    await writeConfig();
    const openai = await startFakeOpenAI([{ type: 'text', text: 'Researcher here.' }]);
    try {
      const run = await runCli(['--agent', 'researcher', '-p', 'hello'], home.path, {
        env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: openai.url },
        timeoutMs: 60_000,
      });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout.trim()).toBe('Researcher here.');
      const [request] = openai.requests;
      expect(request?.body.model).toBe('gpt-4o-mini');
      expect(openaiToolNames(request!).every((name) => name.startsWith('memory__'))).toBe(true);
      expect(JSON.stringify(request?.body.messages)).toContain('You are the researcher.');
    } finally {
      await openai.close();
    }
  }, 90_000);

  it('--agent with an unknown name is one line naming the flag', async () => {
    await writeConfig();
    const run = await runCli(['--agent', 'nobody', '-p', 'hello'], home.path, { timeoutMs: 30_000 });
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe('mcphost: --agent: no agent named "nobody" (agents: researcher)');
  }, 60_000);
});

describe('agents as Markdown files, and mcphost agents list', () => {
  it('lists the config’s and the files’ agents with where each is defined; a bad file is one line', async () => {
    await writeConfig();
    const folder = join(home.path, '.config', 'mcphost', 'agents');
    await mkdir(folder, { recursive: true });
    const reviewer = join(folder, 'reviewer.md');
    await writeFile(
      reviewer,
      '---\nname: reviewer\ndescription: Reviews notes; read-only.\nmodel: openai:gpt-4o\ntools: filesystem__read_*, filesystem__list_directory\ncolor: blue\n---\nYou review notes.\n',
    );
    let run = await runCli(['agents', 'list'], home.path, { timeoutMs: 30_000 });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('researcher: Looks things up in the memory graph.');
    expect(run.stdout).toContain(`defined in: ${join(home.path, '.mcp.json')}: agents`);
    expect(run.stdout).toContain('reviewer: Reviews notes; read-only.');
    expect(run.stdout).toContain(`defined in: ${reviewer}`);
    expect(run.stdout).toContain('may use:    tools filesystem__read_*, filesystem__list_directory');

    const bad = join(folder, 'broken.md');
    await writeFile(bad, '---\ndescription: x\nmaxSteps: many\n---\n');
    run = await runCli(['agents', 'list'], home.path, { timeoutMs: 30_000 });
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(
      `mcphost: ${bad}: maxSteps: Invalid input: expected number, received string`,
    );
    // A run with a bad agent file stops with the same line.
    run = await runCli(['-p', 'hi', '-m', 'openai:gpt-4o'], home.path, {
      env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' },
      timeoutMs: 30_000,
    });
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(
      `mcphost: ${bad}: maxSteps: Invalid input: expected number, received string`,
    );
    await writeFile(bad, '');
    await import('node:fs/promises').then(({ rm }) => rm(bad));
  }, 90_000);

  it("a Markdown agent's tools are those its globs name", async () => {
    await writeConfig();
    const openai = await startFakeOpenAI([{ type: 'text', text: 'Reviewed.' }]);
    try {
      const run = await runCli(['--agent', 'reviewer', '-p', 'review'], home.path, {
        env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: openai.url },
        timeoutMs: 60_000,
      });
      expect(run.code).toBe(0);
      const [request] = openai.requests;
      expect(request?.body.model).toBe('gpt-4o');
      const offered = openaiToolNames(request!);
      expect(offered).toContain('filesystem__list_directory');
      expect(offered).toContain('filesystem__read_text_file');
      expect(
        offered.every(
          (name) => name.startsWith('filesystem__read_') || name === 'filesystem__list_directory',
        ),
      ).toBe(true);
      expect(JSON.stringify(request?.body.messages)).toContain('You review notes.');
    } finally {
      await openai.close();
    }
  }, 90_000);
});

describe('Ctrl-C with agents running', () => {
  it('cancels the children: the run ends as interrupted, each child not completed', async () => {
    await writeConfig();
    const anthropic = await startFakeAnthropic([
      { type: 'answer', content: [delegate('toolu_a', 'Task A'), delegate('toolu_b', 'Task B')] },
      textAnswer('never reached'),
    ]);
    // Both children's model calls stream a little and then never finish.
    const openai = await startFakeOpenAI(() => ({ type: 'stall', text: 'thinking…' }));
    try {
      const running = startCli(
        ['-m', 'anthropic:claude-sonnet-4-5', '-p', 'two tasks', '--output-format', 'stream-json'],
        home.path,
        { env: env(anthropic.url, openai.url), timeoutMs: 60_000 },
      );
      running.child.stdin.end();
      await running.waitForStdout(
        (stdout) => (stdout.match(/"type":"agent".*"type":"step-start"/g) ?? []).length >= 2,
      );
      // Both children have sent their model call: now Ctrl-C.
      for (let waited = 0; openai.requests.length < 2 && waited < 100; waited++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(openai.requests).toHaveLength(2);
      const interruptedAt = Date.now();
      running.child.kill('SIGINT');
      const run = await running.done;
      expect(Date.now() - interruptedAt).toBeLessThan(10_000);
      expect(run.code).toBe(130);
      const result = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
      expect(result).toMatchObject({ type: 'result', ok: false, stopReason: 'interrupted' });
      const agents = result.agents as Array<Record<string, unknown>>;
      expect(agents.map((agent) => agent.toolCallId).sort()).toEqual(['toolu_a', 'toolu_b']);
      expect(agents.every((agent) => agent.completed === false)).toBe(true);
      // The parent never got to send the children's results to its model.
      expect(anthropic.requests).toHaveLength(1);
    } finally {
      await Promise.all([anthropic.close(), openai.close()]);
    }
  }, 90_000);
});
