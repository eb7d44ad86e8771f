/**
 * Reasoning streamed apart from the answer, through each vendor's real SDK client against its
 * loopback fake, in the vendor's own wire form: Ollama's `message.thinking`, Anthropic's thinking
 * block (`thinking_delta`, then its `signature_delta`), Gemini's thought parts, and the
 * OpenAI-compatible `reasoning_content` (DeepSeek, vLLM) and `reasoning` (OpenRouter, Ollama's /v1)
 * deltas. Each run calls a tool, then answers: the reasoning of both steps comes as
 * `reasoning-delta` events, is never in the answer's text or the history, and is not sent back.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../../providers/anthropic.js';
import { GoogleProvider } from '../../providers/google.js';
import { OllamaProvider } from '../../providers/ollama.js';
import { OpenAIProvider } from '../../providers/openai.js';
import type { RunnerEvent } from '../../src/core/events.js';
import { Runner } from '../../src/core/runner.js';
import type { Provider } from '../../src/core/types.js';
import { startFakeAnthropic } from '../fakes/anthropic-server.js';
import { FAKE_GEMINI_KEY, startFakeGemini } from '../fakes/gemini-server.js';
import { startFakeOllama } from '../fakes/ollama-server.js';
import { startFakeOpenAI } from '../fakes/openai-server.js';
import { FakeToolHost } from '../support/fake-tool-host.js';

const FIRST_THOUGHT = 'The user wants the population; ';
const FIRST_THOUGHT_MORE = 'I should look it up first.';
const SECOND_THOUGHT = 'The tool said 522,000.';
const ANSWER = 'Lyon has about 522,000 people.';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

interface Observed {
  readonly reasoning: string;
  readonly text: string;
  readonly history: string;
  /** The order of the first reasoning and the first text event of the last step. */
  readonly reasoningFirst: boolean;
}

async function runWith(provider: Provider): Promise<Observed> {
  const tools = new FakeToolHost({ atlas__lookup: () => 'Lyon: 522,000 people' });
  const runner = new Runner({ provider, tools });
  const events: RunnerEvent[] = [];
  const result = await runner.run('How many people live in Lyon?', {
    onEvent: (event) => events.push(event),
  });
  const reasoning = events.map((event) => (event.type === 'reasoning-delta' ? event.text : '')).join('');
  const kinds = events.map((event) => event.type);
  const lastStep = kinds.lastIndexOf('step-start');
  const tail = kinds.slice(lastStep);
  return {
    reasoning,
    text: result.text,
    history: JSON.stringify(runner.history),
    reasoningFirst: tail.indexOf('reasoning-delta') < tail.indexOf('text-delta'),
  };
}

function expectReasoningApart(observed: Observed, sentBack: string): void {
  expect(observed.reasoning).toBe(FIRST_THOUGHT + FIRST_THOUGHT_MORE + SECOND_THOUGHT);
  expect(observed.reasoningFirst).toBe(true);
  expect(observed.text).toBe(ANSWER);
  for (const thought of [FIRST_THOUGHT, SECOND_THOUGHT]) {
    expect(observed.history).not.toContain(thought);
    // The second request carries the first step's turn: its reasoning is not in it.
    expect(sentBack).not.toContain(thought.trim());
  }
}

describe('reasoning streamed apart from the answer', () => {
  it('Ollama: message.thinking lines before the content', async () => {
    const fake = await startFakeOllama(
      [
        {
          type: 'answer',
          thinking: [FIRST_THOUGHT, FIRST_THOUGHT_MORE],
          toolCalls: [{ name: 'atlas__lookup', arguments: {} }],
        },
        { type: 'answer', thinking: [SECOND_THOUGHT], text: ['Lyon has about ', '522,000 people.'] },
      ],
      { models: ['qwen3:4b'] },
    );
    closers.push(() => fake.close());
    const provider = new OllamaProvider({ model: 'qwen3:4b', baseUrl: fake.url, env: {} });
    const observed = await runWith(provider);
    expectReasoningApart(observed, JSON.stringify(fake.chatRequests.at(-1)));
  });

  it('Anthropic: a thinking block (thinking_delta, signature_delta) before the text', async () => {
    const fake = await startFakeAnthropic([
      {
        type: 'answer',
        content: [
          {
            type: 'thinking',
            thinking: FIRST_THOUGHT + FIRST_THOUGHT_MORE,
            chunks: [FIRST_THOUGHT, FIRST_THOUGHT_MORE],
          },
          { type: 'tool_use', id: 'toolu_1', name: 'atlas__lookup', input: {} },
        ],
      },
      {
        type: 'answer',
        content: [
          { type: 'thinking', thinking: SECOND_THOUGHT },
          { type: 'text', text: ANSWER },
        ],
      },
    ]);
    closers.push(() => fake.close());
    const provider = new AnthropicProvider({
      model: 'claude-sonnet-4-5',
      apiKey: 'k',
      baseUrl: fake.url,
      env: {},
    });
    const observed = await runWith(provider);
    expectReasoningApart(observed, JSON.stringify(fake.requests.at(-1)?.body));
  });

  it('Gemini: thought parts before the answer', async () => {
    const fake = await startFakeGemini([
      {
        type: 'answer',
        parts: [
          { type: 'text', text: FIRST_THOUGHT, thought: true },
          { type: 'text', text: FIRST_THOUGHT_MORE, thought: true },
          { type: 'function-call', name: 'atlas__lookup', args: {} },
        ],
      },
      {
        type: 'answer',
        parts: [
          { type: 'text', text: SECOND_THOUGHT, thought: true },
          { type: 'text', text: ANSWER },
        ],
      },
    ]);
    closers.push(() => fake.close());
    const provider = new GoogleProvider({
      model: 'gemini-2.5-flash',
      baseUrl: fake.url,
      env: { GEMINI_API_KEY: FAKE_GEMINI_KEY },
    });
    const observed = await runWith(provider);
    expectReasoningApart(observed, JSON.stringify(fake.requests.at(-1)?.body));
  });

  for (const field of ['reasoning_content', 'reasoning'] as const) {
    it(`OpenAI-compatible: ${field} deltas before the content`, async () => {
      const fake = await startFakeOpenAI([
        {
          type: 'tool-calls',
          calls: [{ id: 'call_1', name: 'atlas__lookup', arguments: '{}' }],
          reasoning: FIRST_THOUGHT + FIRST_THOUGHT_MORE,
          reasoningField: field,
        },
        { type: 'text', text: ANSWER, reasoning: SECOND_THOUGHT, reasoningField: field },
      ]);
      closers.push(() => fake.close());
      const provider = new OpenAIProvider({
        model: 'deepseek-reasoner',
        baseUrl: fake.url,
        apiKey: 'k',
        env: {},
      });
      const observed = await runWith(provider);
      expectReasoningApart(observed, JSON.stringify(fake.requests.at(-1)?.body));
    });
  }
});
