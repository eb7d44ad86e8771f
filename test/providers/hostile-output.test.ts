/**
 * Hostile model output through the real SDKs, the Runner and vendor fakes that refuse what the
 * real services refuse (Anthropic: unique ids matching `^[a-zA-Z0-9_-]+$`; OpenAI: string ids and
 * string arguments). Duplicate, empty and malformed ids, bad names and bad arguments must give
 * error results (never a tool run) and a next request the vendor accepts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../../providers/anthropic.js';
import { GoogleProvider } from '../../providers/google.js';
import { OllamaProvider } from '../../providers/ollama.js';
import { OpenAIProvider } from '../../providers/openai.js';
import { VALID_TOOL_CALL_ID } from '../../src/core/model-output.js';
import { Runner } from '../../src/core/runner.js';
import type { Provider, ToolResultBlock } from '../../src/core/types.js';
import { startFakeAnthropic, textAnswer as anthropicText } from '../fakes/anthropic-server.js';
import { FAKE_GEMINI_KEY, startFakeGemini, textAnswer as geminiText } from '../fakes/gemini-server.js';
import { startFakeOllama, textReply } from '../fakes/ollama-server.js';
import { startFakeOpenAI } from '../fakes/openai-server.js';
import { FakeToolHost } from '../support/fake-tool-host.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const noSleep = async (): Promise<void> => undefined;

/** Runs one turn whose first answer is hostile; returns the results and the fake's request count. */
async function runHostile(provider: Provider, host: FakeToolHost) {
  const runner = new Runner({ provider, tools: host, sleep: noSleep });
  const result = await runner.run('go');
  const results = result.messages.flatMap((message) => (message.role === 'tool' ? message.content : []));
  return { result, results, history: runner.history };
}

function textOf(result: ToolResultBlock | undefined): string {
  return (result?.content ?? []).map((block) => (block.type === 'text' ? block.text : '')).join('');
}

function expectValidIds(history: Runner['history']): void {
  const ids = history.flatMap((message) =>
    message.role === 'assistant'
      ? message.content.flatMap((block) => (block.type === 'tool-call' ? [block.id] : []))
      : [],
  );
  for (const id of ids) expect(id).toMatch(VALID_TOOL_CALL_ID);
  expect(new Set(ids).size).toBe(ids.length);
}

/** The Google provider against a fake Gemini at `url`. */
function geminiAt(url: string): GoogleProvider {
  return new GoogleProvider({
    model: 'gemini-2.5-flash',
    baseUrl: url,
    env: { GEMINI_API_KEY: FAKE_GEMINI_KEY },
  });
}

describe('Anthropic: duplicate and malformed tool_use ids', () => {
  it('runs each valid call once under a host-made id; the next request is accepted', async () => {
    const fake = await startFakeAnthropic([
      {
        type: 'answer',
        content: [
          { type: 'tool_use', id: 'toolu_1', name: 'echo', input: { text: 'a' } },
          { type: 'tool_use', id: 'toolu_1', name: 'echo', input: { text: 'b' } },
          { type: 'tool_use', id: 'bad id!', name: 'echo', input: { text: 'c' } },
          { type: 'tool_use', id: 'toolu_2', name: '', input: {} },
          { type: 'tool_use', id: 'toolu_3', name: 'ec\u202eho', input: {} },
          { type: 'tool_use', id: 'toolu_4', name: 'echo', fragments: ['[1,2]'] },
        ],
      },
      anthropicText('done'),
    ]);
    closers.push(() => fake.close());
    const host = new FakeToolHost({ echo: (input) => String(input.text) });
    const provider = new AnthropicProvider({ model: 'claude-test', apiKey: 'k', baseUrl: fake.url, env: {} });
    const { result, results, history } = await runHostile(provider, host);
    expect(result.text).toBe('done');
    expect(fake.requests.map((request) => request.rejected)).toEqual([undefined, undefined]);
    expect(host.calls.map((call) => call.input.text)).toEqual(['a', 'b', 'c']);
    expect(results.map((item) => item.isError)).toEqual([false, false, false, true, true, true]);
    expect(textOf(results[3])).toContain('(empty)');
    expect(textOf(results[4])).toContain('\\u202e');
    expectValidIds(history);
  });
});

describe('Anthropic: a tool_use block without an id', () => {
  it('runs the call under a host-made id instead of failing the turn; the next request is accepted', async () => {
    // Found by the CLI fuzz run: this ended in exit 3 ("a tool_use block needs a string id").
    const fake = await startFakeAnthropic([
      {
        type: 'events',
        events: [
          {
            type: 'content_block_start',
            index: 0,
            content_block: { type: 'tool_use', name: 'echo', input: {} },
          },
          {
            type: 'content_block_delta',
            index: 0,
            delta: { type: 'input_json_delta', partial_json: '{"text":"a"}' },
          },
          { type: 'content_block_stop', index: 0 },
          { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 3 } },
          { type: 'message_stop' },
        ],
      },
      anthropicText('done'),
    ]);
    closers.push(() => fake.close());
    const host = new FakeToolHost({ echo: (input) => String(input.text) });
    const provider = new AnthropicProvider({ model: 'claude-test', apiKey: 'k', baseUrl: fake.url, env: {} });
    const { result, results, history } = await runHostile(provider, host);
    expect(result.text).toBe('done');
    expect(fake.requests.map((request) => request.rejected)).toEqual([undefined, undefined]);
    expect(host.calls.map((call) => call.input.text)).toEqual(['a']);
    expect(results.map((item) => [item.isError, textOf(item)])).toEqual([[false, 'a']]);
    expectValidIds(history);
  });
});

