/** The Ollama exchange over node:http (providers/ollama-http.ts) against the loopback fake Ollama. */
import { afterEach, describe, expect, it } from 'vitest';
import { nodeOllamaHttp, type OllamaHttp, type OllamaHttpAnswer } from '../../providers/ollama-http.js';
import { ollamaStreamObjects } from '../../providers/ollama-stream.js';
import { networkErrorCode } from '../../providers/http-errors.js';
import { startFakeOllama, type FakeOllama } from '../fakes/ollama-server.js';

let fake: FakeOllama | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const CHAT = JSON.stringify({
  model: 'qwen2.5:3b',
  messages: [{ role: 'user', content: 'hi' }],
  stream: true,
});

/** One streamed chat request to the fake, through `http`. */
function postChat(http: OllamaHttp, url: string): Promise<OllamaHttpAnswer> {
  return http({
    url: `${url}/api/chat`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: CHAT,
    signal: new AbortController().signal,
  });
}

describe('the Ollama exchange over node:http', () => {
  it('fails, retryably, when Ollama stays silent mid-answer longer than the idle limit', async () => {
    fake = await startFakeOllama([{ type: 'stall', text: ['first words'] }]);
    const http = nodeOllamaHttp(300);
    const answer = await postChat(http, fake.url);
    expect(answer.status).toBe(200);
    const seen: unknown[] = [];
    const reading = (async () => {
      for await (const value of ollamaStreamObjects(answer.body)) seen.push(value);
    })();
    const error = await reading.then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(seen).toHaveLength(1);
    expect(networkErrorCode(error)).toMatch(/^(ETIMEDOUT|ECONNRESET)$/);
  });

  it('reads a whole answer with the connection kept for the next request', async () => {
    fake = await startFakeOllama([], { fallback: { type: 'answer', text: 'ok' } });
    const http = nodeOllamaHttp(300);
    for (let round = 0; round < 2; round++) {
      const answer = await postChat(http, fake.url);
      const values: unknown[] = [];
      for await (const value of ollamaStreamObjects(answer.body)) values.push(value);
      expect(values.at(-1)).toMatchObject({ done: true });
    }
    // Well past the idle limit: a connection kept for reuse must not fail anything now.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(fake.chatRequests).toHaveLength(2);
  });
});
