/**
 * Durable workers end to end: the built CLI (`mcphost worker`, `mcphost jobs`), a real PostgreSQL,
 * DBOS, the loopback fake Ollama and the real filesystem server from npm.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { unusedPort } from '../support/loopback.js';
import { REPOSITORY, temporaryHome } from '../support/cli.js';
import { startFakeOllama, textReply, toolCallReply } from '../fakes/ollama-server.js';
import { startTestPostgres, type TestPostgres } from '../support/postgres.js';
import {
  jobCounts,
  jobs,
  newLedger,
  resultsByKey,
  startWorkerModel,
  startWorkerProcess,
  withWorker,
  workerHome,
  writeJobsFile,
} from '../support/workers.js';

let postgres: TestPostgres;
let setup: Awaited<ReturnType<typeof workerHome>>;

beforeAll(async () => {
  postgres = await startTestPostgres();
  setup = await workerHome();
}, 120_000);
afterAll(async () => {
  await setup.remove();
  await postgres.close();
});

describe('mcphost jobs and worker', () => {
  it('runs submitted jobs once; a job id submitted again is not run again; results carry the answers', async () => {
    const db = await postgres.freshDatabase();
    const ledger = newLedger();
    const model = await startWorkerModel(ledger);
    const file = await writeJobsFile(setup.home.path, 3, setup.note, 'once');
    const submitted = await jobs(setup.home.path, db, 'submit', file);
    expect(submitted.stderr).toContain('submitted 3 jobs');
    expect(submitted.code).toBe(0);
    const { stopped } = await withWorker(
      { home: setup.home.path, db, model: model.fake, executorId: 'w-once' },
      async ({ waitForJobs }) => {
        await waitForJobs({ SUCCESS: 3 });
        const again = await jobs(setup.home.path, db, 'submit', file);
        expect(again.stderr).toContain('submitted 0 jobs, 3 already submitted (not run again)');
        const results = await resultsByKey(setup.home.path, db);
        expect([...results.keys()].sort()).toEqual(['once-1', 'once-2', 'once-3']);
        for (const line of results.values()) {
          expect(line.status).toBe('ok');
          expect(line.answer).toContain('the secret word is mango');
          expect(line.toolCalls).toEqual([
            expect.objectContaining({ name: 'filesystem__read_text_file', isError: false }),
          ]);
        }
      },
    );
    expect(stopped.stderr).toContain('worker w-once stopped');
    // Each job: one call with the prompt, one with the tool result. Nothing asked twice.
    expect(ledger.seen.size).toBe(6);
    expect([...ledger.seen.values()].every((count) => count === 1)).toBe(true);
    expect(await jobCounts(db)).toEqual({ SUCCESS: 3 });
  });

  it("a job's outputSchema is kept: the follow-up answer is validated and its value is in the results", async () => {
    const db = await postgres.freshDatabase();
    const ledger = newLedger();
    const model = await startWorkerModel(ledger);
    const file = join(setup.home.path, 'schema.jsonl');
    const outputSchema = {
      type: 'object',
      properties: { word: { type: 'string' }, jobs: { type: 'integer' } },
      required: ['word', 'jobs'],
    };
    await writeFile(file, `${JSON.stringify({ id: 'typed', prompt: `read ${setup.note}`, outputSchema })}\n`);
    expect((await jobs(setup.home.path, db, 'submit', file)).code).toBe(0);
    await withWorker(
      { home: setup.home.path, db, model: model.fake, executorId: 'w-schema' },
      async ({ waitForJobs }) => {
        await waitForJobs({ SUCCESS: 1 });
        const line = (await resultsByKey(setup.home.path, db)).get('typed');
        // Tool call, the answer that is not JSON, then the follow-up with the schema: three model calls.
        expect(line?.structured).toEqual({ word: 'mango', jobs: 3 });
      },
    );
    expect(ledger.seen.size).toBe(3);
  });

  it("a job's servers narrow its tools; a server the worker does not have fails that job, naming it", async () => {
    const db = await postgres.freshDatabase();
    const ledger = newLedger();
    const model = await startWorkerModel(ledger);
    const file = join(setup.home.path, 'servers.jsonl');
    const lines = [
      { id: 'with-files', prompt: `read ${setup.note}`, servers: ['filesystem'] },
      { id: 'no-such', prompt: `read ${setup.note}`, servers: ['nope'] },
    ];
    await writeFile(file, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
    expect((await jobs(setup.home.path, db, 'submit', file)).code).toBe(0);
    await withWorker(
      { home: setup.home.path, db, model: model.fake, executorId: 'w-servers' },
      async ({ waitForJobs }) => {
        await waitForJobs({ SUCCESS: 1, ERROR: 1 });
        const byKey = await resultsByKey(setup.home.path, db);
        expect(byKey.get('with-files')).toMatchObject({
          status: 'ok',
          toolCalls: [expect.objectContaining({ name: 'filesystem__read_text_file', isError: false })],
        });
        const refused = byKey.get('no-such') as { status: string; error?: { kind: string; message: string } };
        expect(refused.status).toBe('failed');
        expect(refused.error?.kind).toBe('ConfigError');
        expect(refused.error?.message).toContain(`no configured server "nope" in this worker's config`);
      },
    );
  });

  it('a malformed line names its line number and the other jobs are submitted', async () => {
    const db = await postgres.freshDatabase();
    const file = join(setup.home.path, 'mixed.jsonl');
    await writeFile(
      file,
      ['{"id": "a", "prompt": "one"}', '{"id": "b", "prompt": ', 'plain text job', '{"promt": "x"}'].join(
        '\n',
      ),
    );
    const run = await jobs(setup.home.path, db, 'submit', file, '-m', 'ollama:mistral-small');
    expect(run.stderr).toContain('mixed.jsonl: line 2: not valid JSON');
    expect(run.stderr).toContain('mixed.jsonl: line 4: unknown field "promt"');
    expect(run.stderr).toContain('submitted 2 jobs, 2 invalid lines skipped');
    expect(run.code).toBe(2);
    expect(await jobCounts(db)).toEqual({ ENQUEUED: 2 });
  });

  it('an unreachable database is one clear line naming host and port, exit code 9', async () => {
    const port = await unusedPort();
    const file = await writeJobsFile(setup.home.path, 1, setup.note, 'nodb');
    for (const args of [['jobs', 'submit', file], ['jobs', 'status'], ['worker']]) {
      const run = await (args[0] === 'worker'
        ? startWorkerProcess(setup.home.path, {
            db: `postgres://u@127.0.0.1:${port}/x`,
            modelUrl: 'http://127.0.0.1:9',
            executorId: 'w-nodb',
          }).done
        : jobs(setup.home.path, `postgres://u@127.0.0.1:${port}/x`, ...args.slice(1)));
      expect(run.stderr.trim().split('\n')).toEqual([
        `mcphost: the jobs database at 127.0.0.1:${port} cannot be reached: connection refused (is PostgreSQL running there?)`,
      ]);
      expect(run.code).toBe(9);
    }
  });

  it('a tool call carries the idempotency key JOB:STEP:CALL in _meta; --follow prints the text of a job', async () => {
    const db = await postgres.freshDatabase();
    const home = await temporaryHome();
    await home.writeConfig({
      model: 'ollama:mistral-small',
      contextWindow: 131072,
      mcpServers: {
        meta: { command: process.execPath, args: [join(REPOSITORY, 'test/fixtures/servers/meta-echo.mjs')] },
      },
    });
    const fake = await startFakeOllama([], {
      fallback: (chat) => {
        const last = chat.messages.at(-1);
        return last?.role === 'tool'
          ? textReply('the key was ', last.content)
          : toolCallReply(['meta__meta', {}]);
      },
    });
    const file = join(home.path, 'meta.jsonl');
    await writeFile(file, '{"id": "meta-1", "prompt": "show your _meta"}\n');
    try {
      await withWorker(
        { home: home.path, db, model: fake, executorId: 'w-meta' },
        async ({ waitForJobs }) => {
          const submitted = await jobs(home.path, db, 'submit', file);
          expect(submitted.stderr).toContain('submitted 1 job');
          expect(submitted.code).toBe(0);
          await waitForJobs({ SUCCESS: 1 });
          const followed = await jobs(home.path, db, 'status', '--follow', 'meta-1');
          expect(followed.code).toBe(0);
          expect(followed.stdout).toMatch(/^the key was [\s\S]*"mcphost\/idempotencyKey":"meta-1:\d+:call_/);
          const answer = (await resultsByKey(home.path, db)).get('meta-1')?.answer;
          const key = /"mcphost\/idempotencyKey":"([^"]+)"/.exec(
            typeof answer === 'string' ? answer : '',
          )?.[1];
          expect(key).toMatch(/^meta-1:\d+:\S+$/);
        },
      );
    } finally {
      await home.remove();
    }
  }, 120_000);
});
