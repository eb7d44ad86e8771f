/**
 * Bring your own model and tools: a `Provider` and a `ToolHost` are two small interfaces.
 * This one needs no network, no key and no MCP server.
 *
 *   npm run build && node --import tsx examples/custom-provider.ts
 */
import {
  Runner,
  type ChatRequest,
  type Provider,
  type ProviderEvent,
  type ToolCallBlock,
  type ToolHost,
  type ToolResultBlock,
  type ToolSpec,
} from 'mcphost';

/** A "model" that asks for the clock once, then answers with what the tool said. */
class ClockWatcher implements Provider {
  readonly name = 'example';
  readonly model = 'clock-watcher';

  async *chat(request: ChatRequest): AsyncIterable<ProviderEvent> {
    const last = request.messages.at(-1);
    if (last?.role === 'tool') {
      const said = last.content.flatMap((result) => result.content).find((block) => block.type === 'text');
      yield {
        type: 'text-delta',
        text: `The tool says it is ${said?.type === 'text' ? said.text : 'unclear'}.`,
      };
      yield { type: 'finish', reason: 'stop', usage: { inputTokens: 12, outputTokens: 9 } };
      return;
    }
    yield {
      type: 'tool-call',
      call: { type: 'tool-call', id: 'call_1', name: 'clock__now', input: { zone: 'UTC' } },
    };
    yield { type: 'finish', reason: 'tool-calls' };
  }
}

/** Tools that are plain functions instead of MCP servers. */
class ClockTools implements ToolHost {
  async tools(): Promise<readonly ToolSpec[]> {
    return [
      {
        name: 'clock__now',
        description: 'The current time',
        inputSchema: { type: 'object', properties: { zone: { type: 'string' } } },
      },
    ];
  }

  async call(call: ToolCallBlock): Promise<ToolResultBlock> {
    const time = new Date().toISOString().slice(11, 16);
    return {
      type: 'tool-result',
      toolCallId: call.id,
      toolName: call.name,
      content: [
        { type: 'text', text: `${time} ${typeof call.input.zone === 'string' ? call.input.zone : 'UTC'}` },
      ],
      isError: false,
    };
  }
}

const runner = new Runner({ provider: new ClockWatcher(), tools: new ClockTools() });
for await (const event of runner.stream('What time is it?')) {
  if (event.type === 'tool-call') console.log(`[calling ${event.call.name}]`);
  if (event.type === 'text-delta') process.stdout.write(event.text);
  if (event.type === 'done') console.log(`\n[${event.result.steps} steps]`);
}
