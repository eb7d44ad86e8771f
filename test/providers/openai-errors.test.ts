/** Failures of the OpenAI provider, produced by the loopback fake and read through the real SDK. */
import { OpenAI } from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { OpenAIProvider, normalizeErrorBody, toOpenAIError } from '../../providers/openai.js';
import { MAX_RETRY_AFTER_MS } from '../../providers/http-errors.js';
import { AbortedError, ProviderError } from '../../src/core/errors.js';
import type { ChatRequest, Message, ProviderEvent, ToolSpec } from '../../src/core/types.js';
import { startFakeOpenAI, type FakeOpenAI, type FakeOpenAIReply } from '../fakes/openai-server.js';

const hello: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'Say hello' }] }];
const simpleRequest: ChatRequest = { messages: hello, tools: [], settings: {} };

let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function providerFor(replies: readonly FakeOpenAIReply[]): Promise<OpenAIProvider> {
  fake = await startFakeOpenAI(replies);
  return new OpenAIProvider({ model: 'gpt-test', baseUrl: fake.url, env: {} });
}

async function failureOf(source: AsyncIterable<ProviderEvent>): Promise<unknown> {
  try {
    for await (const _event of source) {
      // drain
    }
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

describe('HTTP errors', () => {
  it.each([
    [400, false, 'invalid_request_error'],
    [401, false, 'invalid_request_error'],
    [403, false, 'invalid_request_error'],
    [404, false, 'invalid_request_error'],
    [408, true, 'timeout'],
    [409, true, 'conflict'],
    [429, true, 'requests'],
    [500, true, 'server_error'],
    [503, true, 'server_error'],
  ])('%i → retryable %s, with the vendor message', async (status, retryable, errorType) => {
    const provider = await providerFor([
      { type: 'error', status, message: `vendor says ${status}`, errorType },
    ]);
    const error = await providerErrorOf(provider.chat(simpleRequest));
    expect(error.provider).toBe('openai');
    expect(error.status).toBe(status);
    expect(error.retryable).toBe(retryable);
    expect(error.message).toContain(`${fake?.url} answered ${status}: vendor says ${status}`);
    expect(error.message.includes('OPENAI_API_KEY')).toBe(status === 401 || status === 403);
  });

  it('honours Retry-After (seconds) on a 429', async () => {
    const provider = await providerFor([
      { type: 'error', status: 429, message: 'Rate limit reached', headers: { 'retry-after': '7' } },
    ]);
    const error = await providerErrorOf(provider.chat(simpleRequest));
    expect(error.retryAfterMs).toBe(7000);
  });

  it('prefers retry-after-ms, and caps what it honours', async () => {
    const provider = await providerFor([
      {
        type: 'error',
        status: 503,
        message: 'busy',
        headers: { 'retry-after-ms': '1500', 'retry-after': '2' },
      },
      { type: 'error', status: 429, message: 'slow down', headers: { 'retry-after': '3600' } },
    ]);
    expect((await providerErrorOf(provider.chat(simpleRequest))).retryAfterMs).toBe(1500);
    expect((await providerErrorOf(provider.chat(simpleRequest))).retryAfterMs).toBe(MAX_RETRY_AFTER_MS);
  });

  it('does not retry a 429 for an exhausted quota', async () => {
    const provider = await providerFor([
      {
        type: 'error',
        status: 429,
        message: 'You exceeded your current quota',
        errorType: 'insufficient_quota',
        code: 'insufficient_quota',
      },
    ]);
    const error = await providerErrorOf(provider.chat(simpleRequest));
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('You exceeded your current quota');
  });

  it('reads error bodies in other servers’ shapes', async () => {
    const provider = await providerFor([
      {
        type: 'error',
        status: 400,
        message: '',
        rawBody:
          '{"object":"error","message":"This model\'s maximum context length is 4096 tokens","type":"BadRequestError","code":400}',
      },
      { type: 'error', status: 422, message: '', rawBody: '{"detail":"Field required: messages"}' },
      { type: 'error', status: 502, message: '', rawBody: '<html><body>Bad Gateway</body></html>' },
    ]);
    expect((await providerErrorOf(provider.chat(simpleRequest))).message).toContain(
      "400: This model's maximum context length is 4096 tokens",
    );
    expect((await providerErrorOf(provider.chat(simpleRequest))).message).toContain(
      '422: Field required: messages',
    );
    const gateway = await providerErrorOf(provider.chat(simpleRequest));
    expect(gateway.message).toContain('502: <html><body>Bad Gateway</body></html>');
    expect(gateway.retryable).toBe(true);
  });

  it('normalizeErrorBody leaves OpenAI bodies and plain text alone', () => {
    const openai = '{"error":{"message":"m","type":"t","param":null,"code":null}}';
    expect(normalizeErrorBody(openai)).toBe(openai);
    expect(normalizeErrorBody('plain')).toBe('plain');
    expect(JSON.parse(normalizeErrorBody('{"error":"just a string"}'))).toEqual({
      error: { message: 'just a string' },
    });
  });
});

describe('failures during the stream', () => {
  it('maps an error event inside the stream, retryable for server errors', async () => {
    const provider = await providerFor([
      {
        type: 'stream-error',
        text: 'partial',
        errorType: 'server_error',
        message: 'The server had an error while processing your request.',
      },
      { type: 'stream-error', text: 'partial', errorType: 'invalid_request_error', message: 'Bad thing.' },
    ]);
    const first = await providerErrorOf(provider.chat(simpleRequest));
    expect(first.retryable).toBe(true);
    expect(first.message).toContain('The server had an error while processing your request.');
    const second = await providerErrorOf(provider.chat(simpleRequest));
    expect(second.retryable).toBe(false);
  });

  it('treats a connection dropped mid-answer as a retryable network failure', async () => {
    const provider = await providerFor([{ type: 'drop', text: 'Half an ans' }]);
    const error = await providerErrorOf(provider.chat(simpleRequest));
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/connection to .* failed \((ECONNRESET|UND_ERR_SOCKET)\)/);
  });

  it('turns an abort mid-stream into AbortedError, after the text that came', async () => {
    const provider = await providerFor([{ type: 'stall', text: 'Starting a long answer' }]);
    const controller = new AbortController();
    const texts: string[] = [];
    let caught: unknown;
    try {
      for await (const event of provider.chat({ ...simpleRequest, signal: controller.signal })) {
        if (event.type === 'text-delta') {
          texts.push(event.text);
          controller.abort();
        }
      }
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(AbortedError);
    expect(texts.length).toBeGreaterThan(0);
  });

  it('turns an abort before the call into AbortedError without a request', async () => {
    const provider = await providerFor([{ type: 'text', text: 'never' }]);
    const controller = new AbortController();
    controller.abort();
    expect(await failureOf(provider.chat({ ...simpleRequest, signal: controller.signal }))).toBeInstanceOf(
      AbortedError,
    );
    expect(fake?.requests).toHaveLength(0);
  });
});

describe('requests the real API rejects fail fast, with its message', () => {
  const tool = (name: string): ToolSpec => ({
    name,
    description: '',
    inputSchema: { type: 'object', properties: {} },
  });
  const call = (id: string): Message => ({
    role: 'assistant',
    content: [{ type: 'tool-call', id, name: 'a__b', input: {} }],
  });
  const result = (id: string): Message => ({
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: id,
        toolName: 'a__b',
        content: [{ type: 'text', text: 'ok' }],
        isError: false,
      },
    ],
  });

  it.each<[string, ChatRequest, string]>([
    [
      'a tool name with dots',
      { ...simpleRequest, tools: [tool('my.server__tool')] },
      "Invalid 'tools[0].function.name': string does not match pattern",
    ],
    [
      'a tool name over 64 characters',
      { ...simpleRequest, tools: [tool('x'.repeat(65))] },
      'Expected a string with maximum length 64',
    ],
    [
      'duplicate tool names',
      { ...simpleRequest, tools: [tool('a__b'), tool('a__b')] },
      'Tool names must be unique',
    ],
    [
      'an unanswered tool call',
      {
        ...simpleRequest,
        messages: [...hello, call('call_1'), { role: 'user', content: [{ type: 'text', text: 'and?' }] }],
      },
      "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_1",
    ],
    [
      'a tool result without its call',
      { ...simpleRequest, messages: [...hello, result('call_9')] },
      "messages with role 'tool' must be a response to a preceeding message with 'tool_calls'",
    ],
    [
      'more than four stop sequences',
      { ...simpleRequest, settings: { stopSequences: ['a', 'b', 'c', 'd', 'e'] } },
      "Invalid 'stop': array too long",
    ],
    [
      'a temperature above 2',
      { ...simpleRequest, settings: { temperature: 3 } },
      "Invalid 'temperature': decimal above maximum value",
    ],
  ])('%s', async (_name, request, message) => {
    const provider = await providerFor([{ type: 'text', text: 'unreachable' }]);
    const error = await providerErrorOf(provider.chat(request));
    expect(error.status).toBe(400);
    expect(error.retryable).toBe(false);
    expect(error.message).toContain(message);
  });

  it('accepts a tool call answered in the next message', async () => {
    const provider = await providerFor([{ type: 'text', text: 'fine' }]);
    const request: ChatRequest = { ...simpleRequest, messages: [...hello, call('call_1'), result('call_1')] };
    for await (const _event of provider.chat(request)) {
      // drain
    }
    expect(fake?.requests).toHaveLength(1);
  });

  it('arguments that are not a string (a mistake the SDK lets through)', async () => {
    fake = await startFakeOpenAI([]);
    const client = new OpenAI({ apiKey: 'k', baseURL: fake.url, maxRetries: 0, logLevel: 'off' });
    const body = {
      model: 'm',
      messages: [
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          tool_calls: [{ id: 'c', type: 'function', function: { name: 'a', arguments: { x: 1 } } }],
        },
        { role: 'tool', tool_call_id: 'c', content: 'ok' },
      ],
    } as unknown as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;
    const error = toOpenAIError(
      await client.chat.completions.create(body).catch((caught: unknown) => caught),
      { baseUrl: fake.url },
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).retryable).toBe(false);
    expect(error.message).toContain(
      "Invalid type for 'messages[1].tool_calls[0].function.arguments': expected a string, but got an object instead.",
    );
  });
});

describe('the fake without streaming', () => {
  it('answers JSON completions the SDK reads', async () => {
    fake = await startFakeOpenAI([
      { type: 'tool-calls', calls: [{ id: 'c1', name: 'a__b', arguments: '{"q":1}' }] },
    ]);
    const client = new OpenAI({ apiKey: 'k', baseURL: fake.url, maxRetries: 0, logLevel: 'off' });
    const completion = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
    expect(completion.choices[0]?.message.tool_calls).toEqual([
      { id: 'c1', type: 'function', function: { name: 'a__b', arguments: '{"q":1}' } },
    ]);
  });
});
