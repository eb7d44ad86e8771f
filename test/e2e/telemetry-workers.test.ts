/**
 * Durable workers exporting to an OTLP/HTTP receiver on loopback, on a real PostgreSQL: a job's
 * trace holds DBOS's workflow and step spans (through our provider, not DBOS's exporter) with the
 * run's spans among them, and stays one trace when the worker running it is killed with SIGKILL
 * mid-job and another worker resumes it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOllama, textReply, toolCallReply, type FakeOllama } from '../fakes/ollama-server.js';
import type { RunningCli } from '../support/cli.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { startTestPostgres, type TestPostgres } from '../support/postgres.js';
import {
  jobCounts,
  jobs,
  startWorkerProcess,
  waitUntil,
  workerHome,
  writeJobsFile,
} from '../support/workers.js';

let postgres: TestPostgres;
let setup: Awaited<ReturnType<typeof workerHome>>;
let receiver: OtlpReceiver;
const running: RunningCli[] = [];
const models: FakeOllama[] = [];

beforeAll(async () => {
  postgres = await startTestPostgres();
  setup = await workerHome();
  receiver = await startOtlpReceiver();
}, 120_000);
afterAll(async () => {
  for (const worker of running) worker.child.kill('SIGKILL');
  await Promise.allSettled(running.map((worker) => worker.done));
  await Promise.all(models.map((model) => model.close()));
  await receiver.close();
  await setup.remove();
  await postgres.close();
});

/**
 * A model that asks for the note with the filesystem server, then answers; with `stallAfterTool`,
 * its answer after the tool result never comes (the worker is killed while it waits).
 */
async function model(
  stallAfterTool: boolean,
): Promise<{ fake: FakeOllama; stalled: () => number; release: () => void }> {
  let stalled = 0;
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const fake = await startFakeOllama([], {
    fallback: async (chat) => {
      const last = chat.messages.at(-1);
      if (last?.role === 'tool') {
        if (stallAfterTool) {
          stalled += 1;
          await gate;
        }
        return textReply('done: the word is mango');
      }
      const prompt = chat.messages.find((message) => message.role === 'user')?.content ?? '';
      return toolCallReply([
        'filesystem__read_text_file',
        { path: /read (\S+)/.exec(prompt)?.[1] ?? 'missing' },
      ]);
    },
  });
  models.push(fake);
  return { fake, stalled: () => stalled, release };
}

/** A worker exporting to the receiver; `quickExport`: finished spans go out a tenth of a second after they end. */
function worker(db: string, modelUrl: string, executorId: string, quickExport: boolean): RunningCli {
  const started = startWorkerProcess(setup.home.path, {
    db,
    modelUrl,
    executorId,
    args: ['--dead-after', '2'],
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      ...(quickExport ? { OTEL_BSP_SCHEDULE_DELAY: '100' } : {}),
      OTEL_RESOURCE_ATTRIBUTES: `service.instance.id=${executorId}`,
    },
  });
  running.push(started);
  return started;
}

const from = (executorId: string) => (span: ReceivedSpan) =>
  span.resource['service.instance.id'] === executorId;

