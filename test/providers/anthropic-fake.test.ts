/**
 * The fake Messages API refuses what the real one refuses. Each bad request goes through the real
 * SDK, and the 400 (or 401) must surface as a non-retryable ProviderError with the vendor's words.
 */
import { Anthropic } from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnthropicProvider, toAnthropicError } from '../../providers/anthropic.js';
import { ProviderError } from '../../src/core/errors.js';
import type { ChatRequest } from '../../src/core/types.js';
import { startFakeAnthropic, textAnswer, type FakeAnthropic } from '../fakes/anthropic-server.js';

let fake: FakeAnthropic;
let client: Anthropic;
beforeAll(async () => {
  fake = await startFakeAnthropic(() => textAnswer('ok'));
  client = new Anthropic({ apiKey: 'sk-ant-test', baseURL: fake.url, maxRetries: 0 });
});
afterAll(async () => {
  await fake.close();
});

const user = (text: string) => ({ role: 'user', content: [{ type: 'text', text }] });
const toolUse = (id: string) => ({ type: 'tool_use', id, name: 'echo', input: { message: 'hi' } });
const toolResult = (id: string) => ({ type: 'tool_result', tool_use_id: id, content: 'hi' });
const echoTool = { name: 'echo', input_schema: { type: 'object', properties: {} } };
const valid = { model: 'claude-haiku-4-5', max_tokens: 100, messages: [user('Hi')] };

/** Sends a raw body through the SDK and returns the mapped error, or undefined on success. */
async function send(body: Record<string, unknown>, headers?: Record<string, string | null>) {
  try {
    await client.post('/v1/messages', { body, ...(headers ? { headers } : {}) });
    return undefined;
  } catch (error) {
    return toAnthropicError(error, { baseUrl: fake.url });
  }
}

describe('the fake accepts valid requests', () => {
  it('a plain request, JSON and streamed', async () => {
    expect(await send(valid)).toBeUndefined();
    const typed = {
      model: 'claude-haiku-4-5',
      max_tokens: 100,
      messages: [{ role: 'user' as const, content: 'Hi' }],
    };
    const message = await client.messages.create(typed);
    expect(message.content).toEqual([{ type: 'text', text: 'ok', citations: null }]);
    const events: string[] = [];
    const stream = await client.messages.create({ ...typed, stream: true });
    for await (const event of stream) events.push(event.type);
    expect(events).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
  });

  it('a tool round trip, with tool results answering the previous tool_use ids', async () => {
    const body = {
      ...valid,
      tools: [echoTool],
      messages: [
        user('Hi'),
        { role: 'assistant', content: [toolUse('toolu_1'), toolUse('toolu_2')] },
        {
          role: 'user',
          content: [toolResult('toolu_2'), toolResult('toolu_1'), { type: 'text', text: 'go on' }],
        },
      ],
    };
    expect(await send(body)).toBeUndefined();
  });
});

describe('the fake refuses what the real API refuses', () => {
  it.each<[string, Record<string, unknown>, string]>([
    ['missing max_tokens', { model: 'm', messages: [user('Hi')] }, 'max_tokens: Field required'],
    [
      'temperature (API 2026-10-21)',
      { ...valid, temperature: 0.5 },
      'temperature: Extra inputs are not permitted',
    ],
    ['top_k (API 2026-10-21)', { ...valid, top_k: 5 }, 'top_k: Extra inputs are not permitted'],
    ['an unknown field', { ...valid, stopSequences: ['x'] }, 'stopSequences: Extra inputs are not permitted'],
    [
      'a tool name with a dot',
      { ...valid, tools: [{ ...echoTool, name: 'my.server__echo' }] },
      "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'",
    ],
    [
      'a tool name of 65 characters',
      { ...valid, tools: [{ ...echoTool, name: 'x'.repeat(65) }] },
      "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'",
    ],
    ['duplicate tool names', { ...valid, tools: [echoTool, echoTool] }, 'tools: Tool names must be unique.'],
    [
      'a tool_use not answered in the next message',
      {
        ...valid,
        tools: [echoTool],
        messages: [
          user('Hi'),
          { role: 'assistant', content: [toolUse('toolu_1'), toolUse('toolu_2')] },
          { role: 'user', content: [toolResult('toolu_1')] },
        ],
      },
      'messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_2.',
    ],
    [
      'a tool_use answered one message too late',
      {
        ...valid,
        tools: [echoTool],
        messages: [
          user('Hi'),
          { role: 'assistant', content: [toolUse('toolu_1')] },
          user('wait'),
          { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
          { role: 'user', content: [toolResult('toolu_1')] },
        ],
      },
      'messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1.',
    ],
    [
      'a tool_result with no tool_use before it',
      {
        ...valid,
        tools: [echoTool],
        messages: [
          user('Hi'),
          { role: 'assistant', content: [{ type: 'text', text: 'x' }] },
          { role: 'user', content: [toolResult('toolu_9')] },
        ],
      },
      'messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_9.',
    ],
    [
      'messages starting with assistant',
      { ...valid, messages: [{ role: 'assistant', content: 'Hello' }, user('Hi')] },
      'messages: first message must use the "user" role',
    ],
    [
      'an empty text block',
      { ...valid, messages: [user('')] },
      'messages.0.content.0.text: text content blocks must be non-empty',
    ],
    [
      'a whitespace-only text block',
      { ...valid, messages: [user(' \n ')] },
      'messages.0.content.0.text: text content blocks must contain non-whitespace text',
    ],
    [
      'an empty content list',
      { ...valid, messages: [{ role: 'user', content: [] }] },
      'messages.0: all messages must have non-empty content except for the optional final assistant message',
    ],
    [
      'the role tool',
      { ...valid, messages: [{ role: 'tool', content: 'x' }] },
      "messages.0.role: Input should be 'user' or 'assistant'",
    ],
    [
      'an SVG image',
      {
        ...valid,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', source: { type: 'base64', media_type: 'image/svg+xml', data: 'AAAA' } },
            ],
          },
        ],
      },
      "messages.0.content.0.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'",
    ],
  ])('%s → 400, not retryable', async (_name, body, message) => {
    const error = await send(body);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ status: 400, retryable: false });
    expect(error?.message).toContain('invalid_request_error');
    expect(error?.message).toContain(message);
  });

  it('a request with no key → 401 authentication_error, with the key hint', async () => {
    const error = await send(valid, { authorization: null });
    expect(error).toMatchObject({ status: 401, retryable: false });
    expect(error?.message).toContain('x-api-key header is required');
    expect(error?.message).toContain('ANTHROPIC_API_KEY');
    expect(fake.requests.at(-1)?.headers.authorization).toBeUndefined();
  });

  it('a bad tool name from the provider fails fast, and nothing is retried', async () => {
    const provider = new AnthropicProvider({
      model: 'claude-haiku-4-5',
      apiKey: 'k',
      baseUrl: fake.url,
      env: {},
    });
    const request: ChatRequest = {
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
      tools: [{ name: 'my server.echo', description: '', inputSchema: { type: 'object' } }],
      settings: {},
    };
    const before = fake.requests.length;
    const error = await (async () => {
      for await (const _event of provider.chat(request)) {
        // nothing is expected
      }
    })().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ status: 400, retryable: false });
    expect(fake.requests.length - before).toBe(1);
  });
});
