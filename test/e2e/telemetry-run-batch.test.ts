/**
 * `runBatch` in a program that registered its own OpenTelemetry SDK, exporting over OTLP/HTTP to
 * a receiver on loopback: one trace per job (the program's span around the batch is a link, not
 * the parent of every job), each job's run tagged with its key, and the tool call's span carried
 * into a real MCP server. The library installs nothing itself.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBatch, type BatchResult } from '../../src/index.js';
import { startFakeOllama, textReply, toolCallReply } from '../fakes/ollama-server.js';
import { REPOSITORY } from '../support/cli.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { unwrapped } from '../support/untrusted.js';

const META_ECHO = join(REPOSITORY, 'test/fixtures/servers/meta-echo.mjs');
let receiver: OtlpReceiver;
let provider: BasicTracerProvider;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  provider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${receiver.url}/v1/traces` }))],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
});
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
  await receiver.close();
});

describe('runBatch with a program-registered tracer provider', () => {
  it('gives each job its own trace, linked to the span the program ran the batch in', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'mcphost-run-batch-telemetry-'));
    const ollama = await startFakeOllama([], {
      fallback: (request) => {
        const last = request.messages.at(-1);
        if (last?.role === 'tool') return textReply(`echoed ${unwrapped(last.content)}`);
        return toolCallReply(['echo__meta', {}]);
      },
    });
    try {
      const programSpan = trace.getTracer('program').startSpan('nightly evaluation');
      const results: BatchResult[] = [];
      await context.with(trace.setSpan(context.active(), programSpan), async () => {
        for await (const result of runBatch(
          [
            { id: 'one', prompt: 'first' },
            { id: 'two', prompt: 'second' },
          ],
          {
            runner: {
              model: 'ollama:mistral-small',
              providerUrl: ollama.url,
              env: {},
              homeDir: folder,
              mcpServers: { echo: { command: 'node', args: [META_ECHO] } },
            },
          },
        )) {
          results.push(result);
        }
      });
      programSpan.end();
      await provider.forceFlush();
      expect(results.map((result) => result.status)).toEqual(['ok', 'ok']);

      const spans = receiver.spans;
      const roots = spans.filter((span) => span.name === 'batch_job');
      expect(roots.map((root) => root.attributes['mcphost.job.id']).sort()).toEqual(['one', 'two']);
      expect(new Set(roots.map((root) => root.traceId)).size).toBe(2);
      const program = spans.find((span) => span.name === 'nightly evaluation') as ReceivedSpan;
      for (const root of roots) {
        expect(root.parentSpanId).toBe('');
        expect(root.traceId).not.toBe(program.traceId);
        expect(root.links).toEqual([{ traceId: program.traceId, spanId: program.spanId }]);
        const agent = spans.find(
          (span) => span.name === 'invoke_agent' && span.parentSpanId === root.spanId,
        ) as ReceivedSpan;
        expect(agent.attributes['mcphost.job.id']).toBe(root.attributes['mcphost.job.id']);
        const tool = spans.find(
          (span) => span.name === 'execute_tool echo__meta' && span.parentSpanId === agent.spanId,
        ) as ReceivedSpan;
        const answer = results.find((result) => result.key === root.attributes['mcphost.job.id'])?.answer;
        expect(answer).toContain(`"traceparent":"00-${tool.traceId}-${tool.spanId}-01"`);
      }
    } finally {
      await ollama.close();
      await rm(folder, { recursive: true, force: true });
    }
  });
});