describe('OpenAI: missing, empty and repeated ids, arguments that are not an object', () => {
  it('answers every call and keeps the next request valid', async () => {
    const fake = await startFakeOpenAI([
      {
        type: 'tool-calls',
        calls: [
          { id: 'call_1', name: 'echo', arguments: '{"text":"a"}' },
          { id: 'call_1', name: 'echo', arguments: '{"text":"b"}' },
          { id: '', name: 'echo', arguments: '"just a string"' },
          { id: 'call_3', name: 'echo', arguments: 'not json' },
        ],
      },
      { type: 'text', text: 'done' },
    ]);
    closers.push(() => fake.close());
    const host = new FakeToolHost({ echo: (input) => String(input.text) });
    const provider = new OpenAIProvider({ model: 'gpt-test', baseUrl: fake.url, apiKey: 'sk-test', env: {} });
    const { result, results, history } = await runHostile(provider, host);
    expect(result.text).toBe('done');
    expect(fake.requests).toHaveLength(2);
    expect(host.calls.map((call) => call.input.text)).toEqual(['a', 'b']);
    expect(results.map((item) => item.isError)).toEqual([false, false, true, true]);
    expectValidIds(history);
  });
});

describe('Gemini: repeated ids and arguments nested thousands of levels deep', () => {
  it('refuses the deep call, answers the rest, and the next request is accepted', async () => {
    let deep: Record<string, unknown> = {};
    for (let level = 0; level < 3000; level++) deep = { inner: deep };
    const fake = await startFakeGemini(
      [
        {
          type: 'answer',
          parts: [
            { type: 'function-call', name: 'echo', id: 'same', args: { text: 'a' } },
            { type: 'function-call', name: 'echo', id: 'same', args: { text: 'b' } },
            { type: 'function-call', name: 'echo', args: deep },
          ],
        },
        geminiText('done'),
      ],
      {},
    );
    closers.push(() => fake.close());
    const host = new FakeToolHost({ echo: (input) => String(input.text) });
    const provider = geminiAt(fake.url);
    const { result, results, history } = await runHostile(provider, host);
    expect(result.text).toBe('done');
    expect(host.calls.map((call) => call.input.text)).toEqual(['a', 'b']);
    expect(results[2]).toMatchObject({ isError: true });
    expect(textOf(results[2])).toContain('levels deep');
    expectValidIds(history);
  });
});

describe('Gemini: arguments that are not an object', () => {
  it('answers those calls with an error and runs the rest; the next request is accepted', async () => {
    // Found by the CLI fuzz run: a list, string, number or boolean as args failed the whole answer
    // (exit 3, "expected record"), where the other vendors answer such a call with an error result.
    const notAnObject = (value: unknown) => value as Readonly<Record<string, unknown>>;
    const fake = await startFakeGemini([
      {
        type: 'answer',
        parts: [
          { type: 'function-call', name: 'echo', args: notAnObject([1, 2]) },
          { type: 'function-call', name: 'echo', args: { text: 'a' } },
          { type: 'function-call', name: 'echo', args: notAnObject('text') },
          { type: 'function-call', name: 'echo', args: notAnObject(7) },
        ],
      },
      geminiText('done'),
    ]);
    closers.push(() => fake.close());
    const host = new FakeToolHost({ echo: (input) => String(input.text) });
    const provider = geminiAt(fake.url);
    const { result, results, history } = await runHostile(provider, host);
    expect(result.text).toBe('done');
    expect(fake.requests.map((request) => request.rejected)).toEqual([undefined, undefined]);
    expect(host.calls.map((call) => call.input.text)).toEqual(['a']);
    expect(results.map((item) => item.isError)).toEqual([true, false, true, true]);
    expect(textOf(results[0])).toBe(
      'The arguments for echo were not a JSON object, so the tool was not run. Received: [1,2]',
    );
    expect(textOf(results[2])).toContain('Received: "text"');
    expectValidIds(history);
  });
});

describe('Ollama: a name with control characters and arguments that are a list', () => {
  it('never reaches the tool host', async () => {
    const fake = await startFakeOllama([
      {
        type: 'answer',
        toolCalls: [
          { name: 'echo\u0007', arguments: { text: 'x' } },
          { name: 'echo', arguments: [1, 2] },
          { name: 'echo', arguments: { text: 'ok' } },
        ],
      },
      textReply('done'),
    ]);
    closers.push(() => fake.close());
    const host = new FakeToolHost({ echo: (input) => String(input.text) });
    const provider = new OllamaProvider({ model: 'qwen2.5:3b', baseUrl: fake.url, env: {} });
    const { result, results, history } = await runHostile(provider, host);
    expect(result.text).toBe('done');
    expect(host.calls.map((call) => call.input.text)).toEqual(['ok']);
    expect(results.map((item) => item.isError)).toEqual([true, true, false]);
    expectValidIds(history);
  });
});

describe('Gemini: a connection dropped mid-answer', () => {
  it('is described as a cut stream, not as an unreachable API', async () => {
    const fake = await startFakeGemini([{ type: 'drop', parts: [{ type: 'text', text: 'The answer' }] }]);
    closers.push(() => fake.close());
    const provider = geminiAt(fake.url);
    const runner = new Runner({ provider, sleep: noSleep });
    const error = await runner.run('go').then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(String(error)).toMatch(/cut off before it finished/);
    expect(String(error)).not.toMatch(/cannot reach/);
  });
});
