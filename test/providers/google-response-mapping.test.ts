/** fromGeminiStream, toFinishReason and toGeminiError: from the @google/genai client's answers and errors to ours. */
import { ApiError } from '@google/genai';
import { describe, expect, it } from 'vitest';
import {
  fromGeminiStream,
  toFinishReason,
  toGeminiError,
  type GeminiErrorContext,
} from '../../providers/google.js';
import { AbortedError, ProviderError } from '../../src/core/errors.js';
import type { ProviderEvent } from '../../src/core/types.js';

async function collect(
  chunks: readonly unknown[],
  createId?: () => string,
  signal?: AbortSignal,
): Promise<ProviderEvent[]> {
  const events: ProviderEvent[] = [];
  async function* source() {
    yield* chunks;
  }
  const options = { ...(createId ? { createId } : {}), ...(signal ? { signal } : {}) };
  for await (const event of fromGeminiStream(source(), options)) events.push(event);
  return events;
}

async function streamFailure(chunks: readonly unknown[]): Promise<ProviderError> {
  const error: unknown = await collect(chunks).then(
    () => expect.fail('the stream should have failed'),
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

const chunk = (parts: unknown[], finishReason?: string, usage?: Record<string, number>) => ({
  candidates: [{ content: { role: 'model', parts }, ...(finishReason ? { finishReason } : {}) }],
  ...(usage ? { usageMetadata: usage } : {}),
});

describe('fromGeminiStream', () => {
  it("reports Gemini's cached prompt tokens (counted in the input too)", async () => {
    const usage = { promptTokenCount: 900, candidatesTokenCount: 4, cachedContentTokenCount: 768 };
    const events = await collect([chunk([{ text: 'hi' }], 'STOP', usage)]);
    expect(events.at(-1)).toEqual({
      type: 'finish',
      reason: 'stop',
      usage: { inputTokens: 900, outputTokens: 4, cacheReadInputTokens: 768 },
    });
  });

  it('streams text deltas and finishes with the last usage, not a sum', async () => {
    const usage = { promptTokenCount: 10, candidatesTokenCount: 4, thoughtsTokenCount: 3 };
    const events = await collect([
      chunk([{ text: 'Hel' }], undefined, usage),
      chunk([{ text: 'lo' }], 'STOP', usage),
    ]);
    expect(events).toEqual([
      { type: 'text-delta', text: 'Hel' },
      { type: 'text-delta', text: 'lo' },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 10, outputTokens: 7 } },
    ]);
  });

  it('makes ids for parallel calls, keeps a Gemini id and the thought signature', async () => {
    let next = 0;
    const events = await collect(
      [
        chunk([
          { functionCall: { name: 'a', args: { x: 1 } }, thoughtSignature: 'sig-1' },
          { functionCall: { name: 'b', args: {} } },
        ]),
        chunk([{ functionCall: { id: 'given', name: 'c' } }], 'STOP'),
      ],
      () => `made-${++next}`,
    );
    expect(events).toEqual([
      {
        type: 'tool-call',
        call: {
          type: 'tool-call',
          id: 'made-1',
          name: 'a',
          input: { x: 1 },
          providerMetadata: { google: { thoughtSignature: 'sig-1' } },
        },
      },
      { type: 'tool-call', call: { type: 'tool-call', id: 'made-2', name: 'b', input: {} } },
      {
        type: 'tool-call',
        call: {
          type: 'tool-call',
          id: 'given',
          name: 'c',
          input: {},
          providerMetadata: { google: { functionCallId: 'given' } },
        },
      },
      { type: 'finish', reason: 'tool-calls' },
    ]);
  });

  it('gives thought summaries as reasoning, and skips empty text', async () => {
    const events = await collect([
      chunk(
        [{ text: 'thinking…', thought: true }, { text: '', thoughtSignature: 's' }, { text: 'ok' }],
        'STOP',
      ),
    ]);
    expect(events).toEqual([
      { type: 'reasoning-delta', text: 'thinking…' },
      { type: 'text-delta', text: 'ok' },
      { type: 'finish', reason: 'stop' },
    ]);
  });

  it('reports a blocked prompt as content-filter', async () => {
    expect(await collect([{ promptFeedback: { blockReason: 'SAFETY' } }])).toEqual([
      { type: 'finish', reason: 'content-filter' },
    ]);
  });

  it('makes a stream that ends without a finish reason a retryable cut-off error', async () => {
    const error = await streamFailure([chunk([{ text: 'The answer is' }])]);
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('the stream ended before the answer was complete');
    // Tool calls do not make a cut stream whole: more calls (or text) may have been on the way.
    expect((await streamFailure([chunk([{ functionCall: { name: 'a', args: {} } }])])).retryable).toBe(true);
    expect((await streamFailure([])).retryable).toBe(true);
  });

  it('makes a cancelled stream that ended quietly an AbortedError, not a cut', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      collect([chunk([{ text: 'The ans' }])], undefined, controller.signal),
    ).rejects.toBeInstanceOf(AbortedError);
  });

  it.each([
    ['MALFORMED_FUNCTION_CALL', 'produced a malformed function call'],
    ['UNEXPECTED_TOOL_CALL', 'called a tool it was not offered'],
    ['TOO_MANY_TOOL_CALLS', 'made too many tool calls in a row'],
  ])('makes finish reason %s a retryable error saying the model %s', async (finishReason, says) => {
    const error = await streamFailure([
      { candidates: [{ finishReason, finishMessage: 'Malformed function call: print(x(' }] },
    ]);
    expect(error.retryable).toBe(true);
    expect(error.message).toBe(
      `the Gemini model ${says}: finish reason ${finishReason} (Malformed function call: print(x()`,
    );
  });

  it('refuses a malformed chunk with a non-retryable ProviderError', async () => {
    const error: unknown = await collect([{ candidates: [{ content: { parts: [{ text: 42 }] } }] }]).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).retryable).toBe(false);
    expect((error as ProviderError).message).toMatch(/unexpected answer from the Gemini API/);
  });
});

