/**
 * OpenTelemetry end to end: the built CLI exports to an OTLP/HTTP receiver on loopback (JSON and
 * protobuf), a fake Ollama answers through the real `ollama` client, and a fixture MCP server
 * answers with the `_meta` of its call, so the `traceparent` it received is checked against the
 * `execute_tool` span.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorReply, textReply, toolCallReply } from '../fakes/ollama-server.js';
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

function only(spans: readonly ReceivedSpan[], name: string): ReceivedSpan {
  const found = spans.filter((span) => span.name === name);
  expect(found, `spans named ${name}: ${spans.map((span) => span.name).join(', ')}`).toHaveLength(1);
  return found[0] as ReceivedSpan;
}

describe.each(['http/json', 'http/protobuf'] as const)('mcphost -p exporting over %s', (protocol) => {
  it('exports the run, its model calls and its parallel tool calls as one trace, carried into the server', async () => {
    await fixture.home.writeConfig({ mcpServers: { echo: { command: 'node', args: [META_ECHO] } } });
    const ollama = await fixture.startModel([
      toolCallReply(['echo__meta', { n: 1 }], ['echo__meta', { n: 2 }]),
      (request) =>
        textReply(
          request.messages
            .filter((message) => message.role === 'tool')
            .map((message) => unwrapped(message.content))
            .join('\n'),
        ),
    ]);
    const run = await runCli(['-p', 'the secret prompt', '--provider-url', ollama.url], fixture.home.path, {
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
        OTEL_SERVICE_NAME: 'telemetry-test',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=ci',
      },
    });
    expect(run.stderr).not.toContain('telemetry:');
    expect(run.code).toBe(0);
    // Exported before the process exited: nothing is waited for here.
    expect(receiver.contentTypes).toContain(
      protocol === 'http/json' ? 'application/json' : 'application/x-protobuf',
    );
    const spans = receiver.spans;
    const agent = only(spans, 'invoke_agent');
    expect(agent.parentSpanId).toBe('');
    expect(agent.kind).toBe(1);
    expect(agent.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': 'ollama',
      'gen_ai.request.model': 'mistral-small',
    });
    expect(agent.attributes['gen_ai.conversation.id']).toEqual(expect.any(String));
    expect(agent.resource).toMatchObject({
      'service.name': 'telemetry-test',
      'deployment.environment': 'ci',
    });
    // No command-line detector: the prompt is nowhere in what was exported.
    expect(JSON.stringify(spans)).not.toContain('the secret prompt');
    const chats = spans.filter((span) => span.name === 'chat mistral-small');
    expect(chats).toHaveLength(2);
    for (const chat of chats) {
      expect(chat.parentSpanId).toBe(agent.spanId);
      expect(chat.kind).toBe(3);
      expect(chat.attributes['gen_ai.operation.name']).toBe('chat');
    }
    expect(chats.map((chat) => chat.attributes['gen_ai.response.finish_reasons'])).toEqual(
      expect.arrayContaining([['tool_calls'], ['stop']]),
    );
    const tools = spans.filter((span) => span.name === 'execute_tool echo__meta');
    expect(tools).toHaveLength(2);
    for (const tool of tools) {
      expect(tool.traceId).toBe(agent.traceId);
      expect(tool.parentSpanId).toBe(agent.spanId);
      expect(tool.attributes).toMatchObject({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'echo__meta',
        'mcp.method.name': 'tools/call',
        'network.transport': 'pipe',
        'mcphost.mcp.server': 'echo',
      });
      expect(tool.attributes['mcp.protocol.version']).toEqual(expect.any(String));
      expect(tool.attributes['gen_ai.tool.call.arguments']).toBeUndefined();
      // What the server received in params._meta is this span's context.
      expect(run.stdout).toContain(`"traceparent":"00-${tool.traceId}-${tool.spanId}-01"`);
    }
    if (protocol === 'http/json') {
      expect([...receiver.metricNames]).toEqual(
        expect.arrayContaining([
          'gen_ai.client.token.usage',
          'gen_ai.client.operation.duration',
          'mcp.client.operation.duration',
          'mcphost.tool.calls',
        ]),
      );
    }
  });
});

describe('telemetry', () => {
  it('shows each attempt of a retried model call, the failed one with error.type', async () => {
    const ollama = await fixture.startModel([errorReply(503, 'overloaded'), textReply('fine')]);
    const run = await runCli(['-p', 'hello', '--provider-url', ollama.url], fixture.home.path, {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' },
    });
    expect(run.code).toBe(0);
    const agent = only(receiver.spans, 'invoke_agent');
    const chats = receiver.spans.filter((span) => span.name.startsWith('chat '));
    expect(
      chats.map((chat) => [chat.attributes['mcphost.attempt'], chat.attributes['error.type'] ?? null]),
    ).toEqual([
      [1, '503'],
      [2, null],
    ]);
    expect(chats[0]?.statusCode).toBe(2);
    for (const chat of chats) expect(chat.parentSpanId).toBe(agent.spanId);
  });

  it('joins the trace named by TRACEPARENT in its environment', async () => {
    const ollama = await fixture.startModel([textReply('joined')]);
    const parent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const run = await runCli(['-p', 'hello', '--provider-url', ollama.url], fixture.home.path, {
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        TRACEPARENT: parent,
      },
    });
    expect(run.code).toBe(0);
    const agent = only(receiver.spans, 'invoke_agent');
    expect(agent.traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(agent.parentSpanId).toBe('b7ad6b7169203331');
  });

  it('costs one warning line and about a second at most at exit when the collector is unreachable', async () => {
    const ollama = await fixture.startModel([textReply('still answered'), textReply('still answered')]);
    const closed = receiver.url;
    await receiver.close();
    receiver = await startOtlpReceiver(); // closed again in afterEach
    const timed = async (env: Record<string, string>) => {
      const started = Date.now();
      const run = await runCli(['-p', 'hello', '--provider-url', ollama.url], fixture.home.path, { env });
      return { run, elapsed: Date.now() - started };
    };
    const off = await timed({});
    const unreachable = await timed({
      OTEL_EXPORTER_OTLP_ENDPOINT: closed,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    });
    expect(unreachable.run.code).toBe(0);
    expect(unreachable.run.stdout).toContain('still answered');
    const warnings = unreachable.run.stderr.split('\n').filter((line) => line.includes('telemetry'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/could not export|did not finish/);
    // The exit waits at most EXPORT_AT_EXIT_MS (1 s) for the export; the slack is this shared machine's.
    expect(unreachable.elapsed - off.elapsed).toBeLessThan(2_000);
  });

  it('is off with OTEL_SDK_DISABLED=true', async () => {
    const ollama = await fixture.startModel([textReply('quiet')]);
    const run = await runCli(['-p', 'hello', '--provider-url', ollama.url], fixture.home.path, {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SDK_DISABLED: 'true' },
    });
    expect(run.code).toBe(0);
    expect(receiver.spans).toHaveLength(0);
  });
});
