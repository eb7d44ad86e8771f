/** The real @google/genai client against the loopback Gemini fake: how vendor errors, aborts and refusals surface. */
import { afterEach, describe, expect, it } from 'vitest';
import { GoogleProvider } from '../../providers/google.js';
import { AbortedError } from '../../src/core/errors.js';
import type { Message, ProviderEvent, ToolSpec } from '../../src/core/types.js';
import { textAnswer } from '../fakes/gemini-server.js';
import { CONVERSATION } from '../fixtures/conversation.js';
import { unusedPort } from '../support/loopback.js';
import {
  ask,
  asProviderError,
  closeFake,
  failure,
  MODEL,
  start,
  startFake,
} from '../support/google-provider-harness.js';

afterEach(closeFake);

describe('GoogleProvider errors', () => {
  it('makes a 429 retryable with the RetryInfo delay, and does not retry by itself', async () => {
    const { fake, provider } = await start([
      {
        type: 'error',
        code: 429,
        status: 'RESOURCE_EXHAUSTED',
        message: 'You exceeded your current quota, please check your plan and billing details.',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
            violations: [{ quotaMetric: 'generate_content_free_tier_requests' }],
          },
          { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '30s' },
        ],
      },
      textAnswer('never reached'),
    ]);
    const error = asProviderError(await failure(provider, ask('hi')));
    expect(error).toMatchObject({ provider: 'google', status: 429, retryable: true, retryAfterMs: 30_000 });
    expect(error.message).toBe(
      'Gemini API error 429 (RESOURCE_EXHAUSTED): You exceeded your current quota, please check your plan and billing details.',
    );
    expect(fake.requests).toHaveLength(1);
  });

  it('honours Retry-After on a 503 UNAVAILABLE', async () => {
    const { provider } = await start([
      {
        type: 'error',
        code: 503,
        status: 'UNAVAILABLE',
        message: 'The model is overloaded. Please try again later.',
        headers: { 'retry-after': '3' },
      },
    ]);
    expect(asProviderError(await failure(provider, ask('hi')))).toMatchObject({
      status: 503,
      retryable: true,
      retryAfterMs: 3000,
    });
  });

  it('maps an error sent inside the stream, after text', async () => {
    const { provider } = await start([
      {
        type: 'stream-error',
        parts: [{ type: 'text', text: 'Partial' }],
        code: 503,
        status: 'UNAVAILABLE',
        message: 'The service is currently unavailable.',
      },
    ]);
    const received: ProviderEvent[] = [];
    const error = await (async () => {
      for await (const event of provider.chat(ask('hi'))) received.push(event);
    })().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(received).toEqual([{ type: 'text-delta', text: 'Partial' }]);
    expect(asProviderError(error)).toMatchObject({
      status: 503,
      retryable: true,
      message: 'Gemini API error 503 (UNAVAILABLE): The service is currently unavailable.',
    });
  });

  it('fails fast on a 400 with the vendor message', async () => {
    const { provider } = await start([
      {
        type: 'error',
        code: 400,
        status: 'INVALID_ARGUMENT',
        message: 'Request contains an invalid argument.',
      },
    ]);
    const error = asProviderError(await failure(provider, ask('hi')));
    expect(error).toMatchObject({ status: 400, retryable: false });
    expect(error.message).toBe(
      'Gemini API error 400 (INVALID_ARGUMENT): Request contains an invalid argument.',
    );
  });

  it('names the key variable when the key is wrong', async () => {
    const fake = await startFake([textAnswer('no')]);
    const provider = new GoogleProvider({
      model: MODEL,
      baseUrl: fake.url,
      env: { GOOGLE_API_KEY: 'wrong' },
    });
    const error = asProviderError(await failure(provider, ask('hi')));
    expect(error).toMatchObject({ status: 400, retryable: false });
    expect(error.message).toBe(
      'Gemini API error 400 (INVALID_ARGUMENT): API key not valid. Please pass a valid API key. — check GOOGLE_API_KEY or pass --provider-api-key',
    );
  });

  it('says the model name may be wrong on 404', async () => {
    const { provider } = await start([textAnswer('no')], { models: ['gemini-2.5-pro'] });
    const error = asProviderError(await failure(provider, ask('hi')));
    expect(error).toMatchObject({ status: 404, retryable: false });
    expect(error.message).toMatch(/models\/gemini-2\.5-flash is not found.*check the model name/);
  });

  it('says where it could not connect, without retrying a refused connection', async () => {
    const url = `http://127.0.0.1:${await unusedPort()}`;
    const provider = new GoogleProvider({ model: MODEL, baseUrl: url, env: { GEMINI_API_KEY: 'k' } });
    const error = asProviderError(await failure(provider, ask('hi')));
    expect(error).toMatchObject({
      retryable: false,
      message: `cannot reach the Gemini API at ${url} (ECONNREFUSED)`,
    });
  });

  it('turns an abort mid-stream into AbortedError', async () => {
    const { fake, provider } = await start([{ type: 'stall', parts: [{ type: 'text', text: 'Once upon' }] }]);
    const controller = new AbortController();
    const received: ProviderEvent[] = [];
    const error = await (async () => {
      for await (const event of provider.chat(ask('Tell a story', { signal: controller.signal }))) {
        received.push(event);
        controller.abort();
      }
    })().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(received).toEqual([{ type: 'text-delta', text: 'Once upon' }]);
    expect(error).toBeInstanceOf(AbortedError);
    expect(fake.requests).toHaveLength(1);
  });

  it('does not call the API when already aborted', async () => {
    const { fake, provider } = await start([textAnswer('no')]);
    const controller = new AbortController();
    controller.abort();
    expect(await failure(provider, ask('hi', { signal: controller.signal }))).toBeInstanceOf(AbortedError);
    expect(fake.requests).toHaveLength(0);
  });

  it.each([
    [
      'a function name Gemini refuses',
      [{ name: '1st tool', description: '', inputSchema: { type: 'object' } }],
      /Invalid function name/,
    ],
    [
      'duplicate function names',
      [
        { name: 'twice', description: '', inputSchema: {} },
        { name: 'twice', description: '', inputSchema: {} },
      ],
      /Duplicate function declaration found: twice/,
    ],
  ] as const)(
    'surfaces %s as a non-retryable ProviderError',
    async (_case, tools: readonly ToolSpec[], message) => {
      const { fake, provider } = await start([textAnswer('no')]);
      const error = asProviderError(await failure(provider, ask('hi', { tools })));
      expect(error).toMatchObject({ status: 400, retryable: false });
      expect(error.message).toMatch(message);
      expect(fake.requests[0]?.rejected).toBeDefined();
    },
  );

  it('surfaces a function response count that does not match the calls as a non-retryable ProviderError', async () => {
    const { provider } = await start([textAnswer('no')]);
    const assistant = CONVERSATION[1];
    const tool = CONVERSATION[2];
    if (assistant?.role !== 'assistant' || tool?.role !== 'tool') throw new Error('fixture changed');
    const messages: Message[] = [
      CONVERSATION[0]!,
      assistant,
      { role: 'tool', content: tool.content.slice(0, 1) },
    ];
    const error = asProviderError(await failure(provider, ask('', { messages })));
    expect(error).toMatchObject({ status: 400, retryable: false });
    expect(error.message).toMatch(
      /number of function response parts is equal to the number of function call parts/,
    );
  });
});
