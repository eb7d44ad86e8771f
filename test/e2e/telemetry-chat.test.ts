/**
 * OpenTelemetry from the chat (not `-p`): the built CLI reads a turn from its piped stdin, and in a
 * real terminal (tmux) from the keyboard; the fake Ollama asks for a tool of the real memory server
 * from npm, and the chat ends at the end of stdin or at Ctrl-D. The turn's trace is at the OTLP
 * receiver on loopback when the process has exited, nothing waited for after.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { textReply, toolCallReply } from '../fakes/ollama-server.js';
import { npmServerConfig, runCli } from '../support/cli.js';
import { useChatTerminal } from '../support/chat-terminal.js';
import { tmuxAvailable } from '../support/tmux.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';

const hasTmux = tmuxAvailable();
if (!hasTmux)
  console.warn('tmux is not installed: skipping the chat telemetry terminal test (apt-get install tmux)');

const fixture = useChatTerminal();
const PROMPT_TEXT = 'what do you remember?';
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

describe('the chat with telemetry', () => {
  it('exports a turn with a tool call as one trace before it exits at the end of stdin', async () => {
    const ollama = await setUp();
    const run = await runCli(['--provider-url', ollama.url], fixture.home.path, {
      stdin: `${PROMPT_TEXT}\n`,
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' },
    });
    expect(run.stderr).not.toContain('telemetry:');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('The graph is empty.');
    // Exported before the process exited: the receiver is read at once.
    expectTurnTrace(receiver.spans);
  });

  it.skipIf(!hasTmux)('exports a turn typed in a terminal before it exits at Ctrl-D', async () => {
    await setUp();
    const chat = await fixture.startChat({
      args: ['--no-color'],
      columns: 160,
      ready: 'mistral-small',
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' },
    });
    chat.type(PROMPT_TEXT);
    chat.keys('Enter');
    const screen = await chat.waitFor('The graph is empty.');
    expect(screen).not.toContain('telemetry:');
    chat.keys('C-d');
    expect(await chat.waitForExit()).toBe(0);
    expectTurnTrace(receiver.spans);
  });
});

/** The real memory server from npm, and a model that calls its read_graph tool, then answers. */
async function setUp(): Promise<{ readonly url: string }> {
  await fixture.home.writeConfig({
    mcpServers: {
      memory: {
        ...npmServerConfig('memory'),
        env: { MEMORY_FILE_PATH: join(fixture.home.path, 'memory.jsonl') },
      },
    },
  });
  return fixture.startModel([toolCallReply(['memory__read_graph', {}]), textReply('The graph is empty.')]);
}

/** One trace: invoke_agent, its two chat spans and the tool call's execute_tool span under it. */
function expectTurnTrace(spans: readonly ReceivedSpan[]): void {
  const agent = only(spans, 'invoke_agent');
  expect(agent.parentSpanId).toBe('');
  expect(agent.attributes).toMatchObject({
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.provider.name': 'ollama',
    'gen_ai.request.model': 'mistral-small',
  });
  const chats = spans.filter((span) => span.name === 'chat mistral-small');
  expect(chats.map((chat) => chat.attributes['gen_ai.response.finish_reasons'])).toEqual([
    ['tool_calls'],
    ['stop'],
  ]);
  for (const chat of chats) {
    expect(chat.traceId).toBe(agent.traceId);
    expect(chat.parentSpanId).toBe(agent.spanId);
  }
  const tool = only(spans, 'execute_tool memory__read_graph');
  expect(tool.traceId).toBe(agent.traceId);
  expect(tool.parentSpanId).toBe(agent.spanId);
  expect(tool.attributes).toMatchObject({
    'gen_ai.tool.name': 'memory__read_graph',
    'mcp.method.name': 'tools/call',
    'network.transport': 'pipe',
    'mcphost.mcp.server': 'memory',
  });
  expect(tool.attributes['error.type']).toBeUndefined();
  // The prompt is not recorded unless asked.
  expect(JSON.stringify(spans)).not.toContain(PROMPT_TEXT);
}
