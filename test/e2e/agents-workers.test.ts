/**
 * `agent` in a durable job's line (issue 38): submitted on the agent's model's queue, run by the
 * worker as that agent (its system prompt, only its tools); a job naming no agent is one line
 * naming the file, the line and the agent, and is not submitted. The built CLI, a real PostgreSQL,
 * DBOS, the Ollama fake and server-filesystem from npm.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FAKE_OLLAMA_MODELS,
  startFakeOllama,
  textReply,
  toolCallReply,
  type FakeChatRequest,
} from '../fakes/ollama-server.js';
import { startTestPostgres, type TestPostgres } from '../support/postgres.js';
import { jobCounts, jobs, resultsByKey, withWorker, workerHome } from '../support/workers.js';

let postgres: TestPostgres;
let setup: Awaited<ReturnType<typeof workerHome>>;

beforeAll(async () => {
  postgres = await startTestPostgres();
  setup = await workerHome({
    agents: {
      reader: {
        description: 'Reads notes.',
        model: 'ollama:qwen-reader',
        tools: ['filesystem__read_text_file'],
        systemPrompt: 'You are the reader.',
      },
    },
  });
}, 120_000);
afterAll(async () => {
  await setup.remove();
  await postgres.close();
});

function offered(request: FakeChatRequest): string[] {
  return (request.tools ?? []).map((tool) => tool.function.name);
}

describe('agent in a durable job line', () => {
  it("runs the job as the agent on its model's queue; an unknown agent is one line and not submitted", async () => {
    const db = await postgres.freshDatabase();
    const fake = await startFakeOllama([], {
      models: [...FAKE_OLLAMA_MODELS, 'qwen-reader'],
      fallback: (chat) =>
        chat.messages.at(-1)?.role === 'tool'
          ? textReply(`${chat.model} read it`)
          : toolCallReply(['filesystem__read_text_file', { path: setup.note }]),
    });
    const file = join(setup.home.path, 'agents.jsonl');
    await writeFile(
      file,
      [
        { id: 'as-reader', prompt: `read ${setup.note}`, agent: 'reader' },
        { id: 'lost', prompt: 'anything', agent: 'nobody' },
        { id: 'plain', prompt: `read ${setup.note}` },
      ]
        .map((line) => JSON.stringify(line))
        .join('\n'),
    );
    const submitted = await jobs(setup.home.path, db, 'submit', file);
    expect(submitted.stderr.split('\n').filter((line) => line.includes('nobody'))).toEqual([
      `mcphost: ${file}: line 2: "agent": no agent named "nobody" (agents: reader)`,
    ]);
    expect(submitted.stderr).toContain('submitted 2 jobs, 1 invalid line skipped');
    expect(submitted.code).toBe(2);
    await withWorker(
      { home: setup.home.path, db, model: fake, executorId: 'w-agents' },
      async ({ waitForJobs }) => {
        await waitForJobs({ SUCCESS: 2 });
        const results = await resultsByKey(setup.home.path, db);
        expect(results.get('as-reader')).toMatchObject({ status: 'ok', answer: 'qwen-reader read it' });
        expect(results.get('plain')).toMatchObject({ status: 'ok', answer: 'mistral-small read it' });
      },
    );
    expect(await jobCounts(db)).toEqual({ SUCCESS: 2 });
    const asReader = fake.chatRequests.filter((chat) => chat.model === 'qwen-reader');
    expect(asReader).toHaveLength(2);
    for (const chat of asReader) {
      expect(chat.messages[0]?.role).toBe('system');
      expect(chat.messages[0]?.content).toContain('You are the reader.');
      expect(offered(chat)).toEqual(['filesystem__read_text_file']);
    }
    const plain = fake.chatRequests.filter((chat) => chat.model === 'mistral-small');
    expect(plain).toHaveLength(2);
    expect(JSON.stringify(plain[0]?.messages)).not.toContain('You are the reader.');
    expect(offered(plain[0]!).length).toBeGreaterThan(1);
  }, 180_000);
});
