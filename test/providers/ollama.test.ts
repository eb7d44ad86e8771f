/** OllamaProvider (over node:http, or an injected fetch) against the loopback fake Ollama. */
import { afterEach, describe, expect, it } from 'vitest';
import { AbortedError, ProviderError } from '../../src/core/errors.js';
import type { ChatRequest, ProviderEvent, ToolCallBlock } from '../../src/core/types.js';
import { OllamaProvider } from '../../providers/ollama.js';
import type { ProviderOptions } from '../../providers/options.js';
import { CONVERSATION, SYSTEM_PROMPT, TOOLS } from '../fixtures/conversation.js';
import {
  errorReply,
  startFakeOllama,
  textReply,
  toolCallReply,
  type FakeOllama,
  type FakeOllamaScriptItem,
} from '../fakes/ollama-server.js';
import { unusedPort } from '../support/loopback.js';

const ask = (text: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({
  messages: [{ role: 'user', content: [{ type: 'text', text }] }],
  tools: [],
  settings: {},
  ...extra,
});

async function collect(events: AsyncIterable<ProviderEvent>): Promise<ProviderEvent[]> {
  const result: ProviderEvent[] = [];
  for await (const event of events) result.push(event);
  return result;
}

async function failure(events: AsyncIterable<ProviderEvent>): Promise<unknown> {
  try {
    await collect(events);
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

const calls = (events: readonly ProviderEvent[]): ToolCallBlock[] =>
  events.flatMap((event) => (event.type === 'tool-call' ? [event.call] : []));

let fake: FakeOllama | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function setUp(
  script: FakeOllamaScriptItem[],
  options: Partial<ProviderOptions> = {},
): Promise<{ fake: FakeOllama; provider: OllamaProvider }> {
  fake = await startFakeOllama(script);
  const provider = new OllamaProvider({ model: 'qwen2.5:3b', baseUrl: fake.url, env: {}, ...options });
  return { fake, provider };
}

describe('OllamaProvider streaming', () => {
  it('streams text deltas, then finish with usage', async () => {
    const { fake: server, provider } = await setUp([
      { type: 'answer', text: ['Hel', 'lo', '!'], promptEvalCount: 21, evalCount: 3 },
    ]);
    const events = await collect(provider.chat(ask('Say hello')));
    expect(events).toEqual([
      { type: 'text-delta', text: 'Hel' },
      { type: 'text-delta', text: 'lo' },
      { type: 'text-delta', text: '!' },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 21, outputTokens: 3 } },
    ]);
    expect(server.chatRequests).toHaveLength(1);
    expect(server.chatRequests[0]).toMatchObject({
      model: 'qwen2.5:3b',
      stream: true,
      messages: [{ role: 'user', content: 'Say hello' }],
    });
  });

  it('yields text before the answer is complete', async () => {
    const { provider } = await setUp([{ type: 'stall', text: ['first words'] }]);
    const controller = new AbortController();
    const iterator = provider.chat(ask('hi', { signal: controller.signal }))[Symbol.asyncIterator]();
    // The server is still holding the answer open: the first words must arrive anyway.
    expect(await iterator.next()).toEqual({
      done: false,
      value: { type: 'text-delta', text: 'first words' },
    });
    controller.abort();
    await expect(iterator.next()).rejects.toBeInstanceOf(AbortedError);
  });

  it('reports a cut answer as finish reason length', async () => {
    const { provider } = await setUp([{ type: 'answer', text: 'Once upon', doneReason: 'length' }]);
    const events = await collect(provider.chat(ask('story', { settings: { maxTokens: 2 } })));
    expect(events.at(-1)).toMatchObject({ type: 'finish', reason: 'length' });
    expect(fake?.chatRequests[0]?.options).toEqual({ num_predict: 2, num_ctx: 32_768 });
  });

  it('sends the system prompt, settings and tools it was given', async () => {
    const { fake: server, provider } = await setUp([textReply('ok')]);
    await collect(
      provider.chat(
        ask('hi', {
          system: SYSTEM_PROMPT,
          tools: TOOLS,
          settings: { temperature: 0, stopSequences: ['x'] },
        }),
      ),
    );
    const received = server.chatRequests[0];
    expect(received?.messages[0]).toEqual({ role: 'system', content: SYSTEM_PROMPT });
    expect(received?.options).toEqual({ temperature: 0, stop: ['x'], num_ctx: 32_768 });
    expect(received?.tools?.map((tool) => tool.function.name)).toEqual(TOOLS.map((tool) => tool.name));
    expect(received?.tools?.[0]?.function.parameters).toEqual(TOOLS[0]?.inputSchema);
  });

  it('gets the whole shared conversation, images included, past the Ollama rules', async () => {
    const { fake: server, provider } = await setUp([textReply('Summary.')]);
    const events = await collect(
      provider.chat({ system: SYSTEM_PROMPT, messages: CONVERSATION, tools: TOOLS, settings: {} }),
    );
    expect(events[0]).toEqual({ type: 'text-delta', text: 'Summary.' });
    const roles = server.chatRequests[0]?.messages.map((message) => message.role);
    expect(roles).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'tool',
      'assistant',
      'tool',
      'assistant',
      'user',
    ]);
    expect(server.chatRequests[0]?.messages[6]?.images).toHaveLength(1);
  });

  it('uses the injected fetch, for the model info and the chat', async () => {
    const fetched: string[] = [];
    const countingFetch: typeof fetch = (input, init) => {
      fetched.push(new URL(input instanceof Request ? input.url : input).pathname);
      return fetch(input, init);
    };
    const { provider } = await setUp([textReply('ok'), textReply('again')], { fetch: countingFetch });
    await collect(provider.chat(ask('hi')));
    await collect(provider.chat(ask('hi')));
    // `/api/show` once: the window it gives is kept for every later chat.
    expect(fetched).toEqual(['/api/show', '/api/chat', '/api/chat']);
  });

  it('releases the connection when the caller stops reading early', async () => {
    const { fake: server, provider } = await setUp([{ type: 'stall', text: ['a', 'b'] }]);
    for await (const event of provider.chat(ask('hi'))) {
      expect(event).toEqual({ type: 'text-delta', text: 'a' });
      break;
    }
    await server.waitForIdle();
    expect(server.chatRequests).toHaveLength(1);
  });
});

