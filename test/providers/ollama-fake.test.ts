/** The fake Ollama itself: it must refuse what a real Ollama refuses, or provider tests prove nothing. */
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOllama, textReply, toolCallReply, type FakeOllama } from '../fakes/ollama-server.js';
import { TINY_PNG_BASE64 } from '../fixtures/conversation.js';

let fake: FakeOllama | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function post(body: unknown): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${fake?.url}/api/chat`, { method: 'POST', body: JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) as unknown };
}

const user = { role: 'user', content: 'hi' };
const callingAssistant = {
  role: 'assistant',
  content: '',
  tool_calls: [{ function: { name: 'a__b', arguments: { x: 1 } } }],
};

describe('fake Ollama rules', () => {
  it.each([
    ['no model', { messages: [user] }, 400, 'model is required'],
    [
      'an unknown model',
      { model: 'ghost', messages: [user] },
      404,
      'model "ghost" not found, try pulling it first',
    ],
    [
      'an unknown role',
      { model: 'llama3.2', messages: [{ role: 'human', content: 'x' }] },
      400,
      'invalid role "human"',
    ],
    [
      'a tool result with no call before it',
      { model: 'llama3.2', messages: [user, { role: 'tool', content: 'r', tool_name: 'a__b' }] },
      400,
      'a tool message must follow an assistant message with tool_calls',
    ],
    [
      'a tool result after a user message',
      { model: 'llama3.2', messages: [user, callingAssistant, user, { role: 'tool', content: 'r' }] },
      400,
      'a tool message must follow',
    ],
    [
      'an image with a data: prefix',
      { model: 'llama3.2', messages: [{ ...user, images: [`data:image/png;base64,${TINY_PNG_BASE64}`] }] },
      400,
      'illegal base64 data',
    ],
    [
      'arguments as a string',
      {
        model: 'llama3.2',
        messages: [
          user,
          { role: 'assistant', content: '', tool_calls: [{ function: { name: 'a', arguments: '{}' } }] },
        ],
      },
      400,
      'cannot unmarshal',
    ],
    [
      'a tool that is not a function',
      { model: 'llama3.2', messages: [user], tools: [{ type: 'retrieval', function: { name: 'x' } }] },
      400,
      'invalid tool type',
    ],
    [
      'a tool without a name',
      { model: 'llama3.2', messages: [user], tools: [{ type: 'function', function: { description: 'x' } }] },
      400,
      'tool function name is required',
    ],
    [
      'a non-numeric option',
      { model: 'llama3.2', messages: [user], options: { num_predict: '5' } },
      400,
      'option "num_predict"',
    ],
  ])('refuses %s', async (_label, body, status, message) => {
    fake = await startFakeOllama([textReply('never')]);
    const answer = await post(body);
    expect(answer.status).toBe(status);
    expect((answer.body as { error: string }).error).toContain(message);
    expect(fake.chatRequests).toHaveLength(0);
    expect(fake.pending()).toBe(1);
    expect(fake.requests).toHaveLength(1);
  });

  it('accepts a tool result after the call, and a model name without its :latest tag', async () => {
    fake = await startFakeOllama([textReply('fine')]);
    const answer = await post({
      model: 'llama3.2',
      stream: false,
      messages: [
        user,
        callingAssistant,
        { role: 'tool', content: 'r', tool_name: 'a__b', images: [TINY_PNG_BASE64] },
      ],
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      message: { role: 'assistant', content: 'fine' },
      done: true,
      done_reason: 'stop',
    });
  });

  it('answers stream:false with one JSON object including tool calls', async () => {
    fake = await startFakeOllama([toolCallReply(['a__b', { x: 1 }])]);
    const answer = await post({ model: 'qwen2.5:3b', stream: false, messages: [user] });
    expect(answer.body).toMatchObject({
      message: { tool_calls: [{ function: { name: 'a__b', arguments: { x: 1 } } }] },
      done: true,
    });
  });

  it('streams NDJSON lines ending with done', async () => {
    fake = await startFakeOllama([{ type: 'answer', text: ['a', 'b'], evalCount: 2, promptEvalCount: 5 }]);
    const response = await fetch(`${fake.url}/api/chat`, {
      method: 'POST',
      body: JSON.stringify({ model: 'llama3.2', messages: [user] }),
    });
    expect(response.headers.get('content-type')).toBe('application/x-ndjson');
    const lines = (await response.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((line) => line.done)).toEqual([false, false, true]);
    expect(lines[2]).toMatchObject({ prompt_eval_count: 5, eval_count: 2 });
  });

  it('refuses a chat with nothing scripted, and uses the fallback when given', async () => {
    fake = await startFakeOllama([]);
    const refused = await post({ model: 'llama3.2', messages: [user] });
    expect(refused.status).toBe(400);
    expect((refused.body as { error: string }).error).toContain('no reply scripted');
    await fake.close();
    fake = await startFakeOllama([], { fallback: textReply('always') });
    for (let index = 0; index < 2; index++) {
      const answer = await post({ model: 'llama3.2', stream: false, messages: [user] });
      expect(answer.body).toMatchObject({ message: { content: 'always' } });
    }
  });

  it('answers an empty chat as a model load without using the script', async () => {
    fake = await startFakeOllama([textReply('kept')]);
    const answer = await post({ model: 'llama3.2', messages: [] });
    expect(answer.body).toMatchObject({ done: true, done_reason: 'load' });
    expect(fake.pending()).toBe(1);
  });

  it('serves /api/tags, /api/version, and 404 elsewhere', async () => {
    fake = await startFakeOllama([], { models: ['mistral-small'], version: '9.9.9' });
    const tags = (await (await fetch(`${fake.url}/api/tags`)).json()) as { models: Array<{ name: string }> };
    expect(tags.models.map((model) => model.name)).toEqual(['mistral-small:latest']);
    expect(await (await fetch(`${fake.url}/api/version`)).json()).toEqual({ version: '9.9.9' });
    const missing = await fetch(`${fake.url}/v1/chat/completions`, { method: 'POST', body: '{}' });
    expect(missing.status).toBe(404);
    expect(await missing.text()).toBe('404 page not found');
  });

  it("answers /api/show with the trained length and capabilities, and Ollama's 404 for an unknown model", async () => {
    fake = await startFakeOllama([], { trainedContextLength: 8_192 });
    const show = await fetch(`${fake.url}/api/show`, {
      method: 'POST',
      body: JSON.stringify({ model: 'llama3.2' }),
    });
    expect(await show.json()).toMatchObject({
      model_info: { 'general.architecture': 'llama', 'llama.context_length': 8_192 },
      capabilities: ['completion', 'tools'],
    });
    const unknown = await fetch(`${fake.url}/api/show`, {
      method: 'POST',
      body: JSON.stringify({ model: 'ghost' }),
    });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: "model 'ghost' not found" });
  });

  it('streams a pull as NDJSON progress lines ending with success, or an error line for an unknown name', async () => {
    fake = await startFakeOllama([], { models: [] });
    const lines = async (model: string): Promise<Array<Record<string, unknown>>> => {
      const answer = await fetch(`${fake?.url}/api/pull`, {
        method: 'POST',
        body: JSON.stringify({ model }),
      });
      expect(answer.status).toBe(200);
      return (await answer.text())
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    };
    const pulled = await lines('tinyllama');
    expect(pulled[0]).toEqual({ status: 'pulling manifest' });
    expect(pulled[1]).toEqual({
      status: expect.stringMatching(/^pulling [0-9a-f]{12}$/) as unknown,
      digest: expect.stringMatching(/^sha256:/) as unknown,
      total: expect.any(Number) as unknown,
    });
    expect(pulled.some((line) => typeof line.completed === 'number')).toBe(true);
    expect(pulled.at(-1)).toEqual({ status: 'success' });
    expect(await lines('ghost')).toEqual([
      { status: 'pulling manifest' },
      { error: 'pull model manifest: file does not exist' },
    ]);
    const none = await fetch(`${fake.url}/api/pull`, { method: 'POST', body: '{}' });
    expect(none.status).toBe(400);
  });
});
