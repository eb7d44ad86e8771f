/** The real @google/genai client against the loopback Gemini fake: streaming, conversation mapping, configuration. */
import { afterEach, describe, expect, it } from 'vitest';
import { GoogleProvider } from '../../providers/google.js';
import { ConfigError } from '../../src/core/errors.js';
import type { Message, ProviderEvent } from '../../src/core/types.js';
import { FAKE_GEMINI_KEY, textAnswer } from '../fakes/gemini-server.js';
import { CONVERSATION, SYSTEM_PROMPT, TOOLS } from '../fixtures/conversation.js';
import {
  ask,
  asProviderError,
  bodyOf,
  callsOf,
  closeFake,
  collect,
  failure,
  MODEL,
  start,
  startFake,
  type Json,
} from '../support/google-provider-harness.js';

afterEach(closeFake);

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

describe('GoogleProvider configuration', () => {
  it('refuses to start without a key, before any request, naming the variables', async () => {
    const fake = await startFake([textAnswer('no')]);
    const create = () =>
      new GoogleProvider({ model: MODEL, baseUrl: fake.url, env: { GEMINI_API_KEY: '  ' } });
    expect(create).toThrow(ConfigError);
    expect(create).toThrow(
      'GEMINI_API_KEY: is not set (nor GOOGLE_API_KEY); export it or pass --provider-api-key',
    );
    expect(fake.requests).toHaveLength(0);
  });

  it('prefers --provider-api-key, then GEMINI_API_KEY, then GOOGLE_API_KEY', async () => {
    const fake = await startFake(() => textAnswer('ok'));
    const keyOf = async (apiKey: string | undefined, env: Record<string, string>) => {
      const provider = new GoogleProvider({
        model: MODEL,
        baseUrl: fake.url,
        env,
        ...(apiKey ? { apiKey } : {}),
      });
      await collect(provider, ask('hi')).catch(() => undefined);
      return fake.requests.at(-1)?.headers['x-goog-api-key'];
    };
    expect(await keyOf('from-flag', { GEMINI_API_KEY: 'gemini', GOOGLE_API_KEY: 'google' })).toBe(
      'from-flag',
    );
    expect(await keyOf(undefined, { GEMINI_API_KEY: 'gemini', GOOGLE_API_KEY: 'google' })).toBe('gemini');
    expect(await keyOf(undefined, { GOOGLE_API_KEY: 'google' })).toBe('google');
  });

  it('takes the base URL from GOOGLE_GEMINI_BASE_URL, and uses the injected fetch', async () => {
    const fake = await startFake([textAnswer('via env')]);
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
