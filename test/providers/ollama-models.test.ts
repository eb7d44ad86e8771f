/** Model management for Ollama (providers/ollama-models.ts): the real `ollama` client against the fake. */
import { afterEach, describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/core/errors.js';
import { ollamaModels, type OllamaPullEvent } from '../../providers/ollama-models.js';
import { startFakeOllama, type FakeOllama } from '../fakes/ollama-server.js';

let fake: FakeOllama | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function collect(events: AsyncIterable<OllamaPullEvent>): Promise<OllamaPullEvent[]> {
  const result: OllamaPullEvent[] = [];
  for await (const event of events) result.push(event);
  return result;
}

describe('ollamaModels', () => {
  it('lists the installed models with their details', async () => {
    fake = await startFakeOllama([], { models: ['qwen2.5:3b', 'llama3.2'] });
    const models = ollamaModels({ baseUrl: fake.url, env: {} });
    expect(await models.list()).toEqual([
      expect.objectContaining({
        name: 'qwen2.5:3b',
        size: 1_000_000,
        parameterSize: '3B',
        quantization: 'Q4_K_M',
      }),
      expect.objectContaining({ name: 'llama3.2:latest' }),
    ]);
    expect(fake.requests.map((request) => `${request.method} ${request.path}`)).toEqual(['GET /api/tags']);
  });

  it('pulls a model with progress events, after which the server has it', async () => {
    fake = await startFakeOllama([], { models: [] });
    const models = ollamaModels({ baseUrl: fake.url, env: {} });
    expect(await models.has('tinyllama')).toBe(false);
    const events = await collect(models.pull('tinyllama'));
    expect(events[0]).toEqual({ type: 'status', status: 'pulling manifest' });
    const progress = events.filter((event) => event.type === 'progress');
    expect(progress.length).toBeGreaterThan(3);
    expect(progress.at(-1)).toMatchObject({ completed: progress.at(-1)?.total });
    expect(events.at(-1)).toEqual({ type: 'done' });
    expect(await models.has('tinyllama')).toBe(true);
    // The client sends the deprecated `name`, which Ollama still reads.
    expect(fake.requests.find((request) => request.path === '/api/pull')?.body).toMatchObject({
      name: 'tinyllama',
      stream: true,
    });
  });

  it("says the library has no such model, from Ollama's error line", async () => {
    fake = await startFakeOllama([], { models: [] });
    const pulling = collect(ollamaModels({ baseUrl: fake.url, env: {} }).pull('no-such-model'));
    const error = await pulling.catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ missingModel: 'no-such-model', retryable: false });
    expect((error as Error).message).toContain('pull model manifest: file does not exist');
  });

  it('removes a model, and says when there is none to remove', async () => {
    fake = await startFakeOllama([], { models: ['llama3.2'] });
    const models = ollamaModels({ baseUrl: fake.url, env: {} });
    await models.remove('llama3.2');
    expect(await models.list()).toEqual([]);
    const error = await models.remove('llama3.2').catch((failure: unknown) => failure);
    expect(error).toMatchObject({ status: 404, missingModel: 'llama3.2' });
  });

  it('lists the models a chat has loaded', async () => {
    fake = await startFakeOllama([], { models: ['llama3.2'], fallback: { type: 'answer', text: 'ok' } });
    const models = ollamaModels({ baseUrl: fake.url, env: {} });
    expect(await models.running()).toEqual([]);
    await fetch(`${fake.url}/api/chat`, {
      method: 'POST',
      body: JSON.stringify({ model: 'llama3.2', messages: [{ role: 'user', content: 'hi' }], stream: false }),
    });
    expect(await models.running()).toEqual([
      expect.objectContaining({ name: 'llama3.2:latest', sizeVram: 1_000_000 }),
    ]);
  });

  it('says how to start Ollama when nothing listens', async () => {
    const models = ollamaModels({ baseUrl: 'http://127.0.0.1:9', env: {} });
    await expect(models.list()).rejects.toThrow(/is `ollama serve` running\?/);
  });
});
