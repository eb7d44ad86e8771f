/** The real @google/genai client against the loopback Gemini fake. */
import { afterEach, describe, expect, it } from 'vitest';
import { GoogleProvider } from '../../providers/google.js';
import { AbortedError, ConfigError, ProviderError } from '../../src/core/errors.js';
import type { ChatRequest, Message, ProviderEvent, ToolCallBlock, ToolSpec } from '../../src/core/types.js';
import {
  FAKE_GEMINI_KEY,
  startFakeGemini,
  textAnswer,
  type FakeGemini,
  type FakeGeminiOptions,
  type FakeGeminiScript,
} from '../fakes/gemini-server.js';
import { CONVERSATION, SYSTEM_PROMPT, TOOLS } from '../fixtures/conversation.js';
import { unusedPort } from '../support/loopback.js';

const MODEL = 'gemini-2.5-flash';
let fake: FakeGemini | undefined;

afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function start(
  script: FakeGeminiScript,
  options?: FakeGeminiOptions,
): Promise<{ fake: FakeGemini; provider: GoogleProvider }> {
  fake = await startFakeGemini(script, options);
  const provider = new GoogleProvider({
    model: MODEL,
    baseUrl: fake.url,
    env: { GEMINI_API_KEY: FAKE_GEMINI_KEY },
  });
  return { fake, provider };
}

const ask = (text: string, overrides: Partial<ChatRequest> = {}): ChatRequest => ({
  messages: [{ role: 'user', content: [{ type: 'text', text }] }],
  tools: TOOLS,
  settings: {},
  ...overrides,
});

async function collect(provider: GoogleProvider, request: ChatRequest): Promise<ProviderEvent[]> {
  const events: ProviderEvent[] = [];
  for await (const event of provider.chat(request)) events.push(event);
  return events;
}

async function failure(provider: GoogleProvider, request: ChatRequest): Promise<unknown> {
  return collect(provider, request).then(
    () => expect.fail('the call should have failed'),
    (error: unknown) => error,
  );
}

