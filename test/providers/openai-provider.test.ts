/** The OpenAI provider through the real `openai` SDK against the loopback fake. */
import { afterEach, describe, expect, it } from 'vitest';
import { OpenAIProvider } from '../../providers/openai.js';
import type { ProviderOptions } from '../../providers/options.js';
import { ConfigError, ProviderError } from '../../src/core/errors.js';
import type { ChatRequest, Message, ProviderEvent } from '../../src/core/types.js';
import { startFakeOpenAI, type FakeOpenAI, type FakeOpenAIReply } from '../fakes/openai-server.js';
import { unusedPort } from '../support/loopback.js';
import { CONVERSATION, SYSTEM_PROMPT, TOOLS } from '../fixtures/conversation.js';

const KEY = 'sk-test-1234567890';
const hello: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'Say hello' }] }];
const simpleRequest: ChatRequest = { messages: hello, tools: [], settings: {} };

let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function start(replies: readonly FakeOpenAIReply[]): Promise<FakeOpenAI> {
  fake = await startFakeOpenAI(replies, { apiKey: KEY });
  return fake;
}

function provider(server: FakeOpenAI, options: Partial<ProviderOptions> = {}): OpenAIProvider {
  return new OpenAIProvider({ model: 'gpt-test', baseUrl: server.url, apiKey: KEY, env: {}, ...options });
}

async function collect(source: AsyncIterable<ProviderEvent>): Promise<ProviderEvent[]> {
  const events: ProviderEvent[] = [];
  for await (const event of source) events.push(event);
  return events;
}

