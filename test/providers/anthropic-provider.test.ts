/** The Anthropic provider, with the real SDK, against the loopback fake Messages API. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AnthropicProvider, DEFAULT_ANTHROPIC_BASE_URL } from '../../providers/anthropic.js';
import { AbortedError, ConfigError, ProviderError } from '../../src/core/errors.js';
import type { ChatRequest, ProviderEvent } from '../../src/core/types.js';
import { CONVERSATION, SYSTEM_PROMPT, TOOLS } from '../fixtures/conversation.js';
import {
  startFakeAnthropic,
  textAnswer,
  type FakeAnthropic,
  type FakeAnthropicScript,
} from '../fakes/anthropic-server.js';
import { unusedPort } from '../support/loopback.js';

let fake: FakeAnthropic | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function setUp(script: FakeAnthropicScript, warnings: string[] = []) {
  fake = await startFakeAnthropic(script);
  const provider = new AnthropicProvider({
    model: 'claude-sonnet-4-5',
    apiKey: 'sk-ant-test',
    baseUrl: fake.url,
    env: {},
    warn: (message) => warnings.push(message),
  });
  return { fake, provider };
}

const hello: ChatRequest = {
  messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
  tools: [],
  settings: {},
};

async function collect(provider: AnthropicProvider, request: ChatRequest = hello): Promise<ProviderEvent[]> {
  const events: ProviderEvent[] = [];
  for await (const event of provider.chat(request)) events.push(event);
  return events;
}

async function failure(provider: AnthropicProvider, request: ChatRequest = hello): Promise<unknown> {
  return collect(provider, request).then(
    () => expect.fail('the call should have failed'),
    (error: unknown) => error,
  );
}

describe('AnthropicProvider against the fake Messages API', () => {
  it('streams text as it arrives and finishes with usage', async () => {
    const { provider } = await setUp([
      {
        type: 'answer',
        content: [{ type: 'text', text: 'Hello there!', chunks: ['Hel', 'lo ', 'there!'] }],
        usage: { inputTokens: 11, outputTokens: 5 },
      },
    ]);
    expect(await collect(provider)).toEqual([
      { type: 'text-delta', text: 'Hel' },
      { type: 'text-delta', text: 'lo ' },
      { type: 'text-delta', text: 'there!' },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 11, outputTokens: 5 } },
    ]);
  });

  it('sends the whole shared conversation in a form the API accepts', async () => {
    const { fake, provider } = await setUp([textAnswer('Summary.')]);
    const request: ChatRequest = {
      system: SYSTEM_PROMPT,
      messages: CONVERSATION,
      tools: TOOLS,
      settings: { maxTokens: 256, stopSequences: ['STOP'] },
    };
    expect((await collect(provider, request)).at(-1)).toMatchObject({ type: 'finish', reason: 'stop' });
    expect(fake.requests).toHaveLength(1);
    const sent = fake.requests[0]!;
    expect(sent.rejected).toBeUndefined();
    expect(sent.headers.authorization).toBe('Bearer sk-ant-test');
    expect(sent.body).toMatchObject({
      model: 'claude-sonnet-4-5',
      max_tokens: 256,
      stop_sequences: ['STOP'],
      system: SYSTEM_PROMPT,
      stream: true,
    });
    expect((sent.body as { messages: unknown[] }).messages).toHaveLength(7);
  });

  it("assembles parallel tool calls from fragmented input_json_delta, passing each call's arguments so far on", async () => {
    const { provider } = await setUp([
      {
        type: 'answer',
        content: [
          { type: 'text', text: 'Doing both.' },
          {
            type: 'tool_use',
            id: 'toolu_01',
            name: 'everything__echo',
            fragments: ['', '{"mess', 'age": "hi', '"}'],
          },
          {
            type: 'tool_use',
            id: 'toolu_02',
            name: 'filesystem__read_file',
            input: { path: '/tmp/a.txt', head: 3 },
          },
          { type: 'tool_use', id: 'toolu_03', name: 'everything__get_tiny_image', fragments: [] },
          { type: 'tool_use', id: 'toolu_04', name: 'everything__echo', fragments: ['{"message": '] },
        ],
      },
    ]);
    const events = await collect(provider);
    const growing = events.flatMap((event) =>
      event.type === 'tool-call-delta' ? [[event.id, event.name, event.argumentsText]] : [],
    );
    expect(growing).toEqual([
      ['toolu_01', 'everything__echo', '{"mess'],
      ['toolu_01', 'everything__echo', '{"message": "hi'],
      ['toolu_01', 'everything__echo', '{"message": "hi"}'],
      ['toolu_02', 'filesystem__read_file', '{"path":"/'],
      ['toolu_02', 'filesystem__read_file', '{"path":"/tmp/a.txt"'],
      ['toolu_02', 'filesystem__read_file', '{"path":"/tmp/a.txt","head":3}'],
      ['toolu_04', 'everything__echo', '{"message": '],
    ]);
    expect(events.filter((event) => event.type !== 'tool-call-delta')).toEqual([
      { type: 'text-delta', text: 'Doing both.' },
      {
        type: 'tool-call',
        call: { type: 'tool-call', id: 'toolu_01', name: 'everything__echo', input: { message: 'hi' } },
      },
      {
        type: 'tool-call',
        call: {
          type: 'tool-call',
          id: 'toolu_02',
          name: 'filesystem__read_file',
          input: { path: '/tmp/a.txt', head: 3 },
        },
      },
      {
        type: 'tool-call',
        call: { type: 'tool-call', id: 'toolu_03', name: 'everything__get_tiny_image', input: {} },
      },
      {
        type: 'tool-call',
        call: {
          type: 'tool-call',
          id: 'toolu_04',
          name: 'everything__echo',
          input: {},
          rawInput: '{"message": ',
        },
      },
      { type: 'finish', reason: 'tool-calls', usage: { inputTokens: 25, outputTokens: 12 } },
    ]);
  });

  it.each([
    ['max_tokens', 'length'],
    ['stop_sequence', 'stop'],
    ['refusal', 'content-filter'],
    ['end_turn', 'stop'],
  ])('maps stop_reason %s to %s', async (stopReason, reason) => {
    const { provider } = await setUp([
      { type: 'answer', content: [{ type: 'text', text: 'Cut' }], stopReason },
    ]);
    expect((await collect(provider)).at(-1)).toMatchObject({ type: 'finish', reason });
  });

  it.each([
    [400, 'invalid_request_error', false],
    [401, 'authentication_error', false],
    [403, 'permission_error', false],
    [404, 'not_found_error', false],
    [408, 'timeout_error', true],
    [429, 'rate_limit_error', true],
    [500, 'api_error', true],
    [529, 'overloaded_error', true],
  ])('HTTP %i %s → ProviderError, retryable: %s', async (status, errorType, retryable) => {
    const { provider } = await setUp([
      { type: 'error', status, errorType, message: `The ${errorType} happened` },
    ]);
    const error = await failure(provider);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider: 'anthropic', status, retryable });
    const message = (error as ProviderError).message;
    expect(message).toContain(`The ${errorType} happened`);
    expect(message.includes('ANTHROPIC_API_KEY')).toBe(status === 401 || status === 403);
  });

  it('honours retry-after on a 429', async () => {
    const { provider } = await setUp([
      {
        type: 'error',
        status: 429,
        errorType: 'rate_limit_error',
        message: 'Slow down',
        headers: { 'retry-after': '12' },
      },
    ]);
    expect(await failure(provider)).toMatchObject({ retryable: true, retryAfterMs: 12_000 });
  });

  it('turns an overloaded_error event in the middle of a stream into a retryable error', async () => {
    const { provider } = await setUp([
      {
        type: 'stream-error',
        content: [{ type: 'text', text: 'Part' }],
        errorType: 'overloaded_error',
        message: 'Overloaded',
      },
    ]);
    const seen: ProviderEvent[] = [];
    const error = await (async () => {
      for await (const event of provider.chat(hello)) seen.push(event);
    })().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(seen).toEqual([{ type: 'text-delta', text: 'Part' }]);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ retryable: true, status: undefined });
    expect((error as ProviderError).message).toContain('overloaded_error');
  });

  it('refuses a malformed event from the server with a non-retryable ProviderError', async () => {
    const { provider } = await setUp([
      {
        type: 'events',
        events: [
          { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
          { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Fine' } },
          { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: { oops: true } } },
        ],
      },
    ]);
    const seen: ProviderEvent[] = [];
    const error = await (async () => {
      for await (const event of provider.chat(hello)) seen.push(event);
    })().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(seen).toEqual([{ type: 'text-delta', text: 'Fine' }]);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ retryable: false });
    expect((error as ProviderError).message).toMatch(
      /sent a content_block_delta event this client cannot read.*a text_delta needs a string text/s,
    );
  });

  it('ends a stream with AbortedError when the signal fires mid-stream', async () => {
    const { fake, provider } = await setUp([
      { type: 'stall', content: [{ type: 'text', text: 'Thinking' }] },
    ]);
    const controller = new AbortController();
    const seen: ProviderEvent[] = [];
    const error = await (async () => {
      for await (const event of provider.chat({ ...hello, signal: controller.signal })) {
        seen.push(event);
        controller.abort();
      }
    })().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(seen).toEqual([{ type: 'text-delta', text: 'Thinking' }]);
    expect(error).toBeInstanceOf(AbortedError);
    expect(fake.requests).toHaveLength(1);
  });

  it('fails with AbortedError when the signal fired before the call', async () => {
    const { fake, provider } = await setUp([textAnswer('never')]);
    const controller = new AbortController();
    controller.abort();
    expect(await failure(provider, { ...hello, signal: controller.signal })).toBeInstanceOf(AbortedError);
    expect(fake.requests).toHaveLength(0);
  });

  it('reports a refused connection as not retryable, naming the URL', async () => {
    const url = `http://127.0.0.1:${await unusedPort()}`;
    const provider = new AnthropicProvider({ model: 'm', apiKey: 'k', baseUrl: url, env: {} });
    const error = await failure(provider);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ retryable: false });
    expect((error as ProviderError).message).toContain(url);
  });
});

describe('AnthropicProvider configuration', () => {
  it('throws ConfigError naming ANTHROPIC_API_KEY before any request when there is no key', async () => {
    fake = await startFakeAnthropic([textAnswer('never')]);
    const url = fake.url;
    const create = (env: Record<string, string>) => () =>
      new AnthropicProvider({ model: 'm', baseUrl: url, env });
    expect(create({})).toThrow(ConfigError);
    expect(create({ ANTHROPIC_API_KEY: '' })).toThrow(
      'ANTHROPIC_API_KEY: is not set; export it or pass --provider-api-key',
    );
    expect(fake.requests).toHaveLength(0);
  });

  it('reads the key and base URL from the injected environment; explicit options win', async () => {
    fake = await startFakeAnthropic(() => textAnswer('ok'));
    const fromEnv = new AnthropicProvider({
      model: 'm',
      env: { ANTHROPIC_API_KEY: 'sk-env', ANTHROPIC_BASE_URL: fake.url },
    });
    expect(fromEnv.baseUrl).toBe(fake.url);
    await collect(fromEnv);
    const explicit = new AnthropicProvider({
      model: 'm',
      apiKey: 'sk-flag',
      baseUrl: fake.url,
      env: { ANTHROPIC_API_KEY: 'sk-env', ANTHROPIC_BASE_URL: 'http://127.0.0.1:1' },
    });
    await collect(explicit);
    expect(fake.requests.map((request) => request.headers.authorization)).toEqual([
      'Bearer sk-env',
      'Bearer sk-flag',
    ]);
    expect(new AnthropicProvider({ model: 'm', apiKey: 'k', env: {} }).baseUrl).toBe(
      DEFAULT_ANTHROPIC_BASE_URL,
    );
  });

  it('trims the key and base URL, and takes a blank one as unset', async () => {
    fake = await startFakeAnthropic(() => textAnswer('ok'));
    const padded = new AnthropicProvider({
      model: 'm',
      apiKey: '   ',
      baseUrl: ' ',
      env: { ANTHROPIC_API_KEY: ' sk-env\n', ANTHROPIC_BASE_URL: `  ${fake.url} ` },
    });
    expect(padded.baseUrl).toBe(fake.url);
    await collect(padded);
    expect(fake.requests.at(-1)?.headers.authorization).toBe('Bearer sk-env');
    expect(
      () => new AnthropicProvider({ model: 'm', apiKey: ' \t', env: { ANTHROPIC_API_KEY: '  ' } }),
    ).toThrow(ConfigError);
  });

  it('prints nothing itself, even for a model the SDK calls deprecated (only the CLI prints)', async () => {
    const writes = (['log', 'info', 'warn', 'error', 'debug'] as const).map((method) =>
      vi.spyOn(console, method).mockImplementation(() => undefined),
    );
    try {
      const { provider } = await setUp([textAnswer('ok')]);
      expect(provider.model).toBe('claude-sonnet-4-5');
      await collect(provider);
      expect(writes.flatMap((spy) => spy.mock.calls)).toEqual([]);
    } finally {
      for (const spy of writes) spy.mockRestore();
    }
  });

  it('reports temperature, top-p and top-k once each and does not send them', async () => {
    const warnings: string[] = [];
    const { fake, provider } = await setUp(() => textAnswer('ok'), warnings);
    const request: ChatRequest = { ...hello, settings: { temperature: 0.1, topK: 5, maxTokens: 50 } };
    await collect(provider, request);
    await collect(provider, { ...request, settings: { ...request.settings, topP: 0.5 } });
    expect(warnings).toEqual([
      'anthropic: --temperature is not supported by the Anthropic Messages API and was not sent',
      'anthropic: --top-k is not supported by the Anthropic Messages API and was not sent',
      'anthropic: --top-p is not supported by the Anthropic Messages API and was not sent',
    ]);
    expect(fake.requests.map((r) => r.rejected)).toEqual([undefined, undefined]);
    expect(fake.requests[0]?.body).toMatchObject({ max_tokens: 50 });
    expect(fake.requests[0]?.body).not.toHaveProperty('temperature');
  });
});
