/**
 * `mcphost batch` applies the config's budgets and approval rules to each job on its own, with
 * `-p` rules: a job past its budget has its call refused (its result says why) while the next job
 * starts with a fresh budget, and a tool an approval rule marks `ask` is refused (no one to ask)
 * unless `--approve-all`. The built CLI as a user runs it, the README's config form in a
 * throw-away HOME, the real server-everything, the real Ollama client against the fake.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  textReply,
  toolCallReply,
  type FakeChatRequest,
  type FakeOllamaReply,
} from '../fakes/ollama-server.js';
import { EVERYTHING_SERVER, runCli } from '../support/cli.js';
import { useCliFixture } from '../support/cli-fixture.js';
import { unwrapped } from '../support/untrusted.js';

const fixture = useCliFixture({
  config: {
    mcpServers: { everything: EVERYTHING_SERVER },
    budgets: { session: { maxCalls: 1 } },
    approval: { rules: [{ tool: 'everything__get-sum', decision: 'ask' }] },
  },
});

/**
 * The model's part: "twice" calls echo two times (the second is past a one-call budget), "once"
 * calls it one time, "sum" calls get-sum; each then answers with what the last tool said.
 */
function script(request: FakeChatRequest): FakeOllamaReply {
  const prompt = unwrapped(request.messages.find((message) => message.role === 'user')?.content ?? '');
  const results = request.messages.filter((message) => message.role === 'tool');
  const last = unwrapped(results.at(-1)?.content ?? '');
  if (prompt === 'sum') {
    return results.length === 0 ? toolCallReply(['everything__get-sum', { a: 2, b: 3 }]) : textReply(last);
  }
  const calls = prompt === 'twice' ? 2 : 1;
  if (results.length < calls)
    return toolCallReply(['everything__echo', { message: `call ${results.length + 1}` }]);
  return textReply(last);
}

type Result = {
  id: string;
  status: string;
  answer?: string;
  toolCalls: Array<{ name: string; isError: boolean; error?: string }>;
};

async function resultsById(path: string): Promise<Map<string, Result>> {
  const lines = (await readFile(path, 'utf8')).trim().split('\n');
  return new Map(lines.map((line) => JSON.parse(line) as Result).map((result) => [result.id, result]));
}

describe('mcphost batch: budgets and approval rules per job', () => {
  it('refuses the call past a job’s budget and gives the next job a fresh one; an ask rule denies', async () => {
    const folder = await fixture.temporaryFolder('mcphost-batch-rules-');
    const jobs = join(folder, 'jobs.jsonl');
    await writeFile(
      jobs,
      [
        '{"id": "twice", "prompt": "twice"}',
        '{"id": "once", "prompt": "once"}',
        '{"id": "sum", "prompt": "sum"}',
      ].join('\n'),
    );
    const model = await fixture.startModel([], { fallback: script });
    const out = join(folder, 'results.jsonl');
    const base = [
      'batch',
      jobs,
      '-m',
      'ollama:mistral-small',
      '--provider-url',
      model.url,
      '--concurrency',
      '1',
    ];
    const run = await runCli([...base, '--out', out], fixture.home.path);
    expect(run.code, run.stderr).toBe(0);
    const results = await resultsById(out);

    // One call within the budget, the second refused, and the result says which limit.
    const twice = results.get('twice');
    expect(twice?.toolCalls.map((call) => call.isError)).toEqual([false, true]);
    expect(twice?.toolCalls[1]?.error).toBe(
      'The call to everything__echo was not run: it is past the session budget: at most 1 tool calls (maxCalls), all used.',
    );
    expect(twice?.answer).toContain('past the session budget');

    // The next job's budget is its own: its one call runs.
    const once = results.get('once');
    expect(once?.toolCalls).toMatchObject([{ name: 'everything__echo', isError: false }]);
    expect(once?.answer).toContain('Echo: call 1');

    // `ask` with no one to ask: refused, as with -p.
    const sum = results.get('sum');
    expect(sum?.toolCalls).toMatchObject([{ name: 'everything__get-sum', isError: true }]);
    expect(sum?.toolCalls[0]?.error).toMatch(
      /^The call to everything__get-sum needs the user's approval \(the rule tool "everything__get-sum" → ask in .*\.mcp\.json\), and no one can be asked here, so it was not run\./,
    );
    // (Not the bare digit: the refusal names the config's path, a random folder that may hold a 5.)
    expect(sum?.answer).not.toContain('is 5');

    // The same job with --approve-all: the ask rule lets it run.
    const approvedOut = join(folder, 'approved.jsonl');
    const approved = await runCli([...base, '--out', approvedOut, '--approve-all'], fixture.home.path);
    expect(approved.code, approved.stderr).toBe(0);
    const sumApproved = (await resultsById(approvedOut)).get('sum');
    expect(sumApproved?.toolCalls).toMatchObject([{ name: 'everything__get-sum', isError: false }]);
    expect(sumApproved?.answer).toContain('is 5');
  });
});
