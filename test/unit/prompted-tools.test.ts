/**
 * Prompted tool calling (src/core/tool-calling): the answer streamed out of the JSON as it comes,
 * the Runner's choice (capability, a vendor's refusal, `none`), and the sizes of the prompt and the
 * schema as the tools grow (1, 20, 150: the tool search's rules apply).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ToolCatalog } from '../../src/context/tool-catalog.js';
import { ProviderError } from '../../src/core/errors.js';
import type { RunnerEvent } from '../../src/core/events.js';
import { Runner } from '../../src/core/runner.js';
import { AnswerStream } from '../../src/core/tool-calling/answer-stream.js';
import { promptedRequest } from '../../src/core/tool-calling/prompted-provider.js';
import type { ChatRequest, ProviderEvent, ToolHost, ToolSpec } from '../../src/core/types.js';
import { FakeToolHost } from '../support/fake-tool-host.js';
import { ScriptedProvider, textReply } from '../support/scripted-provider.js';

/** A reply of a model under the format: `value` as JSON text in pieces of `size` characters. */
function jsonReply(value: unknown, size = 5): ProviderEvent[] {
  const text = JSON.stringify(value);
  const pieces = text.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g')) ?? [];
  return [
    ...pieces.map((piece): ProviderEvent => ({ type: 'text-delta', text: piece })),
    { type: 'finish', reason: 'stop', usage: { inputTokens: 10, outputTokens: 5 } },
  ];
}

function deltas(events: RunnerEvent[]): string[] {
  return events.flatMap((event) => (event.type === 'text-delta' ? [event.text] : []));
}

describe('the answer streamed out of the JSON', () => {
  it('gives exactly the answer string, whatever the chunking and escapes', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.array(fc.record({ name: fc.string(), arguments: fc.dictionary(fc.string(), fc.string()) }), {
          maxLength: 3,
        }),
        fc.integer({ min: 1, max: 9 }),
        fc.boolean(),
        (answer, calls, size, answerFirst) => {
          const value = answerFirst ? { answer, calls } : { calls, answer };
          const text = JSON.stringify(value, null, size % 2 === 0 ? 2 : undefined);
          const stream = new AnswerStream();
          let out = '';
          for (let at = 0; at < text.length; at += size) out += stream.push(text.slice(at, at + size));
          expect(out).toBe(answer);
          expect(stream.complete).toBe(true);
        },
      ),
    );
  });

  it('ignores an "answer" key nested in the arguments', () => {
    const stream = new AnswerStream();
    const text = JSON.stringify({ calls: [{ name: 'a', arguments: { answer: 'no' } }], answer: 'yes' });
    expect(stream.push(text)).toBe('yes');
  });
});