function asProviderError(error: unknown): ProviderError {
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

const callsOf = (events: readonly ProviderEvent[]): ToolCallBlock[] =>
  events.flatMap((event) => (event.type === 'tool-call' ? [event.call] : []));

type Json = Record<string, unknown>;
const bodyOf = (server: FakeGemini, index: number): Json => server.requests[index]?.body as Json;

describe('GoogleProvider against the Gemini fake', () => {
  it('streams text as it comes and finishes with usage', async () => {
    const { fake, provider } = await start([
      {
        type: 'answer',
        parts: [
          { type: 'text', text: 'Hello' },
          { type: 'text', text: ', world' },
        ],
        usage: { promptTokenCount: 21, candidatesTokenCount: 6 },
      },
    ]);
    const events = await collect(
      provider,
      ask('Say hello', { system: SYSTEM_PROMPT, settings: { temperature: 0.1 } }),
    );
    expect(events).toEqual([
      { type: 'text-delta', text: 'Hello' },
      { type: 'text-delta', text: ', world' },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 21, outputTokens: 6 } },
    ]);
    const recorded = fake.requests[0];
    expect(recorded).toMatchObject({ method: 'streamGenerateContent', model: MODEL });
    expect(recorded?.query.get('alt')).toBe('sse');
    expect(recorded?.headers['x-goog-api-key']).toBe(FAKE_GEMINI_KEY);
    expect(bodyOf(fake, 0)).toMatchObject({
      systemInstruction: { parts: [{ text: SYSTEM_PROMPT }] },
      generationConfig: { temperature: 0.1 },
    });
  });

  it('sends the shared conversation in a form the API accepts', async () => {
    const { fake, provider } = await start([textAnswer('Summary.')]);
    const settings = { maxTokens: 300, temperature: 0.5, topP: 0.8, topK: 20, stopSequences: ['STOP!'] };
    await collect(provider, { system: SYSTEM_PROMPT, messages: CONVERSATION, tools: TOOLS, settings });
    expect(fake.requests[0]?.rejected).toBeUndefined();
    const body = bodyOf(fake, 0);
    expect(body.generationConfig).toEqual({
      maxOutputTokens: 300,
      temperature: 0.5,
      topP: 0.8,
      topK: 20,
      stopSequences: ['STOP!'],
    });
    const contents = body.contents as Array<{ role: string }>;
    expect(contents.map((content) => content.role)).toEqual([
      'user',
      'model',
      'user',
      'model',
      'user',
      'model',
      'user',
    ]);
    const wire = JSON.stringify(body.tools);
    expect(wire).not.toMatch(/\$schema|"default"|uri-reference/);
  });

  it('sends a type array (a nullable argument) as it is, through parametersJsonSchema', async () => {
    // Gemini's JSON Schema field takes `type` as JSON Schema does, arrays included; only the older
    // OpenAPI-subset `parameters` field (which we do not use) rejects them.
    const { fake, provider } = await start([textAnswer('ok')]);
    const nullable = {
      name: 'files__head',
      description: 'first lines',
      inputSchema: { type: 'object', properties: { head: { type: ['number', 'null'] } } },
    };
    await collect(provider, ask('go', { tools: [nullable] }));
    expect(fake.requests[0]?.rejected).toBeUndefined();
    const declarations = (bodyOf(fake, 0).tools as Array<{ functionDeclarations: Json[] }>)[0]
      ?.functionDeclarations;
    expect(declarations?.[0]).toMatchObject({
      name: 'files__head',
      parametersJsonSchema: { type: 'object', properties: { head: { type: ['number', 'null'] } } },
    });
    expect(declarations?.[0]).not.toHaveProperty('parameters');
  });

  it('gives parallel function calls distinct ids and reports tool-calls', async () => {
    const { provider } = await start([
      {
        type: 'answer',
        parts: [
          { type: 'text', text: 'Doing both.' },
          { type: 'function-call', name: 'everything__echo', args: { message: 'hi' } },
          { type: 'function-call', name: 'filesystem__read_file', args: { path: '/tmp/a.txt' } },
        ],
      },
    ]);
    const events = await collect(provider, ask('Echo hi and read /tmp/a.txt'));
    const calls = callsOf(events);
    expect(calls.map((call) => [call.name, call.input])).toEqual([
      ['everything__echo', { message: 'hi' }],
      ['filesystem__read_file', { path: '/tmp/a.txt' }],
    ]);
    expect(calls[0]?.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(calls[1]?.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(calls[0]?.id).not.toBe(calls[1]?.id);
    expect(events.at(-1)).toMatchObject({ type: 'finish', reason: 'tool-calls' });
  });

  it('round-trips Gemini 3 thought signatures through the next call', async () => {
    const { fake, provider } = await start(
      [
        {
          type: 'answer',
          parts: [
            { type: 'function-call', name: 'everything__echo', args: { message: 'a' } },
            { type: 'function-call', name: 'everything__echo', args: { message: 'b' } },
          ],
        },
        textAnswer('Both echoed.'),
      ],
      { gemini3: true },
    );
    const first = ask('Echo a and b');
    const calls = callsOf(await collect(provider, first));
    // Gemini 3 signs the first call of a step only.
    expect(calls[0]?.providerMetadata).toEqual({ google: { thoughtSignature: 'c2lnbmF0dXJl-1' } });
    expect(calls[1]?.providerMetadata).toBeUndefined();
    const history: Message[] = [
      ...first.messages,
      { role: 'assistant', content: calls },
      {
        role: 'tool',
        content: calls.map((call) => ({
          type: 'tool-result' as const,
          toolCallId: call.id,
          toolName: call.name,
          content: [{ type: 'text' as const, text: `Echo: ${String(call.input.message)}` }],
          isError: false,
        })),
      },
    ];
    const events = await collect(provider, { ...first, messages: history });
    expect(fake.requests[1]?.rejected).toBeUndefined();
    expect(events[0]).toEqual({ type: 'text-delta', text: 'Both echoed.' });
    const modelTurn = (bodyOf(fake, 1).contents as Array<{ parts: Json[] }>)[1];
    expect(modelTurn?.parts[0]?.thoughtSignature).toBe('c2lnbmF0dXJl-1');

    // The same history without the signature is what the real API refuses.
    const stripped = history.map((message) =>
      message.role === 'assistant'
        ? {
            ...message,
            content: message.content.map((block) =>
              block.type === 'tool-call' ? { ...block, providerMetadata: {} } : block,
            ),
          }
        : message,
    );
    const error = asProviderError(await failure(provider, { ...first, messages: stripped }));
    expect(error).toMatchObject({ status: 400, retryable: false });
    expect(error.message).toMatch(/missing a thought_signature/);
  });

  it('uses the id Gemini gives a call and sends it back with the response', async () => {
    const { fake, provider } = await start([
      {
        type: 'answer',
        parts: [{ type: 'function-call', id: 'fc-42', name: 'everything__echo', args: { message: 'x' } }],
      },
      textAnswer('done'),
    ]);
    const first = ask('Echo x');
    const [call] = callsOf(await collect(provider, first));
    expect(call?.id).toBe('fc-42');
    const tool: Message = {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'fc-42',
          toolName: 'everything__echo',
          content: [{ type: 'text', text: 'x' }],
          isError: false,
        },
      ],
    };
    await collect(provider, {
      ...first,
      messages: [...first.messages, { role: 'assistant', content: [call!] }, tool],
    });
    const contents = bodyOf(fake, 1).contents as Array<{ parts: Json[] }>;
    expect(contents[1]?.parts[0]).toEqual({
      functionCall: { id: 'fc-42', name: 'everything__echo', args: { message: 'x' } },
    });
    expect(contents[2]?.parts[0]).toEqual({
      functionResponse: { id: 'fc-42', name: 'everything__echo', response: { output: 'x' } },
    });
  });

  it.each([
    ['MAX_TOKENS', 'length'],
    ['SAFETY', 'content-filter'],
    ['OTHER', 'other'],
  ] as const)('maps finish reason %s to %s', async (finishReason, reason) => {
    const { provider } = await start([
      { type: 'answer', parts: [{ type: 'text', text: 'Cut' }], finishReason },
    ]);
    const events = await collect(provider, ask('Write a lot', { settings: { maxTokens: 1 } }));
    expect(events.at(-1)).toEqual({ type: 'finish', reason, usage: { inputTokens: 12, outputTokens: 5 } });
  });

  it('reports a stream closed cleanly after some text as a retryable cut-off answer', async () => {
    const { provider } = await start([{ type: 'cut', parts: [{ type: 'text', text: 'The answer is' }] }]);
    const events: ProviderEvent[] = [];
    let caught: unknown;
    try {
      for await (const event of provider.chat(ask('What is it?'))) events.push(event);
    } catch (error) {
      caught = error;
    }
    expect(events).toEqual([{ type: 'text-delta', text: 'The answer is' }]);
    const error = asProviderError(caught);
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('the stream ended before the answer was complete');
  });

  it.each([
    ['MALFORMED_FUNCTION_CALL', 'produced a malformed function call'],
    ['UNEXPECTED_TOOL_CALL', 'called a tool it was not offered'],
  ])('reports finish reason %s as a retryable error, not an empty answer', async (finishReason, says) => {
    const finishMessage = 'Malformed function call: print(default_api.everything__echo(message=))';
    const { provider } = await start([{ type: 'answer', parts: [], finishReason, finishMessage }]);
    const error = asProviderError(await failure(provider, ask('Echo something')));
    expect(error.retryable).toBe(true);
    // The SDK drops `finishMessage` for the Gemini API, so the reason is all there is to say.
    expect(error.message).toBe(`the Gemini model ${says}: finish reason ${finishReason}`);
  });

  it('reports a blocked prompt as content-filter', async () => {
    const { provider } = await start([{ type: 'blocked', blockReason: 'PROHIBITED_CONTENT' }]);
    expect((await collect(provider, ask('…'))).at(-1)).toMatchObject({
      type: 'finish',
      reason: 'content-filter',
    });
  });
});

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
    fake = await startFakeGemini([textAnswer('no')]);
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

