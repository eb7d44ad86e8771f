/**
 * OpenTelemetry end to end: the built CLI exports to an OTLP/HTTP receiver on loopback (JSON and
 * protobuf), a fake Ollama answers through the real `ollama` client, and a fixture MCP server
 * answers with the `_meta` of its call, so the `traceparent` it received is checked against the
 * `execute_tool` span.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorReply, textReply, toolCallReply } from '../fakes/ollama-server.js';
import { REPOSITORY, runCli } from '../support/cli.js';
import { useCliFixture } from '../support/cli-fixture.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { unwrapped } from '../support/untrusted.js';
import { unusedPort } from '../support/loopback.js';
import { modulesRunBy } from '../support/modules-run.js';

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
    // The model's address, from the provider's base URL (the fake Ollama on loopback).
    const ollamaPort = Number(new URL(ollama.url).port);
    for (const chat of chats) {
      expect(chat.attributes).toMatchObject({ 'server.address': '127.0.0.1', 'server.port': ollamaPort });
    }
    // The server's start: a CLIENT span of its own (it began before the run, so not under it).
    const start = spans.find(
      (span) =>
        span.attributes['mcp.method.name'] !== 'tools/call' &&
        span.attributes['mcphost.mcp.server'] === 'echo',
    );
    expect(start?.name).toBe('initialize');
    expect(start?.kind).toBe(3);
    expect(start?.attributes).toMatchObject({
      'mcp.method.name': 'initialize',
      'network.transport': 'pipe',
      'mcphost.mcp.restart': false,
      'mcphost.mcp.tool_count': 1,
    });
    expect(start?.attributes['mcp.protocol.version']).toEqual(expect.any(String));
    expect(start?.attributes['error.type']).toBeUndefined();
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

  it('still exports what happened when the runner cannot be assembled (no API key)', async () => {
    await fixture.home.writeConfig({ mcpServers: { echo: { command: 'node', args: [META_ECHO] } } });
    const run = await runCli(['-p', 'hello', '-m', 'anthropic:claude-sonnet-4-5'], fixture.home.path, {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' },
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('ANTHROPIC_API_KEY');
    // The server had started before the model's set-up failed: its span went out before the exit.
    const start = only(receiver.spans, 'initialize');
    expect(start.attributes['mcphost.mcp.server']).toBe('echo');
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

/** server-everything in its Streamable HTTP mode on a free loopback port, once it listens. */
async function startHttpEverything(): Promise<{ url: string; port: number; child: ChildProcess }> {
  const port = await unusedPort();
  const entry = join(
    dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')),
    'dist',
    'index.js',
  );
  const child = spawn(process.execPath, [entry, 'streamableHttp'], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  await new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
      if (stderr.includes(String(port))) resolve();
    });
    child.once('exit', (code) => reject(new Error(`server-everything exited (${code}): ${stderr}`)));
  });
  return { url: `http://127.0.0.1:${port}/mcp`, port, child };
}

describe('telemetry of a Streamable HTTP server, hooks and the screen', () => {
  it('puts the session id on the start and the call, and the hook run and the screen under the call', async () => {
    const server = await startHttpEverything();
    try {
      await fixture.home.writeConfig({
        mcpServers: { everything: { type: 'http', url: server.url } },
        hooks: { PreToolUse: [{ matcher: 'echo', hooks: [{ type: 'command', command: 'true' }] }] },
      });
      const ollama = await fixture.startModel([
        toolCallReply(['everything__echo', { message: 'traced' }]),
        textReply('echoed'),
      ]);
      const run = await runCli(['-p', 'echo it', '--provider-url', ollama.url], fixture.home.path, {
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' },
      });
      expect(run.stderr).not.toContain('telemetry:');
      expect(run.code).toBe(0);
      const spans = receiver.spans;
      const tool = only(spans, 'execute_tool everything__echo');
      const start = spans.find(
        (span) => span.kind === 3 && span.attributes['mcphost.mcp.server'] === 'everything' && span !== tool,
      );
      expect(start?.attributes).toMatchObject({
        'network.transport': 'tcp',
        'network.protocol.name': 'http',
        'server.address': '127.0.0.1',
        'server.port': server.port,
      });
      const version = start?.attributes['mcp.protocol.version'];
      expect(version).toEqual(expect.any(String));
      expect(start?.name).toBe((version as string) >= '2026-07-28' ? 'server/discover' : 'initialize');
      expect(tool.attributes).toMatchObject({ 'network.transport': 'tcp', 'mcp.protocol.version': version });
      // server-everything is a stateful (2025-11-25) Streamable HTTP server: it gives a session id,
      // and the call carries the same.
      const sessionId = start?.attributes['mcp.session.id'];
      expect(sessionId).toEqual(expect.any(String));
      expect(tool.attributes['mcp.session.id']).toBe(sessionId);
      const hook = only(spans, 'hook PreToolUse');
      expect(hook.parentSpanId).toBe(tool.spanId);
      expect(hook.attributes).toMatchObject({
        'gen_ai.tool.call.id': tool.attributes['gen_ai.tool.call.id'],
        'mcphost.hook.event': 'PreToolUse',
        'mcphost.outcome': 'none',
      });
      const screen = only(spans, 'screen');
      expect(screen.parentSpanId).toBe(tool.spanId);
      expect(screen.attributes['mcphost.outcome']).toBe('clean');
    } finally {
      server.child.kill('SIGKILL');
    }
  });
});

describe('telemetry off', () => {
  it('runs no OpenTelemetry module (API, SDK or exporter) and none of src/telemetry; on, it does', async () => {
    await fixture.home.writeConfig({ mcpServers: { echo: { command: 'node', args: [META_ECHO] } } });
    const ollama = await fixture.startModel([
      toolCallReply(['echo__meta', { n: 1 }]),
      textReply('off'),
      toolCallReply(['echo__meta', { n: 1 }]),
      textReply('on'),
    ]);
    const args = ['-p', 'hello', '--provider-url', ollama.url];
    const off = await modulesRunBy(args, fixture.home.path);
    expect(off.run.code).toBe(0);
    // The record holds the run's MCP client and tool call: an absence below means "did not run".
    expect(off.modules).toContain('@modelcontextprotocol/client');
    // Only the two pure modules that decide, without OpenTelemetry, that nothing is exported.
    const deciding = new Set(['src/telemetry/registered.js', 'src/telemetry/export-settings.js']);
    const openTelemetry = (modules: ReadonlySet<string>) =>
      [...modules].filter(
        (name) =>
          name.startsWith('@opentelemetry/') || (name.startsWith('src/telemetry/') && !deciding.has(name)),
      );
    expect(openTelemetry(off.modules)).toEqual([]);
    const on = await modulesRunBy(args, fixture.home.path, {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' },
    });
    expect(on.run.code).toBe(0);
    expect(openTelemetry(on.modules)).toEqual(
      expect.arrayContaining([
        '@opentelemetry/sdk-trace-base',
        '@opentelemetry/api',
        'src/telemetry/run-telemetry.js',
      ]),
    );
    expect(receiver.spans.length).toBeGreaterThan(0);
  });
});