describe('toFinishReason', () => {
  it.each([
    ['STOP', false, 'stop'],
    ['STOP', true, 'tool-calls'],
    ['MAX_TOKENS', false, 'length'],
    ['SAFETY', false, 'content-filter'],
    ['RECITATION', false, 'content-filter'],
    ['PROHIBITED_CONTENT', false, 'content-filter'],
    ['OTHER', false, 'other'],
    ['LANGUAGE', false, 'other'],
    [undefined, false, 'other'],
  ] as const)('%s (calls: %s) → %s', (reason, calledTools, expected) => {
    expect(toFinishReason(reason, calledTools)).toBe(expected);
  });
});

describe('toGeminiError', () => {
  const context: GeminiErrorContext = { baseUrl: 'http://gemini.test', keySource: 'GEMINI_API_KEY' };
  const apiError = (status: number, body: unknown) => new ApiError({ status, message: JSON.stringify(body) });
  const asProviderError = (error: unknown): ProviderError => {
    expect(error).toBeInstanceOf(ProviderError);
    return error as ProviderError;
  };

  it('takes the retry delay from RetryInfo, or from Retry-After first', () => {
    const body = {
      error: {
        code: 429,
        message: 'Quota exceeded',
        status: 'RESOURCE_EXHAUSTED',
        details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '31.5s' }],
      },
    };
    const fromBody = asProviderError(toGeminiError(apiError(429, body), context));
    expect(fromBody).toMatchObject({ status: 429, retryable: true, retryAfterMs: 31_500 });
    expect(fromBody.message).toBe('Gemini API error 429 (RESOURCE_EXHAUSTED): Quota exceeded');
    const headers = new Headers({ 'retry-after': '4' });
    expect(toGeminiError(apiError(429, body), { ...context, headers })).toMatchObject({ retryAfterMs: 4000 });
  });

  it('reads an error sent inside the stream', () => {
    const inStream = new ApiError({
      status: 503,
      message:
        'got status: UNAVAILABLE. {"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}',
    });
    expect(toGeminiError(inStream, context)).toMatchObject({
      retryable: true,
      message: 'Gemini API error 503 (UNAVAILABLE): The model is overloaded.',
    });
  });

  it('names the key variable when the key is refused, including the 400 API_KEY_INVALID', () => {
    const invalid = {
      error: {
        code: 400,
        message: 'API key not valid.',
        status: 'INVALID_ARGUMENT',
        details: [{ reason: 'API_KEY_INVALID' }],
      },
    };
    expect(toGeminiError(apiError(400, invalid), context).message).toMatch(
      /check GEMINI_API_KEY or pass --provider-api-key/,
    );
    expect(
      toGeminiError(apiError(403, { error: { message: 'denied' } }), {
        ...context,
        keySource: 'GOOGLE_API_KEY',
      }).message,
    ).toMatch(/check GOOGLE_API_KEY/);
    const other = toGeminiError(
      apiError(400, { error: { code: 400, message: 'bad', status: 'INVALID_ARGUMENT' } }),
      context,
    );
    expect(other).toMatchObject({
      retryable: false,
      message: 'Gemini API error 400 (INVALID_ARGUMENT): bad',
    });
  });

  it('maps statuses to the shared retry policy', () => {
    for (const [status, retryable] of [
      [408, true],
      [409, true],
      [500, true],
      [504, true],
      [400, false],
      [401, false],
      [404, false],
    ] as const) {
      expect(
        asProviderError(toGeminiError(apiError(status, { error: { message: 'x' } }), context)).retryable,
      ).toBe(retryable);
    }
  });

  it('maps network failures and cancellation', () => {
    const reset = new TypeError('fetch failed', {
      cause: Object.assign(new Error('socket'), { code: 'ECONNRESET' }),
    });
    expect(toGeminiError(reset, context)).toMatchObject({
      retryable: true,
      message: 'cannot reach the Gemini API at http://gemini.test (ECONNRESET)',
    });
    const refused = new TypeError('fetch failed', {
      cause: Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }),
    });
    expect(toGeminiError(refused, context)).toMatchObject({ retryable: false });
    const abort = new DOMException('This operation was aborted', 'AbortError');
    expect(toGeminiError(abort, context)).toBeInstanceOf(AbortedError);
    const controller = new AbortController();
    controller.abort();
    expect(toGeminiError(new Error('terminated'), { ...context, signal: controller.signal })).toBeInstanceOf(
      AbortedError,
    );
  });
});