async function failureOf(source: AsyncIterable<ProviderEvent>): Promise<unknown> {
  try {
    await collect(source);
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

async function providerErrorOf(source: AsyncIterable<ProviderEvent>): Promise<ProviderError> {
  const error = await failureOf(source);
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

describe('OpenAIProvider streaming', () => {
  it('streams text in pieces and reports usage and the finish reason', async () => {
    const server = await start([
      { type: 'text', text: 'Hello there, friend!', usage: { prompt_tokens: 9, completion_tokens: 5 } },
    ]);
    const events = await collect(provider(server).chat(simpleRequest));
    const deltas = events.filter((event) => event.type === 'text-delta');
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((event) => event.text).join('')).toBe('Hello there, friend!');
    expect(events.at(-1)).toEqual({
      type: 'finish',
      reason: 'stop',
      usage: { inputTokens: 9, outputTokens: 5 },
    });
    expect(server.requests[0]?.body).toMatchObject({
      model: 'gpt-test',
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('assembles two parallel tool calls from fragmented, interleaved arguments', async () => {
    const server = await start([
      {
        type: 'tool-calls',
        text: 'Doing both.',
        calls: [
          { id: 'call_echo', name: 'everything__echo', arguments: '{"message":"hello, fragmented world"}' },
          { id: 'call_read', name: 'filesystem__read_file', arguments: '{"path":"/tmp/a.txt","head":3}' },
        ],
      },
    ]);
    const events = await collect(provider(server).chat({ ...simpleRequest, tools: TOOLS }));
    // While they stream, each call's arguments so far: growing, piece by piece, to the whole.
    for (const [id, whole] of [
      ['call_echo', '{"message":"hello, fragmented world"}'],
      ['call_read', '{"path":"/tmp/a.txt","head":3}'],
    ] as const) {
      const growing = events.flatMap((event) =>
        event.type === 'tool-call-delta' && event.id === id ? [event.argumentsText] : [],
      );
      expect(growing.length).toBeGreaterThan(2);
      expect(growing.at(-1)).toBe(whole);
      growing.forEach((text, index) =>
        expect(whole.startsWith(text) && text.length > (growing[index - 1]?.length ?? 0)).toBe(true),
      );
    }
    expect(events.filter((event) => event.type !== 'text-delta' && event.type !== 'tool-call-delta')).toEqual(
      [
        {
          type: 'tool-call',
          call: {
            type: 'tool-call',
            id: 'call_echo',
            name: 'everything__echo',
            input: { message: 'hello, fragmented world' },
          },
        },
        {
          type: 'tool-call',
          call: {
            type: 'tool-call',
            id: 'call_read',
            name: 'filesystem__read_file',
            input: { path: '/tmp/a.txt', head: 3 },
          },
        },
        {
          type: 'finish',
          reason: 'tool-calls',
          usage: expect.objectContaining({ inputTokens: 42 }) as unknown,
        },
      ],
    );
  });

  it('hands unparsable arguments over as rawInput', async () => {
    const server = await start([
      {
        type: 'tool-calls',
        calls: [{ id: 'call_bad', name: 'everything__echo', arguments: '{"message": "unterminated' }],
      },
    ]);
    const events = await collect(provider(server).chat({ ...simpleRequest, tools: TOOLS }));
    expect(events.find((event) => event.type === 'tool-call')).toEqual({
      type: 'tool-call',
      call: {
        type: 'tool-call',
        id: 'call_bad',
        name: 'everything__echo',
        input: {},
        rawInput: '{"message": "unterminated',
      },
    });
  });

  it.each([
    ['length', 'length'],
    ['content_filter', 'content-filter'],
  ] as const)('maps finish_reason %s to %s', async (wire, ours) => {
    const server = await start([{ type: 'text', text: 'cut', finishReason: wire }]);
    const events = await collect(provider(server).chat(simpleRequest));
    expect(events.at(-1)).toMatchObject({ type: 'finish', reason: ours });
  });

  it('reports a stream closed cleanly before any finish_reason as a retryable cut-off answer', async () => {
    const server = await start([{ type: 'cut', text: 'The answer is' }]);
    const events: ProviderEvent[] = [];
    let caught: unknown;
    try {
      for await (const event of provider(server).chat(simpleRequest)) events.push(event);
    } catch (error) {
      caught = error;
    }
    // The text already received was passed on; the call still fails instead of looking whole.
    expect(events.map((event) => (event.type === 'text-delta' ? event.text : event.type)).join('')).toBe(
      'The answer is',
    );
    expect(caught).toBeInstanceOf(ProviderError);
    expect((caught as ProviderError).retryable).toBe(true);
    // One line naming the model's server (not "the server": there are MCP servers too).
    expect((caught as ProviderError).message).toBe(
      'the answer was cut off: the stream ended before the answer was complete ' +
        `(the server at ${server.url} sent no finish_reason)`,
    );
  });

  it('accepts a finish_reason that only comes with the usage chunk, before [DONE]', async () => {
    const base = { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-test' };
    const server = await start([
      {
        type: 'chunks',
        chunks: [
          { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: 'Done.' } }] },
          {
            ...base,
            choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
            usage: { prompt_tokens: 4, completion_tokens: 2, total_tokens: 6 },
          },
        ],
      },
    ]);
    expect(await collect(provider(server).chat(simpleRequest))).toEqual([
      { type: 'text-delta', text: 'Done.' },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 4, outputTokens: 2 } },
    ]);
  });

  it('sends the shared conversation in a form the API accepts, with the settings', async () => {
    const server = await start([{ type: 'text', text: 'Summary.' }]);
    const request: ChatRequest = {
      system: SYSTEM_PROMPT,
      messages: CONVERSATION,
      tools: TOOLS,
      settings: { maxTokens: 256, temperature: 0.5, topP: 0.8, stopSequences: ['STOP'] },
    };
    const events = await collect(provider(server).chat(request));
    expect(events.at(-1)).toMatchObject({ type: 'finish', reason: 'stop' });
    expect(server.requests[0]?.body).toMatchObject({
      max_completion_tokens: 256,
      temperature: 0.5,
      top_p: 0.8,
      stop: ['STOP'],
    });
  });

  it('warns once that top-k is ignored, however many calls', async () => {
    const server = await start([
      { type: 'text', text: 'one' },
      { type: 'text', text: 'two' },
    ]);
    const warnings: string[] = [];
    const openai = provider(server, { warn: (message) => warnings.push(message) });
    const request: ChatRequest = { ...simpleRequest, settings: { topK: 20 } };
    await collect(openai.chat(request));
    await collect(openai.chat(request));
    expect(warnings).toEqual(['openai: the Chat Completions API has no top-k setting; --top-k is ignored']);
    expect(server.requests[1]?.body).not.toHaveProperty('top_k');
  });
});

describe('OpenAIProvider tool descriptions', () => {
  const longTools = (count: number) =>
    Array.from({ length: count }, (_, index) => ({
      name: `server__tool_${index}`,
      description: `tool ${index} `.repeat(200),
      inputSchema: { type: 'object' as const, properties: {} },
    }));

  /** Sends requests meant for api.openai.com to the fake: the provider sees OpenAI's own URL. */
  function openAIAt(server: FakeOpenAI): typeof fetch {
    return (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      return fetch(url.replace('https://api.openai.com/v1', server.url), init);
    };
  }

  it("cuts descriptions to OpenAI's 1024 characters on OpenAI's API, told in one line", async () => {
    const server = await start([
      { type: 'text', text: 'one' },
      { type: 'text', text: 'two' },
    ]);
    const warnings: string[] = [];
    const openai = provider(server, {
      baseUrl: 'https://api.openai.com/v1',
      fetch: openAIAt(server),
      warn: (message) => warnings.push(message),
    });
    const request: ChatRequest = { ...simpleRequest, tools: longTools(52) };
    await collect(openai.chat(request));
    await collect(openai.chat(request));
    // The fake answers 400 to a description over 1024 characters, as OpenAI does: both calls passed.
    expect(server.requests).toHaveLength(2);
    expect(warnings).toEqual([
      'openai: 52 tool descriptions were longer than the 1024 characters the API takes, so they were shortened (server__tool_0, server__tool_1, server__tool_2, server__tool_3, server__tool_4 and 47 more)',
    ]);
  });

  it('sends descriptions whole to an OpenAI-compatible server, without a warning', async () => {
    fake = await startFakeOpenAI([{ type: 'text', text: 'one' }], { maxDescriptionLength: null });
    const warnings: string[] = [];
    const openai = provider(fake, { warn: (message) => warnings.push(message) });
    const tools = longTools(3);
    await collect(openai.chat({ ...simpleRequest, tools }));
    const sent = (fake.requests[0]?.body as { tools: Array<{ function: { description: string } }> }).tools;
    expect(sent.map((tool) => tool.function.description)).toEqual(tools.map((tool) => tool.description));
    expect(warnings).toEqual([]);
  });
});

describe('OpenAIProvider keys and URLs', () => {
  it('fails before any request when there is neither a key nor a URL', async () => {
    const server = await start([]);
    expect(() => new OpenAIProvider({ model: 'gpt-test', env: {} })).toThrow(ConfigError);
    expect(() => new OpenAIProvider({ model: 'gpt-test', env: { OPENAI_API_KEY: '  ' } })).toThrow(
      'OPENAI_API_KEY: is not set; export it or pass --provider-api-key',
    );
    expect(server.requests).toHaveLength(0);
  });

  it('needs no key for a server given by URL', async () => {
    fake = await startFakeOpenAI([{ type: 'text', text: 'local' }]);
    const local = new OpenAIProvider({ model: 'llama', baseUrl: fake.url, env: {} });
    const events = await collect(local.chat(simpleRequest));
    expect(events[0]).toEqual({ type: 'text-delta', text: 'local' });
  });

  it('reads OPENAI_API_KEY and OPENAI_BASE_URL from the injected environment', async () => {
    const server = await start([{ type: 'text', text: 'env' }]);
    const fromEnv = new OpenAIProvider({
      model: 'gpt-test',
      env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: server.url },
    });
    expect(fromEnv.baseUrl).toBe(server.url);
    await collect(fromEnv.chat(simpleRequest));
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('lets the options win over the environment', async () => {
    const server = await start([{ type: 'text', text: 'flag' }]);
    const openai = new OpenAIProvider({
      model: 'gpt-test',
      apiKey: KEY,
      baseUrl: server.url,
      env: { OPENAI_API_KEY: 'sk-wrong', OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' },
    });
    await collect(openai.chat(simpleRequest));
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('answers a wrong key with the vendor message and a hint naming OPENAI_API_KEY', async () => {
    const server = await start([]);
    const error = await providerErrorOf(
      provider(server, { apiKey: 'sk-wrong-key-9999' }).chat(simpleRequest),
    );
    expect(error.status).toBe(401);
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('Incorrect API key provided: sk-***9999');
    expect(error.message).toContain('check OPENAI_API_KEY or pass --provider-api-key');
  });

  it('says a refused connection cannot reach the URL, and does not retry it', async () => {
    const url = `http://127.0.0.1:${await unusedPort()}/v1`;
    const error = await providerErrorOf(
      new OpenAIProvider({ model: 'm', baseUrl: url, env: {} }).chat(simpleRequest),
    );
    expect(error.retryable).toBe(false);
    expect(error.message).toContain(`cannot reach ${url} (connection refused)`);
  });
});
