/**
 * What a worker gives each job of its own, end to end (the built CLI, a real PostgreSQL, DBOS, the
 * loopback fake Ollama, real servers from npm): a process of every `isolation: "per-job"` server
 * (server-memory's graph does not pass from job to job), and budgets counted per job.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeOllama, textReply, toolCallReply } from '../fakes/ollama-server.js';
import { npmServer, temporaryHome, type TemporaryHome } from '../support/cli.js';
import { startTestPostgres, type TestPostgres } from '../support/postgres.js';
import { unwrapped } from '../support/untrusted.js';
import { memoryScript } from '../support/memory-script.js';
import { UNTRUSTED_CONTENT_CLAUSE } from '../../src/safety/untrusted-content.js';
import { JOB_MODEL, jobs, resultsByKey, withWorker, workerHome } from '../support/workers.js';

let postgres: TestPostgres;
let home: TemporaryHome;
let folder: string;

beforeAll(async () => {
  postgres = await startTestPostgres();
  home = await temporaryHome();
  folder = await mkdtemp(join(tmpdir(), 'mcphost-worker-per-job-'));
}, 120_000);
afterAll(async () => {
  await home.remove();
  await rm(folder, { recursive: true, force: true });
  await postgres.close();
});

async function writeJobs(name: string, lines: ReadonlyArray<Record<string, unknown>>): Promise<string> {
  const file = join(home.path, name);
  await writeFile(file, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
  return file;
}

describe('mcphost worker: what each job gets of its own', () => {
  it("starts a per-job server once per job: one job's memory graph is not seen by the next", async () => {
    const db = await postgres.freshDatabase();
    const starts = join(folder, 'memory-starts');
    await home.writeConfig({
      model: JOB_MODEL,
      contextWindow: 131072,
      mcpServers: {
        memory: {
          // One line in `starts` per process started.
          command: 'sh',
          args: ['-c', `echo started >> '${starts}'; exec '${process.execPath}' '${npmServer('memory')}'`],
          isolation: 'per-job',
          env: { MEMORY_FILE_PATH: '${MCPHOST_JOB_DIR}/memory.jsonl' },
        },
      },
    });
    const fake = await startFakeOllama([], { fallback: memoryScript });
    const file = await writeJobs('memory.jsonl', [
      { id: 'first', prompt: 'remember alpha' },
      { id: 'second', prompt: 'recall' },
      { id: 'third', prompt: 'remember beta' },
      { id: 'fourth', prompt: 'recall' },
    ]);
    // One job at a time, in order: a shared server would hand "second" what "first" stored.
    expect((await jobs(home.path, db, 'submit', file, '--concurrency', '1')).code).toBe(0);
    const { value: results, stopped } = await withWorker(
      { home: home.path, db, model: fake, executorId: 'w-per-job' },
      async ({ waitForJobs }) => {
        await waitForJobs({ SUCCESS: 4 });
        return resultsByKey(home.path, db);
      },
    );
    expect(stopped.stderr).toContain('servers: memory (per job)');
    // Each job's model was told that tool output is data, as in a batch or a -p run.
    expect(fake.chatRequests[0]?.messages[0]).toMatchObject({ role: 'system' });
    expect(fake.chatRequests[0]?.messages[0]?.content).toContain(UNTRUSTED_CONTENT_CLAUSE);
    // Within a job the per-job server keeps what it was told...
    expect(results.get('first')?.answer).toContain('"name": "alpha"');
    expect(results.get('third')?.answer).toContain('"name": "beta"');
    expect(results.get('third')?.answer).not.toContain('alpha');
    // ...and a later job sees none of it.
    for (const key of ['second', 'fourth']) {
      expect(results.get(key)?.answer).not.toContain('alpha');
      expect(results.get(key)?.answer).not.toContain('beta');
      expect(results.get(key)?.toolCalls).toMatchObject([{ name: 'memory__read_graph', isError: false }]);
    }
    // A process per job, none for the worker itself.
    const lines = (await readFile(starts, 'utf8')).split('\n').filter((line) => line !== '');
    expect(lines).toHaveLength(4);
  });

  it('counts budgets per job: a job over budget has the call refused, naming the budget; the next starts fresh', async () => {
    const db = await postgres.freshDatabase();
    const setup = await workerHome({ budgets: { session: { maxCalls: 1 } } });
    const { note } = setup;
    const budgetHome = setup.home.path;
    // Each job reads the note twice, then answers with what the second read said.
    const fake = await startFakeOllama([], {
      fallback: (request) => {
        const results = request.messages.filter((message) => message.role === 'tool');
        if (results.length < 2) return toolCallReply(['filesystem__read_text_file', { path: note }]);
        return textReply(`second read: ${unwrapped(results.at(-1)?.content ?? '')}`);
      },
    });
    const file = await writeJobs('budget.jsonl', [
      { id: 'over-1', prompt: 'read twice' },
      { id: 'over-2', prompt: 'read twice' },
    ]);
    expect((await jobs(budgetHome, db, 'submit', file, '--concurrency', '1')).code).toBe(0);
    const { value: results } = await withWorker(
      { home: budgetHome, db, model: fake, executorId: 'w-budget' },
      async ({ waitForJobs }) => {
        await waitForJobs({ SUCCESS: 2 });
        return resultsByKey(budgetHome, db);
      },
    );
    for (const key of ['over-1', 'over-2']) {
      const result = results.get(key);
      // The first read of every job runs: the budget of the job before did not carry over.
      expect(result?.toolCalls).toMatchObject([
        { name: 'filesystem__read_text_file', isError: false },
        { name: 'filesystem__read_text_file', isError: true },
      ]);
      expect(result?.answer).toContain('the session budget: at most 1 tool calls (maxCalls), all used');
    }
    await setup.remove(); // the fake model was closed by withWorker
  });
});
