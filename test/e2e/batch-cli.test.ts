/**
 * `mcphost batch` end to end: the built CLI as a user runs it (a throw-away HOME, no flags beyond
 * the model and its URL), the real Ollama client against the fake, real server processes; resume
 * after SIGINT and after `kill -9`, a malformed line, a failed job, progress lines without a TTY.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorReply, textReply, type FakeChatRequest, type FakeOllamaReply } from '../fakes/ollama-server.js';
import { runCli, startCli } from '../support/cli.js';
import { useCliFixture } from '../support/cli-fixture.js';
import { unwrapped } from '../support/untrusted.js';

const fixture = useCliFixture();

/** The prompt of a chat request (its last user message). */
function promptOf(request: FakeChatRequest): string {
  const user = request.messages.filter((message) => message.role === 'user').at(-1);
  return unwrapped(user?.content ?? '');
}

/** Every parsed result line of a results file (a torn line is not one). */
async function resultsIn(path: string): Promise<Array<Record<string, unknown>>> {
  const text = await readFile(path, 'utf8');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
}

async function waitFor(test: () => Promise<boolean> | boolean, what: string): Promise<void> {
  for (let tries = 0; tries < 400; tries++) {
    if (await test()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const MODEL = ['-m', 'ollama:mistral-small'];

describe('mcphost batch', () => {
  it('runs every job, names a malformed line and goes on, reports a failed job, and prints progress lines', async () => {
    const folder = await fixture.temporaryFolder('mcphost-batch-');
    const jobs = join(folder, 'jobs.jsonl');
    await writeFile(
      jobs,
      [
        '{"id": "a", "prompt": "Say {{word}}"}',
        '{"id": "b", "prompt": "oops",',
        'A plain-text prompt',
        '{"id": "bad", "prompt": "refuse me"}',
        '{"vars": {"word": "kiwi"}, "prompt": "Say {{word}}"}',
      ].join('\n'),
    );
    const model = await fixture.startModel([], {
      fallback: (request): FakeOllamaReply =>
        promptOf(request) === 'refuse me'
          ? errorReply(400, 'invalid request: refused')
          : textReply(`answer to ${promptOf(request)}`),
    });
    const out = join(folder, 'results.jsonl');
    const run = await runCli(
      ['batch', jobs, '--out', out, '--var', 'word=mango', ...MODEL, '--provider-url', model.url],
      fixture.home.path,
    );
    expect(run.stderr).toContain('jobs.jsonl: line 2: not valid JSON');
    // A job that failed for good: one attempt (a 400 would fail the same way again), reported.
    expect(run.stderr).toMatch(/line 4 \(id bad\) failed after 1 attempt: ProviderError: /);
    // No TTY: progress lines (every twentieth of 4 jobs: each one), then the summary.
    expect(run.stderr).toContain('mcphost batch: 4/4 done, 1 failed, 0 running');
    expect(run.stderr).toMatch(/mcphost batch: 3 ok, 1 failed, 1 line not a job; \d+ tokens; /);
    expect(run.code).toBe(8);
    const results = await resultsIn(out);
    expect(results.map((result) => [result.line, result.status]).sort()).toEqual([
      [1, 'ok'],
      [3, 'ok'],
      [4, 'failed'],
      [5, 'ok'],
    ]);
    const byLine = new Map(results.map((result) => [result.line, result]));
    expect(byLine.get(1)).toMatchObject({ key: 'a', id: 'a', answer: 'answer to Say mango', attempts: 1 });
    expect(byLine.get(5)).toMatchObject({ answer: 'answer to Say kiwi' });
    expect(byLine.get(3)?.key).toMatch(/^line:3:[0-9a-f]{12}$/);
    expect(byLine.get(4)).toMatchObject({
      status: 'failed',
      error: { kind: 'ProviderError', retryable: false },
    });
    expect(stdoutIsEmpty(run.stdout)).toBe(true);

    // The same command again: every job is in the file, nothing runs, the model is not called.
    const calls = model.chatRequests.length;
    const again = await runCli(
      ['batch', jobs, '--out', out, '--var', 'word=mango', ...MODEL, '--provider-url', model.url],
      fixture.home.path,
    );
    expect(again.stderr).toContain('4 jobs already in');
    expect(model.chatRequests.length).toBe(calls);
    expect(await resultsIn(out)).toHaveLength(4);
  });

  for (const signal of ['SIGINT', 'SIGKILL'] as const) {
    it(`goes on after ${signal === 'SIGKILL' ? 'kill -9' : 'Ctrl-C (SIGINT)'}: every job's result is in the file exactly once`, async () => {
      const folder = await fixture.temporaryFolder('mcphost-batch-');
      const jobs = join(folder, 'jobs.jsonl');
      const prompts = Array.from({ length: 8 }, (_, index) => `job ${index + 1}${index >= 3 ? ' slow' : ''}`);
      await writeFile(jobs, `${prompts.join('\n')}\n`);
      let holding = true;
      let releaseAll: () => void = () => undefined;
      const released = new Promise<void>((resolve) => (releaseAll = resolve));
      const model = await fixture.startModel([], {
        fallback: async (request): Promise<FakeOllamaReply> => {
          const prompt = promptOf(request);
          // Jobs 4 onwards hang in the first run: in flight when the batch is stopped.
          if (holding && prompt.endsWith('slow')) await released;
          return textReply(`answer to ${prompt}`);
        },
      });
      const out = join(folder, 'results.jsonl');
      const args = ['batch', jobs, '--out', out, '--concurrency', '2', ...MODEL, '--provider-url', model.url];
      const first = startCli(args, fixture.home.path);
      first.child.stdin.end();
      await waitFor(
        async () => (await resultsIn(out).catch(() => [])).length === 3 && model.chatRequests.length === 5,
        'three results and two held jobs',
      );
      first.child.kill(signal);
      const stopped = await first.done;
      if (signal === 'SIGINT') {
        expect(stopped.code).toBe(130);
        expect(stopped.stderr).toMatch(/stopped by SIGINT: 3 ok, 0 failed; 5 jobs not done/);
      } else {
        expect(stopped.signal).toBe('SIGKILL');
      }
      expect((await resultsIn(out)).map((result) => result.line).sort()).toEqual([1, 2, 3]);
      // A torn last line, as a crash mid-write leaves: ignored, and the next result starts a new line.
      if (signal === 'SIGKILL') await writeFile(out, `${await readFile(out, 'utf8')}{"key":"line:4:`, 'utf8');

      holding = false;
      releaseAll();
      const before = model.chatRequests.length;
      const second = await runCli(args, fixture.home.path);
      expect(second.code, second.stderr).toBe(0);
      expect(second.stderr).toContain('3 jobs already in');
      // Only the five jobs not done were asked for again.
      const asked = model.chatRequests.slice(before).map(promptOf).sort();
      expect(asked).toEqual(prompts.slice(3).sort());
      const results = await resultsIn(out);
      expect(results.map((result) => result.line).sort()).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      for (const result of results)
        expect(result.answer).toBe(`answer to ${prompts[(result.line as number) - 1]}`);
    });
  }
});

function stdoutIsEmpty(stdout: string): boolean {
  return stdout.trim() === '';
}
