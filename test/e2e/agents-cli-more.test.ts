/**
 * Named agents end to end, continued (issue 38), the built CLI as a user runs it in a throw-away
 * HOME with server-memory from npm: a saved conversation keeps each child's transcript for `-c`;
 * `agent` in a batch job line; the session's budget shared by the parent and two children. The
 * parent is on the Anthropic fake, the agents on the OpenAI fake (the real vendor SDKs on both sides).
 */
import { readdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, textAnswer } from '../fakes/anthropic-server.js';
import { startFakeOpenAI, type FakeOpenAIReply, type RecordedOpenAIRequest } from '../fakes/openai-server.js';
import { npmServerConfig, runCli, temporaryHome, type TemporaryHome } from '../support/cli.js';

let home: TemporaryHome;
let auditLog: string;

async function writeConfig(extra: Record<string, unknown> = {}): Promise<void> {
  await home.writeConfig({
    mcpServers: { memory: npmServerConfig('memory') },
    auditLog,
    agents: {
      researcher: {
        description: 'Looks things up in the memory graph.',
        model: 'openai:gpt-4o-mini',
        servers: ['memory'],
        systemPrompt: 'You are the researcher. Answer briefly.',
      },
    },
    ...extra,
  });
}

beforeAll(async () => {
  home = await temporaryHome();
  auditLog = join(await realpath(home.path), 'audit.jsonl');
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

function readGraph(id: string): FakeOpenAIReply {
  return {
    type: 'tool-calls',
    calls: [{ id, name: 'memory__read_graph', arguments: '{}' }],
    usage: { prompt_tokens: 11, completion_tokens: 3 },
  };
}

function toolMessages(request: RecordedOpenAIRequest): string[] {
  return (request.body.messages as Array<{ role: string; content: unknown }>)
    .filter((message) => message.role === 'tool')
    .map((message) => JSON.stringify(message.content));
}

/** Every file under `folder` whose name ends with `suffix`. */
async function filesUnder(folder: string, suffix: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith(suffix))
    .map((entry) => join(entry.parentPath, entry.name));
}

async function jsonLines(path: string): Promise<Array<Record<string, unknown>>> {
  return (await readFile(path, 'utf8'))
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('mcphost with named agents: sessions, batches, budgets', () => {
  it("the saved conversation keeps the child's transcript, and -c takes it up", async () => {
    await writeConfig();
    const anthropic = await startFakeAnthropic([
      { type: 'answer', content: [delegate('toolu_1', 'What is in the graph?')] },
      textAnswer('The researcher says the graph is empty.'),
      textAnswer('Still empty.'),
    ]);
    const openai = await startFakeOpenAI([
      readGraph('call_graph'),
      { type: 'text', text: 'The graph is empty.', usage: { prompt_tokens: 20, completion_tokens: 5 } },
    ]);
    try {
      const first = await runCli(
        ['-m', 'anthropic:claude-sonnet-4-5', '-p', 'ask the researcher'],
        home.path,
        {
          env: env(anthropic.url, openai.url),
          timeoutMs: 60_000,
        },
      );
      expect(first.code, first.stderr).toBe(0);
      const [saved, ...others] = await filesUnder(join(home.path, '.local', 'state'), '.jsonl');
      expect(others).toEqual([]);
      const entries = await jsonLines(saved!);
      expect(entries[0]).toMatchObject({ type: 'header', version: 4 });
      const runs = entries.filter((entry) => entry.type === 'agent-run');
      expect(runs).toHaveLength(1);
      const run = runs[0]!.run as Record<string, unknown>;
      expect(run).toMatchObject({
        agent: 'researcher',
        model: 'openai:gpt-4o-mini',
        toolCallId: 'toolu_1',
        depth: 1,
        task: 'What is in the graph?',
        outcome: 'completed',
        steps: 2,
        usage: { inputTokens: 31, outputTokens: 8 },
      });
      // The child's whole transcript: its task, its call, the call's result, its answer.
      const transcript = JSON.stringify(run.messages);
      expect((run.messages as unknown[]).length).toBe(4);
      expect(transcript).toContain('"name":"memory__read_graph"');
      expect(transcript).toContain('The graph is empty.');

      const again = await runCli(['-m', 'anthropic:claude-sonnet-4-5', '-c', '-p', 'and now?'], home.path, {
        env: env(anthropic.url, openai.url),
        timeoutMs: 60_000,
      });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout.trim()).toBe('Still empty.');
      expect(again.stderr).toContain('agents: 1 run kept (/agents in the chat lists them)');
      // Going on in the same file writes the run once, not again.
      const after = await jsonLines(saved!);
      expect(after.filter((entry) => entry.type === 'agent-run')).toHaveLength(1);
    } finally {
      await Promise.all([anthropic.close(), openai.close()]);
    }
  }, 120_000);

  it("stream-json writes a child's events as they happen, tagged with the agent and the parent's call", async () => {
    await writeConfig();
    const anthropic = await startFakeAnthropic([
      { type: 'answer', content: [delegate('toolu_s', 'Read it')] },
      textAnswer('done'),
    ]);
    const openai = await startFakeOpenAI([readGraph('call_s'), { type: 'text', text: 'Read.' }]);
    try {
      const run = await runCli(
        ['-m', 'anthropic:claude-sonnet-4-5', '-p', 'go', '--output-format', 'stream-json'],
        home.path,
        { env: env(anthropic.url, openai.url), timeoutMs: 60_000 },
      );
      expect(run.code, run.stderr).toBe(0);
      const records = run.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      const childCall = records.find(
        (record) => record.type === 'agent' && (record.event as { type?: string }).type === 'tool-call',
      );
      expect(childCall).toMatchObject({
        agent: 'researcher',
        model: 'openai:gpt-4o-mini',
        parentToolCallId: 'toolu_s',
        depth: 1,
        event: { type: 'tool-call', id: 'call_s', name: 'memory__read_graph' },
      });
      // The child's events come between the parent's agent call and its result.
      const index = (predicate: (record: Record<string, unknown>) => boolean) => records.findIndex(predicate);
      const parentCall = index((record) => record.type === 'tool-call' && record.name === 'agent');
      const parentResult = index((record) => record.type === 'tool-result' && record.name === 'agent');
      const child = records.indexOf(childCall!);
      expect(parentCall).toBeGreaterThanOrEqual(0);
      expect(child).toBeGreaterThan(parentCall);
      expect(parentResult).toBeGreaterThan(child);
    } finally {
      await Promise.all([anthropic.close(), openai.close()]);
    }
  }, 120_000);

  it('a batch job line with "agent" runs as that agent; an unknown agent is one line naming the line', async () => {
    await writeConfig();
    await writeFile(auditLog, '');
    const folder = await realpath(home.path);
    const jobs = join(folder, 'jobs.jsonl');
    await writeFile(
      jobs,
      [
        '{"id": "asked", "prompt": "What is in the graph?", "agent": "researcher"}',
        '{"id": "nobody", "prompt": "Anything", "agent": "nobody"}',
        '{"id": "plain", "prompt": "A plain job"}',
      ].join('\n'),
    );
    // The plain job is the batch's model's; the researcher's job is its own model's.
    const anthropic = await startFakeAnthropic([textAnswer('plain answer')]);
    const openai = await startFakeOpenAI([
      readGraph('call_graph'),
      { type: 'text', text: 'The graph is empty.', usage: { prompt_tokens: 20, completion_tokens: 5 } },
    ]);
    const out = join(folder, 'results.jsonl');
    try {
      const run = await runCli(
        ['batch', jobs, '--out', out, '-m', 'anthropic:claude-sonnet-4-5'],
        home.path,
        {
          env: env(anthropic.url, openai.url),
          timeoutMs: 60_000,
        },
      );
      // One job failed: the batch's exit code for "some jobs failed".
      expect(run.code, run.stderr).toBe(8);
      const unknown = 'line 2: "agent": no agent named "nobody" (agents: researcher)';
      expect(run.stderr.split('\n').filter((line) => line.includes('"nobody"'))).toEqual([
        expect.stringContaining(unknown),
      ]);
      const results = new Map((await jsonLines(out)).map((result) => [result.id, result]));
      expect(results.get('asked')).toMatchObject({ status: 'ok', answer: 'The graph is empty.' });
      expect(results.get('plain')).toMatchObject({ status: 'ok', answer: 'plain answer' });
      expect(results.get('nobody')).toMatchObject({
        status: 'failed',
        error: { message: unknown },
      });
      // The agent's job: its model, its system prompt, only its servers' tools.
      expect(openai.requests).toHaveLength(2);
      const request = openai.requests[0]!;
      expect(request.body.model).toBe('gpt-4o-mini');
      expect(JSON.stringify(request.body.messages)).toContain('You are the researcher.');
      const offered = ((request.body.tools ?? []) as Array<{ function: { name: string } }>).map(
        (tool) => tool.function.name,
      );
      expect(offered.length).toBeGreaterThan(3);
      expect(offered.every((name) => name.startsWith('memory__'))).toBe(true);
      // Its call went through the job's guard, audited under the agent's name.
      const audited = (await jsonLines(auditLog)).filter((line) => line.exposedName === 'memory__read_graph');
      expect(audited).toHaveLength(1);
      expect(audited[0]).toMatchObject({ agent: 'researcher', decision: 'allowed', outcome: 'ok' });
      // The plain job was the batch model's, without the agent's prompt.
      expect(anthropic.requests).toHaveLength(1);
      expect(JSON.stringify(anthropic.requests[0]!.body)).not.toContain('You are the researcher.');
    } finally {
      await Promise.all([anthropic.close(), openai.close()]);
    }
  }, 120_000);

  it("the session's call budget is shared by the parent and two children running at once", async () => {
    await writeConfig({ budgets: { session: { maxCalls: 3 } } });
    await writeFile(auditLog, '');
    const anthropic = await startFakeAnthropic([
      // The parent's own call: one of the three the session allows…
      {
        type: 'answer',
        content: [{ type: 'tool_use', id: 'toolu_0', name: 'memory__read_graph', input: {} }],
      },
      { type: 'answer', content: [delegate('toolu_a', 'Task A'), delegate('toolu_b', 'Task B')] },
      textAnswer('done'),
    ]);
    // …each child calls twice, then answers: two of their four calls run, two are refused.
    const openai = await startFakeOpenAI((request) => {
      const task = JSON.stringify(request.body.messages).includes('Task A') ? 'a' : 'b';
      const results = toolMessages(request).length;
      return results < 2 ? readGraph(`call_${task}_${results}`) : { type: 'text', text: `Answer ${task}` };
    });
    try {
      const run = await runCli(['-m', 'anthropic:claude-sonnet-4-5', '-p', 'go'], home.path, {
        env: env(anthropic.url, openai.url),
        timeoutMs: 60_000,
      });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout.trim()).toBe('done');
      const finals = openai.requests.filter((request) => toolMessages(request).length === 2);
      expect(finals).toHaveLength(2);
      const childResults = finals.flatMap(toolMessages);
      expect(childResults.filter((text) => text.includes('the session budget'))).toHaveLength(2);
      expect(childResults.filter((text) => !text.includes('the session budget'))).toHaveLength(2);
      // Three calls ran in all: the parent's and one of each child's.
      const ran = (await jsonLines(auditLog)).filter(
        (line) => line.exposedName === 'memory__read_graph' && line.outcome === 'ok',
      );
      expect(ran.map((line) => line.agent ?? 'parent').sort()).toEqual([
        'parent',
        'researcher',
        'researcher',
      ]);
    } finally {
      await Promise.all([anthropic.close(), openai.close()]);
    }
  }, 120_000);

  it("the session's token budget counts the child's tokens: past it, the parent's next model call is refused", async () => {
    // The parent's answers cost 37 tokens each (the Anthropic fake's usage), the child's call 14
    // and its answer 44 (the OpenAI fake's): 37 + 58 = 95 is past 90, where 37 alone is not.
    await writeConfig({ budgets: { maxTokens: 90 } });
    const anthropic = await startFakeAnthropic([
      { type: 'answer', content: [delegate('toolu_a', 'Task A')] },
      textAnswer('never asked for'),
    ]);
    const openai = await startFakeOpenAI((request) =>
      toolMessages(request).length === 0 ? readGraph('call_a_0') : { type: 'text', text: 'Answer a' },
    );
    try {
      const run = await runCli(
        ['-m', 'anthropic:claude-sonnet-4-5', '-p', 'go', '--output-format', 'json'],
        home.path,
        { env: env(anthropic.url, openai.url), timeoutMs: 60_000 },
      );
      expect(run.code, run.stderr).toBe(4);
      const result = JSON.parse(run.stdout) as Record<string, unknown>;
      expect(result).toMatchObject({
        ok: false,
        exitCode: 4,
        stopReason: 'token-budget',
        error: {
          type: 'TokenBudgetError',
          message:
            'stopped: this session used 95 model tokens, its budget is 90 (budgets.maxTokens); no further model call is made',
        },
      });
      // The child ran to its answer; the parent's second call never went out.
      expect(openai.requests).toHaveLength(2);
      expect(anthropic.requests).toHaveLength(1);
      expect(result.toolCalls).toMatchObject([{ name: 'agent', isError: false, result: 'Answer a' }]);
    } finally {
      await Promise.all([anthropic.close(), openai.close()]);
    }
  }, 120_000);
});