describe('durable workers exporting traces', () => {
  it('a job killed with SIGKILL mid-job and resumed by another worker is one trace, under the DBOS workflow and step spans', async () => {
    const db = await postgres.freshDatabase();
    const file = await writeJobsFile(setup.home.path, 1, setup.note, 'traced');
    expect((await jobs(setup.home.path, db, 'submit', file)).code).toBe(0);
    const modelA = await model(true);
    // A's finished spans go out quickly, so that those it finished before the kill arrive.
    const workerA = worker(db, modelA.fake.url, 'w-a', true);
    // A has recorded the first model call and the tool call, and waits for the second answer; its
    // finished spans have been exported.
    await waitUntil(
      async () =>
        modelA.stalled() === 1 &&
        receiver.spans.some((span) => from('w-a')(span) && span.name === 'tool:filesystem__read_text_file'),
      () =>
        `stalled ${modelA.stalled()}; spans: ${receiver.spans.map((span) => span.name).join(', ')}\n${workerA.stderr()}`,
      120_000,
    );
    workerA.child.kill('SIGKILL');
    await workerA.done;
    modelA.release();

    const modelB = await model(false);
    // B keeps the default (a batch every 5 s) and is stopped as soon as the job is done: its spans
    // arrive because a stopping worker sends what is left.
    const workerB = worker(db, modelB.fake.url, 'w-b', false);
    await waitUntil(
      async () => (await jobCounts(db)).SUCCESS === 1,
      async () => `${JSON.stringify(await jobCounts(db))}\n${workerB.stderr()}`,
      120_000,
    );
    expect(receiver.spans.some((span) => from('w-b')(span) && span.name === 'mcphostJob')).toBe(false);
    workerB.child.kill('SIGTERM');
    const stopped = await workerB.done;
    expect(stopped.code).toBe(0);
    expect(stopped.stderr).not.toContain('telemetry:');

    // Each worker's own server start (before any job) is a trace of its own: one `initialize` root
    // span a worker. Every other span of both processes is the job's, in one trace.
    const serverStarts = receiver.spans.filter((span) => span.name === 'initialize');
    expect(serverStarts.map((span) => span.resource['service.instance.id']).sort()).toEqual(['w-a', 'w-b']);
    expect(serverStarts.every((span) => span.parentSpanId === '')).toBe(true);
    const ofJob = (span: ReceivedSpan): boolean => span.name !== 'initialize';
    const spansA = receiver.spans.filter(from('w-a')).filter(ofJob);
    const spansB = receiver.spans.filter(from('w-b')).filter(ofJob);
    const traceIds = new Set([...spansA, ...spansB].map((span) => span.traceId));
    // Nothing else was exported either (DBOS's launch probe is not recorded).
    const outline = receiver.spans.map(
      (span) => `${span.name} ${span.traceId} ${String(span.resource['service.instance.id'])}`,
    );
    expect(traceIds.size, outline.join('\n')).toBe(1);
    expect(serverStarts.every((span) => !traceIds.has(span.traceId))).toBe(true);
    expect(spansA.length + spansB.length + serverStarts.length).toBe(receiver.spans.length);
    const byId = new Map(receiver.spans.map((span) => [span.spanId, span]));

    // A: its tool call ran as a DBOS step under its execute_tool span, before it was killed.
    const toolStepA = spansA.find((span) => span.name === 'tool:filesystem__read_text_file') as ReceivedSpan;
    expect(byId.get(toolStepA.parentSpanId)?.name).toBe('execute_tool filesystem__read_text_file');
    expect(toolStepA.attributes.executorID).toBe('w-a');
    expect(spansA.some((span) => span.name === 'model-call')).toBe(true);
    // Killed mid-job: A's workflow and run spans never ended, so they were never sent.
    expect(spansA.some((span) => span.name === 'mcphostJob' || span.name === 'invoke_agent')).toBe(false);

    // B: DBOS's workflow span is the job's, with the same parent A's had (derived from the job).
    const workflows = spansB.filter((span) => span.name === 'mcphostJob');
    expect(workflows).toHaveLength(1);
    const workflow = workflows[0] as ReceivedSpan;
    expect(workflow.parentSpanId).not.toBe('');
    expect(workflow.attributes).toMatchObject({ operationUUID: 'traced-1', executorID: 'w-b' });
    const agent = spansB.find((span) => span.name === 'invoke_agent') as ReceivedSpan;
    expect(agent.parentSpanId).toBe(workflow.spanId);
    expect(agent.attributes['mcphost.job.id']).toBe('traced-1');
    // The replay: the steps A recorded come back from the database (DBOS marks them cached); the
    // model call A never got an answer to is made again, for real, by B.
    const modelSteps = spansB.filter((span) => span.name === 'model-call');
    expect(modelSteps.map((span) => span.attributes.cached ?? false)).toEqual([true, false]);
    for (const step of modelSteps) expect(step.parentSpanId).toBe(agent.spanId);
    const toolStepB = spansB.find((span) => span.name === 'tool:filesystem__read_text_file') as ReceivedSpan;
    expect(toolStepB.attributes.cached).toBe(true);
    expect(byId.get(toolStepB.parentSpanId)?.parentSpanId).toBe(agent.spanId);
    expect(spansB.filter((span) => span.name === 'chat mistral-small')).toHaveLength(2);
  }, 300_000);
});
