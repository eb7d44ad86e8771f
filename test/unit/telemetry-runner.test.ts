/**
 * The Runner's telemetry listener with the real OpenTelemetry SDK in memory: a scripted provider,
 * a fake tool host that records the span active during its call (what the pool injects as
 * `traceparent`, and what a child Runner started in the call nests under), and a run started
 * inside a program's own span.
 */
import { context, SpanKind, trace } from '@opentelemetry/api';
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
import { GuardedToolHost } from '../../src/safety/guarded-tool-host.js';
import type { ChatRequest, Message, Provider, ProviderEvent } from '../../src/core/types.js';
import { SUMMARY_TEMPLATE } from '../../src/context/compaction.js';
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

  it('puts the approval wait and the screen under the call, and the cache counts and the address on the chat', async () => {
    exporter.reset();
    const telemetry = createTelemetry({ env: {} });
    const scripted = new ScriptedProvider([
      [
        { type: 'tool-call', call: { type: 'tool-call', id: 'w', name: 'files__write', input: {} } },
        {
          type: 'finish',
          reason: 'tool-calls',
          usage: {
            inputTokens: 900,
            outputTokens: 7,
            cacheReadInputTokens: 800,
            cacheCreationInputTokens: 64,
          },
        },
      ],
      textReply('written'),
    ]);
    const provider: Provider = {
      name: scripted.name,
      model: scripted.model,
      baseUrl: 'https://models.example.com/v1',
      chat: (request) => scripted.chat(request),
    };
    const guard = new GuardedToolHost({
      host: new FakeToolHost({ files__write: () => 'ok' }),
      safety: { approval: [{ source: 'cfg', rules: [], default: 'ask' }] },
      questions: { approveToolCall: async () => ({ kind: 'allow-once' }) },
      activities: telemetry.guardActivities,
    });
    const runner = new Runner({ provider, tools: guard, observer: telemetry.observer });
    await runner.run('write it');
    const spans = exporter.getFinishedSpans();
    const tool = spans.find((span) => span.name === 'execute_tool files__write');
    const approval = spans.find((span) => span.name === 'approval');
    expect(approval?.parentSpanContext?.spanId).toBe(tool?.spanContext().spanId);
    expect(approval?.attributes).toMatchObject({
      'gen_ai.tool.call.id': 'w',
      'mcphost.outcome': 'allow-once',
    });
    const screen = spans.find((span) => span.name === 'screen');
    expect(screen?.parentSpanContext?.spanId).toBe(tool?.spanContext().spanId);
    expect(screen?.attributes['mcphost.outcome']).toBe('clean');
    const [first, second] = spans.filter((span) => span.name === 'chat test');
    expect(first?.attributes).toMatchObject({
      'gen_ai.usage.input_tokens': 900,
      'gen_ai.usage.cache_read.input_tokens': 800,
      'gen_ai.usage.cache_creation.input_tokens': 64,
      'server.address': 'models.example.com',
      'server.port': 443,
    });
    // A call whose vendor reported no cache has no cache attributes (not a made-up zero).
    expect(second?.attributes['gen_ai.usage.cache_read.input_tokens']).toBeUndefined();
    await guard.close();
  });

  it('makes a threshold compaction inside a run a compaction span under invoke_agent, from its start', async () => {
    exporter.reset();
    const telemetry = createTelemetry({ env: {} });
    const isSummary = (request: ChatRequest) =>
      JSON.stringify(request.messages).includes(SUMMARY_TEMPLATE.slice(0, 60));
    const reply = (request: ChatRequest) => textReply(isSummary(request) ? '## Goal\nthe summary' : 'answer');
    const scripted = new ScriptedProvider([reply, reply, reply, reply]);
    // The summarizing call takes a while, so the span's start and end are apart.
    const slowSummary: Provider = {
      name: scripted.name,
      model: scripted.model,
      async *chat(request: ChatRequest): AsyncIterable<ProviderEvent> {
        if (isSummary(request)) {
          await new Promise((resolve) => setTimeout(resolve, 30));
        }
        yield* scripted.chat(request);
      },
    };
    const turn = (index: number): Message[] => [
      { role: 'user', content: [{ type: 'text', text: `question ${index} ${'x'.repeat(2_000)}` }] },
      { role: 'assistant', content: [{ type: 'text', text: `answer ${index} ${'y'.repeat(2_000)}` }] },
    ];
    const runner = new Runner({
      provider: slowSummary,
      history: [...turn(1), ...turn(2), ...turn(3)],
      context: { contextWindow: 4_000, keepRecentTokens: 10, reserveTokens: 100 },
      observer: telemetry.observer,
    });
    expect((await runner.run('go on')).text).toBe('answer');
    const spans = exporter.getFinishedSpans();
    const run = spans.find((span) => span.name === 'invoke_agent');
    const compactions = spans.filter((span) => span.name === 'compaction');
    expect(compactions).toHaveLength(1);
    const compaction = compactions[0];
    expect(compaction?.parentSpanContext?.spanId).toBe(run?.spanContext().spanId);
    expect(compaction?.kind).toBe(SpanKind.INTERNAL);
    expect(compaction?.attributes).toMatchObject({
      'mcphost.compaction.reason': 'threshold',
      'mcphost.compaction.replaced_messages': 6,
    });
    const before = Number(compaction?.attributes['mcphost.compaction.tokens_before']);
    const after = Number(compaction?.attributes['mcphost.compaction.tokens_after']);
    expect(after).toBeGreaterThan(0);
    expect(after).toBeLessThan(before);
    const nanos = (time: readonly [number, number] | undefined) =>
      time === undefined ? Number.NaN : time[0] * 1e9 + time[1];
    // It covers the summarizing call's wait (30 ms), inside the run.
    expect(nanos(compaction?.endTime) - nanos(compaction?.startTime)).toBeGreaterThanOrEqual(25e6);
    expect(nanos(compaction?.startTime)).toBeGreaterThanOrEqual(nanos(run?.startTime));
    expect(nanos(compaction?.endTime)).toBeLessThanOrEqual(nanos(run?.endTime));
    expect(run?.events.map((event) => event.name)).not.toContain('compaction');
  });

  it('makes the tool_search call an execute_tool span under invoke_agent, beside its tool_search event', async () => {
    exporter.reset();
    const telemetry = createTelemetry({ env: {} });
    const many = Object.fromEntries(
      Array.from({ length: 60 }, (_, index) => [`files__tool_${index}`, () => `result ${index}`]),
    );
    const scripted = new ScriptedProvider([
      toolReply({ id: 's1', name: 'tool_search', input: { query: 'tool_7' } }),
      toolReply({ id: 'c1', name: 'files__tool_7', input: {} }),
      textReply('done'),
    ]);
    // A small window the provider states: 60 definitions pass its share, so the search is on.
    const small: Provider = {
      name: scripted.name,
      model: scripted.model,
      chat: (request) => scripted.chat(request),
      contextWindow: () => Promise.resolve(2_048),
    };
    const runner = new Runner({
      provider: small,
      tools: new FakeToolHost(many),
      observer: telemetry.observer,
    });
    await runner.run('use tool 7');
    expect(scripted.requests[0]?.tools.map((tool) => tool.name)).toEqual(['tool_search']);
    const spans = exporter.getFinishedSpans();
    const run = spans.find((span) => span.name === 'invoke_agent');
    expect(run?.events.find((event) => event.name === 'tool_search')?.attributes).toEqual({
      'mcphost.tool_search.reason': 'window-share',
    });
    const search = spans.find((span) => span.name === 'execute_tool tool_search');
    expect(search?.parentSpanContext?.spanId).toBe(run?.spanContext().spanId);
    expect(search?.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'tool_search',
      'gen_ai.tool.call.id': 's1',
    });
    expect(search?.attributes['error.type']).toBeUndefined();
    const found = spans.find((span) => span.name === 'execute_tool files__tool_7');
    expect(found?.parentSpanContext?.spanId).toBe(run?.spanContext().spanId);
  });

  it('makes a span of a server start and of a sign-in, failed ones with error.type', async () => {
    exporter.reset();
    const { serverStarts } = createTelemetry({ env: {} });
    await expect(
      serverStarts.opening(
        {
          server: 'remote',
          definition: { transport: 'http', url: 'https://mcp.example.com:8443/mcp?key=secret', headers: {} },
          restart: false,
        },
        () => Promise.reject(new TypeError('refused')),
      ),
    ).rejects.toThrow('refused');
    await serverStarts.signingIn('remote', async () => {
      // The sign-in's requests run in its span's context.
      expect(activeTraceCarrier().traceparent).toMatch(/^00-/);
    });
    const spans = exporter.getFinishedSpans();
    const start = spans.find((span) => span.name === 'initialize');
    expect(start?.kind).toBe(2);
    expect(start?.attributes).toMatchObject({
      'mcp.method.name': 'initialize',
      'network.transport': 'tcp',
      'server.address': 'mcp.example.com',
      'server.port': 8443,
      'error.type': 'TypeError',
    });
    expect(JSON.stringify(start?.attributes)).not.toContain('secret');
    const signIn = spans.find((span) => span.name === 'sign_in remote');
    expect(signIn?.attributes['mcphost.mcp.server']).toBe('remote');
    expect(signIn?.attributes['error.type']).toBeUndefined();
  });
});
