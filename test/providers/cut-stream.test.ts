/**
 * A stream the server closes cleanly before the answer is complete, through the real SDKs and the
 * Runner: it must fail the run, never come back as a normal answer (`stopReason: 'end'`).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { GoogleProvider } from '../../providers/google.js';
import { OpenAIProvider } from '../../providers/openai.js';
import { ProviderError } from '../../src/core/errors.js';
import { Runner } from '../../src/core/runner.js';
import type { Provider } from '../../src/core/types.js';
import { FAKE_GEMINI_KEY, startFakeGemini, textAnswer } from '../fakes/gemini-server.js';
import { startFakeOpenAI } from '../fakes/openai-server.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A fake whose first reply is cut after `text` and whose second is a whole answer. */
interface CutFake {
  readonly provider: Provider;
  requestCount(): number;
}

async function openAI(text: string): Promise<CutFake> {
  const fake = await startFakeOpenAI([
    { type: 'cut', text },
    { type: 'text', text: 'The answer is 42.' },
  ]);
  closers.push(() => fake.close());
  return {
    provider: new OpenAIProvider({ model: 'gpt-test', baseUrl: fake.url, apiKey: 'sk-test', env: {} }),
    requestCount: () => fake.requests.length,
  };
}

async function gemini(text: string): Promise<CutFake> {
  const parts = text === '' ? [] : [{ type: 'text' as const, text }];
  const fake = await startFakeGemini([{ type: 'cut', parts }, textAnswer('The answer is 42.')]);
  closers.push(() => fake.close());
  return {
    provider: new GoogleProvider({
      model: 'gemini-2.5-flash',
      baseUrl: fake.url,
      env: { GEMINI_API_KEY: FAKE_GEMINI_KEY },
    }),
    requestCount: () => fake.requests.length,
  };
}

const noSleep = async (): Promise<void> => undefined;

describe.each([
  ['openai', openAI],
  ['google', gemini],
])('a cut stream from %s through the Runner', (_, start) => {
  it('fails the run once text was shown, instead of ending it as an answer', async () => {
    const fake = await start('The answer is');
    const runner = new Runner({ provider: fake.provider, sleep: noSleep });
    const error: unknown = await runner.run('What is the answer?').then(
      (result) => expect.fail(`the run should have failed, got ${JSON.stringify(result)}`),
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).message).toContain('the stream ended before the answer was complete');
    // Shown text cannot be taken back, so the cut answer is not retried.
    expect(fake.requestCount()).toBe(1);
  });

  it('retries a stream cut before anything arrived, like any retryable failure', async () => {
    const fake = await start('');
    const runner = new Runner({ provider: fake.provider, sleep: noSleep });
    const result = await runner.run('What is the answer?');
    expect(result).toMatchObject({ text: 'The answer is 42.', stopReason: 'end' });
    expect(fake.requestCount()).toBe(2);
  });
});
