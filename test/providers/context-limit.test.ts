/**
 * Each vendor's real "too long" refusal, from the loopback fakes enforcing a context limit, through
 * the real vendor SDK: the provider marks it `contextLength`, and the Runner compacts once and the
 * conversation carries on from the summary. Ollama does not refuse (it cuts the prompt in silence),
 * so mcphost reads its window from `/api/show` and keeps within it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../../providers/anthropic.js';
import { GoogleProvider } from '../../providers/google.js';
import { OllamaProvider } from '../../providers/ollama.js';
import { OpenAIProvider } from '../../providers/openai.js';
import { SUMMARY_HEADING, SUMMARY_TEMPLATE } from '../../src/context/compaction.js';
import { ProviderError } from '../../src/core/errors.js';
import type { RunnerEvent } from '../../src/core/events.js';
import { Runner } from '../../src/core/runner.js';
import type { Message, Provider } from '../../src/core/types.js';
import { startFakeAnthropic, textAnswer as anthropicText } from '../fakes/anthropic-server.js';
import { FAKE_GEMINI_KEY, startFakeGemini, textAnswer as geminiText } from '../fakes/gemini-server.js';
import { startFakeOllama, textReply } from '../fakes/ollama-server.js';
import { startFakeOpenAI } from '../fakes/openai-server.js';

const LIMIT = 1_500;

/** Ten old turns of about 800 characters each: over {@link LIMIT} of the fakes' tokens together. */
const LONG_HISTORY: Message[] = Array.from({ length: 10 }, (_, turn): Message[] => [
  { role: 'user', content: [{ type: 'text', text: `question ${turn}: ${'tell me more '.repeat(30)}` }] },
  { role: 'assistant', content: [{ type: 'text', text: `answer ${turn}: ${'here is more '.repeat(30)}` }] },
]).flat();

/** Whether a vendor request (its recorded body) is the summarizer's: it carries the template. */
const summarizing = (body: unknown): boolean => JSON.stringify(body).includes(SUMMARY_TEMPLATE.slice(0, 60));

/**
 * The refused part is larger than the window the refusal teaches, so it is summarized in parts:
 * more than one summary request, none refused, and every old turn (the first question, the task,
 * included) in one of them.
 */
function expectEveryTurnSummarized(
  requests: ReadonlyArray<{ body: unknown; rejected?: unknown }>,
  events: readonly RunnerEvent[],
): void {
  const summaries = requests.filter((request) => summarizing(request.body));
  expect(summaries.length).toBeGreaterThan(1);
  expect(summaries.filter((request) => request.rejected !== undefined)).toEqual([]);
  const asked = summaries.map((request) => JSON.stringify(request.body)).join('\n');
  const compaction = events.find((event) => event.type === 'compaction');
  const replaced = compaction?.type === 'compaction' ? compaction.replacedMessages : 0;
  // The replaced turns (the recent ones are kept as they are): at least the first half.
  expect(replaced).toBeGreaterThanOrEqual(LONG_HISTORY.length / 2);
  for (let turn = 0; turn < replaced / 2; turn++) {
    expect(asked).toContain(`question ${turn}:`);
    expect(asked).toContain(`answer ${turn}:`);
  }
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** The summary, then the carried-on answer; the first request is refused by the fake. */
async function expectCompactionAndRetry(provider: Provider): Promise<RunnerEvent[]> {
  // The table says 200k/1M tokens: only the vendor's refusal can tell the runner otherwise.
  const events: RunnerEvent[] = [];
  const runner = new Runner({ provider, history: LONG_HISTORY });
  const done = await runner.run('and now?', { onEvent: (event) => events.push(event) });
  expect(done.text).toBe('carried on');
  expect(events.filter((event) => event.type === 'compaction')).toEqual([
    expect.objectContaining({ reason: 'context-length', summary: 'SUMMARY' }),
  ]);
  const first = runner.history[0]?.content[0];
  expect(first?.type === 'text' && first.text).toBe(`${SUMMARY_HEADING}\n\nSUMMARY`);
  expect(runner.history.at(-2)).toEqual({ role: 'user', content: [{ type: 'text', text: 'and now?' }] });
  expect(runner.contextUsage?.window.source).toBe('refusal');
  return events;
}

describe("each vendor's context-length refusal", () => {
  it('Anthropic: 400 "prompt is too long: N tokens > LIMIT maximum"', async () => {
    const fake = await startFakeAnthropic(
      (request) => anthropicText(summarizing(request.body) ? 'SUMMARY' : 'carried on'),
      { contextLimitTokens: LIMIT },
    );
    closers.push(() => fake.close());
    const provider = new AnthropicProvider({
      model: 'claude-sonnet-4-5',
      baseUrl: fake.url,
      apiKey: 'k',
      env: {},
    });
    const events = await expectCompactionAndRetry(provider);
    expect(fake.requests[0]?.rejected?.message).toMatch(/^prompt is too long: \d+ tokens > 1500 maximum$/);
    expect(fake.requests.filter((request) => request.rejected !== undefined)).toHaveLength(1);
    expectEveryTurnSummarized(fake.requests, events);
  });

  it('OpenAI: 400 context_length_exceeded ("This model\'s maximum context length is …")', async () => {
    const fake = await startFakeOpenAI(
      (request) => ({ type: 'text', text: summarizing(request.body) ? 'SUMMARY' : 'carried on' }),
      { contextLimitTokens: LIMIT },
    );
    closers.push(() => fake.close());
    const provider = new OpenAIProvider({ model: 'gpt-4o', baseUrl: fake.url, apiKey: 'k', env: {} });
    const events = await expectCompactionAndRetry(provider);
    // The refused request, the summary parts, the carried-on answer.
    const summaries = fake.requests.filter((request) => summarizing(request.body)).length;
    expect(fake.requests).toHaveLength(summaries + 2);
    expectEveryTurnSummarized(fake.requests, events);
  });

  it('Gemini: 400 INVALID_ARGUMENT "The input token count (N) exceeds the maximum number of tokens allowed"', async () => {
    const fake = await startFakeGemini(
      (request) => geminiText(summarizing(request.body) ? 'SUMMARY' : 'carried on'),
      { contextLimitTokens: LIMIT },
    );
    closers.push(() => fake.close());
    const provider = new GoogleProvider({
      model: 'gemini-2.5-flash',
      baseUrl: fake.url,
      env: { GEMINI_API_KEY: FAKE_GEMINI_KEY },
    });
    const events = await expectCompactionAndRetry(provider);
    expect(fake.requests[0]?.rejected?.message).toMatch(
      /^The input token count \(\d+\) exceeds the maximum number/,
    );
    expectEveryTurnSummarized(fake.requests, events);
  });

  it('without automatic compaction the refusal is the error, marked contextLength', async () => {
    const fake = await startFakeAnthropic([], { contextLimitTokens: LIMIT });
    closers.push(() => fake.close());
    const provider = new AnthropicProvider({
      model: 'claude-sonnet-4-5',
      baseUrl: fake.url,
      apiKey: 'k',
      env: {},
    });
    const runner = new Runner({ provider, history: LONG_HISTORY, context: { autoCompact: false } });
    const error = await runner.run('and now?').catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ status: 400, contextLength: true, retryable: false });
    expect(runner.history).toEqual(LONG_HISTORY);
  });
});

