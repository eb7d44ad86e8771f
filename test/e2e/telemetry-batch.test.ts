/**
 * `mcphost batch` exporting to an OTLP/HTTP receiver on loopback: one trace per job, rooted in the
 * job's `batch_job` span (tagged with the job's key), each attempt's `invoke_agent` under it with
 * its model calls and tool calls, and the tool call's `traceparent` carried into the server.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorReply, textReply, toolCallReply, type FakeChatRequest } from '../fakes/ollama-server.js';
import { REPOSITORY, runCli } from '../support/cli.js';
import { useCliFixture } from '../support/cli-fixture.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { unwrapped } from '../support/untrusted.js';

const fixture = useCliFixture();
const META_ECHO = join(REPOSITORY, 'test/fixtures/servers/meta-echo.mjs');
let receiver: OtlpReceiver;

beforeEach(async () => {
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await receiver.close();
});

function promptOf(request: FakeChatRequest): string {
  return unwrapped(request.messages.find((message) => message.role === 'user')?.content ?? '');
}

/** A model that calls the echo tool once, then answers with what the tool gave; "refuse" is a 400. */
async function echoingModel() {
  return fixture.startModel([], {
    fallback: (request) => {
      if (promptOf(request).includes('refuse')) return errorReply(400, 'invalid request: refused');
      const last = request.messages.at(-1);
      if (last?.role === 'tool') return textReply(`echoed ${unwrapped(last.content)}`);
      return toolCallReply(['echo__meta', { job: promptOf(request) }]);
    },
  });
}

async function batch(protocol: string, extraEnv: Record<string, string> = {}) {
  await fixture.home.writeConfig({ mcpServers: { echo: { command: 'node', args: [META_ECHO] } } });
  const model = await echoingModel();
  const folder = await fixture.temporaryFolder('mcphost-batch-telemetry-');
  const jobs = join(folder, 'jobs.jsonl');
  await writeFile(
    jobs,
    ['{"id": "first", "prompt": "job one"}', '{"id": "second", "prompt": "job two"}', 'refuse this'].join(
      '\n',
    ),
  );
  const out = join(folder, 'results.jsonl');
  const run = await runCli(
    ['batch', jobs, '--out', out, '-m', 'ollama:mistral-small', '--provider-url', model.url],
    fixture.home.path,
    {
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
        ...extraEnv,
      },
    },
  );
  return { run, out };
}

function childrenOf(spans: readonly ReceivedSpan[], parent: ReceivedSpan): ReceivedSpan[] {
  return spans.filter((span) => span.traceId === parent.traceId && span.parentSpanId === parent.spanId);
}

describe.each(['http/json', 'http/protobuf'] as const)('mcphost batch exporting over %s', (protocol) => {
  it('gives each job a trace of its own, tagged with its key, exported before the batch exits', async () => {
    const { run } = await batch(protocol);
    expect(run.stderr).not.toContain('telemetry:');
    // One job failed for good (a 400): exit 8, and its trace says so.
    expect(run.code).toBe(8);
    const spans = receiver.spans;
    const roots = spans.filter((span) => span.name === 'batch_job');
    expect(roots).toHaveLength(3);
    for (const root of roots) expect(root.parentSpanId).toBe('');
    expect(new Set(roots.map((root) => root.traceId)).size).toBe(3);
    const keys = roots.map((root) => root.attributes['mcphost.job.id']);
    expect(keys).toEqual(expect.arrayContaining(['first', 'second']));

    for (const key of ['first', 'second']) {
      const root = roots.find((span) => span.attributes['mcphost.job.id'] === key) as ReceivedSpan;
      expect(root.attributes['mcphost.job.attempts']).toBe(1);
      expect(root.statusCode).not.toBe(2);
      // Every span of the job is in the job's trace, and none of another job's.
      const agents = childrenOf(spans, root).filter((span) => span.name === 'invoke_agent');
      expect(agents).toHaveLength(1);
      const agent = agents[0] as ReceivedSpan;
      expect(agent.attributes).toMatchObject({
        'mcphost.job.id': key,
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.request.model': 'mistral-small',
      });
      const underAgent = childrenOf(spans, agent);
      expect(underAgent.filter((span) => span.name === 'chat mistral-small')).toHaveLength(2);
      const tools = underAgent.filter((span) => span.name === 'execute_tool echo__meta');
      expect(tools).toHaveLength(1);
      const tool = tools[0] as ReceivedSpan;
      expect(tool.attributes).toMatchObject({
        'mcp.method.name': 'tools/call',
        'mcphost.mcp.server': 'echo',
      });
      // Nothing of this job's trace is outside its tree: the root, the run, and the run's children.
      const inTrace = spans.filter((span) => span.traceId === root.traceId);
      expect(
        inTrace.every((span) => span === root || span === agent || span.parentSpanId === agent.spanId),
      ).toBe(true);
    }
    const refused = roots.find(
      (root) => !['first', 'second'].includes(String(root.attributes['mcphost.job.id'])),
    );
    expect(refused?.statusCode).toBe(2);
    expect(refused?.attributes['error.type']).toBe('400');
  });
});

describe('mcphost batch telemetry', () => {
  it("carries each job's execute_tool span into the server, and links every job to a TRACEPARENT it was started under", async () => {
    const parent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const { run, out } = await batch('http/json', { TRACEPARENT: parent });
    expect(run.code).toBe(8);
    const roots = receiver.spans.filter((span) => span.name === 'batch_job');
    expect(roots).toHaveLength(3);
    for (const root of roots) {
      // A trace of its own, linked to the one the batch ran in (not thousands of jobs in one trace).
      expect(root.traceId).not.toBe('0af7651916cd43dd8448eb211c80319c');
      expect(root.parentSpanId).toBe('');
      expect(root.links).toEqual([
        { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331' },
      ]);
    }
    const results = (await readFile(out, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { key: string; answer?: string });
    for (const key of ['first', 'second']) {
      const tool = receiver.spans.find(
        (span) =>
          span.name === 'execute_tool echo__meta' &&
          receiver.spans.some(
            (agent) => agent.spanId === span.parentSpanId && agent.attributes['mcphost.job.id'] === key,
          ),
      ) as ReceivedSpan;
      expect(tool).toBeDefined();
      const answer = results.find((result) => result.key === key)?.answer ?? '';
      expect(answer).toContain(`"traceparent":"00-${tool.traceId}-${tool.spanId}-01"`);
    }
  });
});