describe('OllamaProvider tool calls', () => {
  it('makes an id for a tool call and finishes with tool-calls', async () => {
    const { provider } = await setUp([toolCallReply(['everything__echo', { message: 'hi' }])]);
    const events = await collect(provider.chat(ask('echo hi', { tools: TOOLS })));
    const [call] = calls(events);
    expect(call).toMatchObject({ type: 'tool-call', name: 'everything__echo', input: { message: 'hi' } });
    expect(call?.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(call?.rawInput).toBeUndefined();
    expect(events.at(-1)).toMatchObject({ type: 'finish', reason: 'tool-calls' });
  });

  it('returns two parallel calls with different ids, in order', async () => {
    const { provider } = await setUp([
      toolCallReply(
        ['everything__echo', { message: 'a' }],
        ['filesystem__read_file', { path: '/tmp/a.txt' }],
      ),
    ]);
    const found = calls(await collect(provider.chat(ask('both', { tools: TOOLS }))));
    expect(found.map((call) => [call.name, call.input])).toEqual([
      ['everything__echo', { message: 'a' }],
      ['filesystem__read_file', { path: '/tmp/a.txt' }],
    ]);
    expect(new Set(found.map((call) => call.id)).size).toBe(2);
  });

  it('keeps ids unique across calls of a conversation', async () => {
    const reply = toolCallReply(['everything__echo', { message: 'x' }]);
    const { provider } = await setUp([reply, reply, reply]);
    const ids: string[] = [];
    for (let index = 0; index < 3; index++) {
      ids.push(...calls(await collect(provider.chat(ask('again', { tools: TOOLS })))).map((call) => call.id));
    }
    expect(new Set(ids).size).toBe(3);
  });

  it('keeps arguments that are not an object as rawInput', async () => {
    const { provider } = await setUp([
      { type: 'answer', toolCalls: [{ name: 'everything__echo', arguments: 'hi' }] },
    ]);
    const [call] = calls(await collect(provider.chat(ask('echo', { tools: TOOLS }))));
    expect(call).toMatchObject({ input: {}, rawInput: 'hi' });
  });

  it('lets a scripted reply answer from the tools it was offered', async () => {
    const { provider } = await setUp([
      (request) => toolCallReply([request.tools?.[0]?.function.name ?? 'none', { message: 'from tools' }]),
    ]);
    const [call] = calls(await collect(provider.chat(ask('use a tool', { tools: TOOLS }))));
    expect(call?.name).toBe('everything__echo');
  });
});

describe('OllamaProvider errors', () => {
  it.each([500, 502, 503, 429])('%i is a retryable ProviderError carrying the status', async (status) => {
    const { provider } = await setUp([errorReply(status, `busy ${status}`)]);
    const error = await failure(provider.chat(ask('hi')));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider: 'ollama', status, retryable: true });
    expect((error as Error).message).toContain(`busy ${status}`);
  });

  it('honours Retry-After on a 429', async () => {
    const { provider } = await setUp([
      { type: 'error', status: 429, error: 'too many requests', headers: { 'retry-after': '3' } },
    ]);
    expect(await failure(provider.chat(ask('hi')))).toMatchObject({ status: 429, retryAfterMs: 3000 });
  });

  it("fails fast on 400 with Ollama's message", async () => {
    const { provider } = await setUp([
      errorReply(400, 'registry.ollama.ai/library/qwen2.5:3b does not support tools'),
    ]);
    const error = await failure(provider.chat(ask('hi')));
    expect(error).toMatchObject({ status: 400, retryable: false });
    expect((error as Error).message).toContain('does not support tools');
  });

  it('says to pull a model the server does not have', async () => {
    const { provider } = await setUp([], { model: 'no-such-model' });
    const error = await failure(provider.chat(ask('hi')));
    expect(error).toMatchObject({ status: 404, retryable: false, missingModel: 'no-such-model' });
    expect((error as Error).message).toBe(
      `Ollama at ${fake?.url} does not have the model "no-such-model": run \`ollama pull no-such-model\``,
    );
  });

  it('says the same when the chat itself is refused (a window given, so no /api/show first)', async () => {
    const { provider, fake: server } = await setUp([], { model: 'no-such-model', contextWindow: 4096 });
    const error = await failure(provider.chat(ask('hi')));
    expect(server.requests.map((request) => request.path)).toEqual(['/api/chat']);
    expect(error).toMatchObject({ status: 404, missingModel: 'no-such-model' });
    expect((error as Error).message).toContain('`ollama pull no-such-model`');
  });

  it('reads an error body that is not JSON without printing it', async () => {
    const { provider } = await setUp([{ type: 'error', status: 502, body: '<html>Bad Gateway</html>' }]);
    const error = await failure(provider.chat(ask('hi')));
    expect(error).toMatchObject({ status: 502, retryable: true });
    expect((error as Error).message).toContain('<html>Bad Gateway</html>');
  });

  it("turns Ollama's in-stream error line into a retryable ProviderError", async () => {
    const { provider } = await setUp([
      { type: 'stream-error', text: ['partial'], error: 'llama runner process has terminated' },
    ]);
    const seen: ProviderEvent[] = [];
    let caught: unknown;
    try {
      for await (const event of provider.chat(ask('hi'))) seen.push(event);
    } catch (error) {
      caught = error;
    }
    expect(seen).toEqual([{ type: 'text-delta', text: 'partial' }]);
    expect(caught).toMatchObject({ name: 'ProviderError', retryable: true });
    expect((caught as Error).message).toContain('llama runner process has terminated');
  });

  it('fails on a streamed line that is not JSON', async () => {
    const { provider } = await setUp([{ type: 'raw', body: 'this is not json\n' }]);
    const error = await failure(provider.chat(ask('hi')));
    expect(error).toMatchObject({ name: 'ProviderError', retryable: false });
    expect((error as Error).message).toContain('not JSON: this is not json');
  });

  it('fails when the stream ends without its final line', async () => {
    const line = JSON.stringify({
      model: 'qwen2.5:3b',
      message: { role: 'assistant', content: 'cut' },
      done: false,
    });
    const { provider } = await setUp([{ type: 'raw', body: `${line}\n` }]);
    const error = await failure(provider.chat(ask('hi')));
    expect(error).toMatchObject({ name: 'ProviderError', retryable: true });
    expect((error as Error).message).toContain('ended before Ollama said it was done');
  });

  it('treats a dropped connection as a retryable network error', async () => {
    const { provider } = await setUp([{ type: 'hang-up' }]);
    const error = await failure(provider.chat(ask('hi')));
    expect(error).toMatchObject({ name: 'ProviderError', retryable: true, status: undefined });
    expect((error as Error).message).toMatch(
      /^network error talking to Ollama at http:\/\/127\.0\.0\.1:\d+ \(ECONNRESET\)$/,
    );
  });

  it('says the same through an injected fetch (its cause chain)', async () => {
    const { provider } = await setUp([{ type: 'hang-up' }], { fetch });
    const error = await failure(provider.chat(ask('hi')));
    expect(error).toMatchObject({ name: 'ProviderError', retryable: true, status: undefined });
    expect((error as Error).message).toMatch(
      /^network error talking to Ollama at http:\/\/127\.0\.0\.1:\d+ \(/,
    );
  });

  it('says how to start Ollama when nothing listens', async () => {
    const port = await unusedPort();
    const provider = new OllamaProvider({ model: 'm', env: { OLLAMA_HOST: `127.0.0.1:${port}` } });
    const error = await failure(provider.chat(ask('hi')));
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).retryable).toBe(false);
    expect(
      (error as Error).message.startsWith(
        `cannot reach Ollama at http://127.0.0.1:${port} — is \`ollama serve\` running?`,
      ),
    ).toBe(true);
  });

  it('throws AbortedError without calling the server when already aborted', async () => {
    const { fake: server, provider } = await setUp([textReply('never')]);
    const error = await failure(provider.chat(ask('hi', { signal: AbortSignal.abort() })));
    expect(error).toBeInstanceOf(AbortedError);
    expect(server.requests).toHaveLength(0);
  });

  it('throws AbortedError when aborted while waiting for the first line', async () => {
    const { fake: server, provider } = await setUp([{ type: 'stall' }]);
    const controller = new AbortController();
    const pending = failure(provider.chat(ask('hi', { signal: controller.signal })));
    // Abort only once the server holds the request, so this is the in-flight path.
    while (server.chatRequests.length === 0) await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    expect(await pending).toBeInstanceOf(AbortedError);
    await server.waitForIdle();
  });
});