describe('the Runner with a model without tool calling', () => {
  const host = (): FakeToolHost =>
    new FakeToolHost({ fs__read: (input) => `content of ${String(input.path)}` });

  it('auto: calls by prompt when the provider says the model takes no tools, and streams only the answer', async () => {
    const provider = Object.assign(
      new ScriptedProvider([
        jsonReply({
          calls: [
            { name: 'fs__read', arguments: { path: 'a' } },
            { name: 'fs__read', arguments: { path: 'b' } },
          ],
          answer: '',
        }),
        jsonReply({ calls: [], answer: 'Both read.' }),
      ]),
      { supportsTools: async () => false },
    );
    const tools = host();
    const events: RunnerEvent[] = [];
    const runner = new Runner({ provider, tools });
    const result = await runner.run('read a and b', { onEvent: (event) => events.push(event) });
    expect(result.text).toBe('Both read.');
    expect(deltas(events).join('')).toBe('Both read.');
    expect(tools.calls.map((call) => call.input.path)).toEqual(['a', 'b']);
    expect(provider.requests.every((request) => request.tools.length === 0)).toBe(true);
    expect(provider.requests[0]?.responseFormat?.type).toBe('json-schema');
    expect(provider.requests[1]?.messages.at(-1)).toMatchObject({ role: 'user' });
    const mode = events.find((event) => event.type === 'tool-mode');
    expect(mode).toMatchObject({
      calling: { kind: 'prompt', reason: 'model-lacks-tools', model: 'scripted:test' },
    });
  });

  it('auto: turns to the prompt when the vendor refuses tools, and says why', async () => {
    const refusal = new ProviderError('openai', 'answered 400: tools param requires --jinja flag', {
      status: 400,
      retryable: false,
      toolsUnsupported: true,
    });
    const provider = new ScriptedProvider([{ error: refusal }, jsonReply({ calls: [], answer: 'Hello.' })]);
    const events: RunnerEvent[] = [];
    const result = await new Runner({ provider, tools: host() }).run('hi', {
      onEvent: (event) => events.push(event),
    });
    expect(result.text).toBe('Hello.');
    expect(provider.requests[0]?.tools.length).toBe(1);
    expect(provider.requests[1]?.tools.length).toBe(0);
    const modes = events.filter((event) => event.type === 'tool-mode');
    expect(modes.at(-1)).toMatchObject({ calling: { kind: 'prompt', reason: 'vendor-refused' } });
  });

  it('none: no tools are sent and a call written as text is not run', async () => {
    const call = '{"name": "fs__read", "arguments": {"path": "a"}}';
    const provider = new ScriptedProvider([textReply(call)]);
    const tools = host();
    const result = await new Runner({ provider, tools, toolCalling: 'none' }).run('hi');
    expect(result.text).toBe(call);
    expect(tools.calls).toHaveLength(0);
    expect(provider.requests[0]?.tools).toEqual([]);
  });

  it('native on a model without tools: one line that says what to do', async () => {
    const provider = Object.assign(new ScriptedProvider([]), { supportsTools: async () => false });
    await expect(new Runner({ provider, tools: host(), toolCalling: 'native' }).run('hi')).rejects.toThrow(
      /scripted:test has no tool calling in scripted; use --tool-calling prompt, a model with tools such as qwen3 or llama3.1, or --tool-calling none/,
    );
  });

  it('an unknown tool is answered with an error, and after three such steps the model gets no tools', async () => {
    const bad = jsonReply({ calls: [{ name: 'fs__nope', arguments: {} }], answer: '' });
    const provider = new ScriptedProvider([bad, bad, bad, jsonReply({ calls: [], answer: 'Sorry.' })]);
    const result = await new Runner({ provider, tools: host(), toolCalling: 'prompt' }).run('hi');
    expect(result.text).toBe('Sorry.');
    expect(JSON.stringify(provider.requests[1]?.messages.at(-1))).toContain('Unknown tool \\"fs__nope\\"');
    expect(provider.requests[3]?.responseFormat).toMatchObject({
      schema: { properties: { answer: { type: 'string' } }, required: ['answer'] },
    });
  });
});

/** `count` tools shaped like real servers' (a few parameters and a sentence of description). */
function manyTools(count: number): ToolSpec[] {
  return Array.from({ length: count }, (_, index) => ({
    name: `server${index % 7}__tool_${index}`,
    description:
      `Does thing number ${index} with the given path and options; returns the result as text. `.repeat(3),
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'where' },
        depth: { type: 'integer', minimum: 0 },
        mode: { type: 'string', enum: ['fast', 'slow'] },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['path'],
    },
  }));
}

describe('sizes as the tools grow (an Ollama model with a 32k window)', () => {
  const recorded: Array<{
    tools: number;
    offered: number;
    promptCharacters: number;
    schemaCharacters: number;
  }> = [];

  for (const count of [1, 20, 150]) {
    it(`${count} tools: the prompt and the format schema stay bounded`, () => {
      const tools = manyTools(count);
      const host: ToolHost = {
        tools: async () => tools,
        call: async () => {
          throw new Error('not called');
        },
      };
      const step = new ToolCatalog().select(host, tools, {
        provider: 'ollama',
        window: { tokens: 32_768, source: 'provider' },
      });
      const request: ChatRequest = {
        messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
        tools: step.offered,
        settings: {},
      };
      const sent = promptedRequest(request);
      const schema = sent.responseFormat?.type === 'json-schema' ? sent.responseFormat.schema : {};
      const size = {
        tools: count,
        offered: step.offered.length,
        promptCharacters: sent.system?.length ?? 0,
        schemaCharacters: JSON.stringify(schema).length,
      };
      recorded.push(size);
      console.info(`prompted tool calling sizes: ${JSON.stringify(size)}`);
      expect(size.promptCharacters).toBeLessThan(16_000);
      expect(size.schemaCharacters).toBeLessThan(9_000);
      if (count === 150) {
        expect(step.mode.kind).toBe('search');
        expect(sent.system).toContain('tool_search');
      }
      if (count === 20) {
        // Past the per-tool bound: names as an enum, arguments an object checked after the fact.
        const items = JSON.stringify(schema);
        expect(items).toContain('"arguments":{"type":"object"}');
      }
    });
  }
});
