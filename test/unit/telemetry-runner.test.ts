/**
 * The Runner's telemetry listener with the real OpenTelemetry SDK in memory: a scripted provider,
 * a fake tool host that records the span active during its call (what the pool injects as
 * `traceparent`, and what a child Runner started in the call nests under), and a run started
 * inside a program's own span.
 */
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Runner } from '../../src/core/runner.js';
import { createTelemetry } from '../../src/telemetry/run-telemetry.js';
import { activeTraceCarrier } from '../../src/telemetry/trace-context.js';
import { FakeToolHost } from '../support/fake-tool-host.js';
import { ScriptedProvider, textReply, toolReply } from '../support/scripted-provider.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const contextManager = new AsyncLocalStorageContextManager();

beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
  trace.setGlobalTracerProvider(provider);
});
afterAll(() => {
  trace.disable();
  context.disable();
});

describe('the Runner with telemetry', () => {
  it('runs each tool call inside its execute_tool span, and nests a run started inside it', async () => {
    exporter.reset();
    const telemetry = createTelemetry({ env: {} });
    const seenInCall: Record<string, string | undefined> = {};
    const host = new FakeToolHost({
      outer: async () => {
        seenInCall.outer = activeTraceCarrier().traceparent;
        // A child Runner started inside the call (a subagent) nests under the call's span.
        const child = new Runner({
          provider: new ScriptedProvider([textReply('child answer')]),
          observer: telemetry.observer,
        });
        return (await child.run('child')).text;
      },
      other: () => {
        seenInCall.other = activeTraceCarrier().traceparent;
        return 'other';
      },
    });
    const runner = new Runner({
      provider: new ScriptedProvider([
        toolReply({ id: 'a', name: 'outer', input: {} }, { id: 'b', name: 'other', input: {} }),
        textReply('done'),
      ]),
      tools: host,
      observer: telemetry.observer,
    });
    const tracer = trace.getTracer('program');
    await tracer.startActiveSpan('program', async (programSpan) => {
      await runner.run('go');
      programSpan.end();
    });
    const spans = exporter.getFinishedSpans();
    const byName = (name: string) => spans.filter((span) => span.name === name);
    const program = byName('program')[0];
    const [outerRun, innerRun] = [...byName('invoke_agent')].sort(
      (left, right) =>
        left.startTime[1] - right.startTime[1] + (left.startTime[0] - right.startTime[0]) * 1e9,
    );
    expect(outerRun?.parentSpanContext?.spanId).toBe(program?.spanContext().spanId);
    const outerTool = byName('execute_tool outer')[0];
    const otherTool = byName('execute_tool other')[0];
    expect(outerTool?.parentSpanContext?.spanId).toBe(outerRun?.spanContext().spanId);
    expect(otherTool?.parentSpanContext?.spanId).toBe(outerRun?.spanContext().spanId);
    expect(outerTool?.attributes['gen_ai.tool.call.id']).toBe('a');
    // The context active in each host call is its own execute_tool span's.
    expect(seenInCall.outer).toBe(
      `00-${outerTool?.spanContext().traceId}-${outerTool?.spanContext().spanId}-01`,
    );
    expect(seenInCall.other).toBe(
      `00-${otherTool?.spanContext().traceId}-${otherTool?.spanContext().spanId}-01`,
    );
    expect(innerRun?.parentSpanContext?.spanId).toBe(outerTool?.spanContext().spanId);
    expect(byName('chat test')).toHaveLength(3);
  });

  it('marks a failed tool result with error.type tool_error and a failed run with the error class', async () => {
    exporter.reset();
    const telemetry = createTelemetry({ env: {} });
    const runner = new Runner({
      provider: new ScriptedProvider([
        toolReply({ id: 'x', name: 'broken', input: {} }),
        { error: new TypeError('boom') },
      ]),
      tools: new FakeToolHost({
        broken: () => {
          throw new Error('it broke');
        },
      }),
      observer: telemetry.observer,
    });
    await expect(runner.run('go')).rejects.toThrow();
    const spans = exporter.getFinishedSpans();
    const tool = spans.find((span) => span.name === 'execute_tool broken');
    expect(tool?.attributes['error.type']).toBe('tool_error');
    const run = spans.find((span) => span.name === 'invoke_agent');
    expect(run?.attributes['error.type']).toBe('ProviderError');
    const chats = spans.filter((span) => span.name === 'chat test');
    expect(chats.at(-1)?.attributes['error.type']).toBe('ProviderError');
  });
});