describe('Ollama', () => {
  it('reads num_ctx from /api/show and compacts before the prompt would be cut in silence', async () => {
    // Summary requests (one or more parts) answer SUMMARY; the prompt's answer comes after.
    const fake = await startFakeOllama([], {
      numCtx: 2_048,
      fallback: (request) => textReply(summarizing(request.messages) ? 'SUMMARY' : 'carried on'),
    });
    closers.push(() => fake.close());
    const provider = new OllamaProvider({ model: 'llama3.2', baseUrl: fake.url, env: {} });
    expect(await provider.contextWindow()).toBe(2_048);
    const events: RunnerEvent[] = [];
    const runner = new Runner({ provider, history: LONG_HISTORY });
    const done = await runner.run('and now?', { onEvent: (event) => events.push(event) });
    expect(done.text).toBe('carried on');
    expect(events.filter((event) => event.type === 'compaction')).toEqual([
      expect.objectContaining({ reason: 'threshold' }),
    ]);
    expect(fake.truncatedChats).toEqual([]);
    expect(runner.contextUsage?.window).toEqual({ tokens: 2_048, source: 'provider' });
  });

  it('chooses the smaller of 32k and the trained length, and none when the server cannot say', async () => {
    const fake = await startFakeOllama([], { trainedContextLength: 131_072 });
    closers.push(() => fake.close());
    expect(await new OllamaProvider({ model: 'llama3.2', baseUrl: fake.url, env: {} }).contextWindow()).toBe(
      32_768,
    );
    expect(
      await new OllamaProvider({ model: 'not-pulled', baseUrl: fake.url, env: {} }).contextWindow(),
    ).toBeUndefined();
    const small = await startFakeOllama([], { trainedContextLength: 8_192 });
    closers.push(() => small.close());
    expect(await new OllamaProvider({ model: 'llama3.2', baseUrl: small.url, env: {} }).contextWindow()).toBe(
      8_192,
    );
  });

  it('sends the chosen window as num_ctx, and the budget uses the same figure', async () => {
    const fake = await startFakeOllama([textReply('one'), textReply('two')], {
      trainedContextLength: 16_384,
    });
    closers.push(() => fake.close());
    const chosen = new OllamaProvider({ model: 'llama3.2', baseUrl: fake.url, env: {} });
    const runner = new Runner({ provider: chosen });
    await runner.run('hi');
    expect(fake.chatRequests[0]?.options).toEqual({ num_ctx: 16_384 });
    expect(runner.contextUsage?.window).toEqual({ tokens: 16_384, source: 'provider' });
    // A window from the flag or config is sent as given, without asking /api/show.
    const given = new OllamaProvider({ model: 'llama3.2', baseUrl: fake.url, env: {}, contextWindow: 6_000 });
    expect(await given.contextWindow()).toBe(6_000);
    await new Runner({ provider: given, context: { contextWindow: 6_000 } }).run('hi');
    expect(fake.chatRequests[1]?.options).toEqual({ num_ctx: 6_000 });
    expect(fake.requests.filter((request) => request.path === '/api/show')).toHaveLength(1);
  });
});