describe('GoogleProvider configuration', () => {
  it('refuses to start without a key, before any request, naming the variables', async () => {
    fake = await startFakeGemini([textAnswer('no')]);
    const create = () =>
      new GoogleProvider({ model: MODEL, baseUrl: fake!.url, env: { GEMINI_API_KEY: '  ' } });
    expect(create).toThrow(ConfigError);
    expect(create).toThrow(
      'GEMINI_API_KEY: is not set (nor GOOGLE_API_KEY); export it or pass --provider-api-key',
    );
    expect(fake.requests).toHaveLength(0);
  });

  it('prefers --provider-api-key, then GEMINI_API_KEY, then GOOGLE_API_KEY', async () => {
    fake = await startFakeGemini(() => textAnswer('ok'));
    const keyOf = async (apiKey: string | undefined, env: Record<string, string>) => {
      const provider = new GoogleProvider({
        model: MODEL,
        baseUrl: fake!.url,
        env,
        ...(apiKey ? { apiKey } : {}),
      });
      await collect(provider, ask('hi')).catch(() => undefined);
      return fake!.requests.at(-1)?.headers['x-goog-api-key'];
    };
    expect(await keyOf('from-flag', { GEMINI_API_KEY: 'gemini', GOOGLE_API_KEY: 'google' })).toBe(
      'from-flag',
    );
    expect(await keyOf(undefined, { GEMINI_API_KEY: 'gemini', GOOGLE_API_KEY: 'google' })).toBe('gemini');
    expect(await keyOf(undefined, { GOOGLE_API_KEY: 'google' })).toBe('google');
  });

  it('takes the base URL from GOOGLE_GEMINI_BASE_URL, and uses the injected fetch', async () => {
    fake = await startFakeGemini([textAnswer('via env')]);
    const seen: string[] = [];
    const provider = new GoogleProvider({
      model: MODEL,
      env: { GEMINI_API_KEY: FAKE_GEMINI_KEY, GOOGLE_GEMINI_BASE_URL: `${fake.url}/` },
      fetch: async (input, init) => {
        seen.push(input instanceof Request ? input.url : String(input));
        return fetch(input, init);
      },
    });
    expect(provider.baseUrl).toBe(fake.url);
    expect(await collect(provider, ask('hi'))).toContainEqual({ type: 'text-delta', text: 'via env' });
    expect(seen).toEqual([`${fake.url}/v1beta/models/${MODEL}:streamGenerateContent?alt=sse`]);
  });
});