describe('OllamaProvider host', () => {
  it.each([
    ['host:port', (port: number) => `127.0.0.1:${port}`],
    ['0.0.0.0:port', (port: number) => `0.0.0.0:${port}`],
    [':port', (port: number) => `:${port}`],
    ['a full URL', (port: number) => `http://127.0.0.1:${port}/`],
  ])('reaches the server through OLLAMA_HOST given as %s', async (_form, value) => {
    fake = await startFakeOllama([textReply('via env')]);
    const port = Number(new URL(fake.url).port);
    const provider = new OllamaProvider({ model: 'llama3.2', env: { OLLAMA_HOST: value(port) } });
    expect(provider.host).toBe(`http://127.0.0.1:${port}`);
    expect((await collect(provider.chat(ask('hi'))))[0]).toEqual({ type: 'text-delta', text: 'via env' });
  });

  it('prefers the base URL to OLLAMA_HOST', async () => {
    const port = await unusedPort();
    const { provider } = await setUp([textReply('flag wins')], { env: { OLLAMA_HOST: `127.0.0.1:${port}` } });
    expect((await collect(provider.chat(ask('hi'))))[0]).toEqual({ type: 'text-delta', text: 'flag wins' });
  });

  it('sends a key given with --provider-api-key to the host it names', async () => {
    const { fake: server, provider } = await setUp([textReply('ok')], { apiKey: 'sk-proxy' });
    await collect(provider.chat(ask('hi')));
    expect(server.requests.at(-1)).toMatchObject({ path: '/api/chat', authorization: 'Bearer sk-proxy' });
  });

  it("keeps OLLAMA_API_KEY for Ollama's cloud: a local host does not get it", async () => {
    const { fake: server, provider } = await setUp([textReply('ok')], {
      env: { OLLAMA_API_KEY: 'sk-cloud' },
    });
    await collect(provider.chat(ask('hi')));
    expect(server.requests.at(-1)?.path).toBe('/api/chat');
    expect(server.requests.at(-1)?.authorization).toBeUndefined();
  });

  it('defaults to the local Ollama port', () => {
    expect(new OllamaProvider({ model: 'm', env: {} }).host).toBe('http://127.0.0.1:11434');
  });
});
