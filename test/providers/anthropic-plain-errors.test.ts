/** A server that is not the Anthropic API answers with plain text: the message says it once. */
import { describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../../providers/anthropic.js';
import { ProviderError } from '../../src/core/errors.js';
import { startLoopbackServer } from '../support/loopback.js';

describe('Anthropic errors without a JSON body', () => {
  it('gives the status once, then the body', async () => {
    const server = await startLoopbackServer((_request, response) => {
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end('404 page not found');
    });
    try {
      const provider = new AnthropicProvider({
        model: 'claude-x',
        apiKey: 'k',
        baseUrl: server.url,
        env: {},
      });
      const stream = provider.chat({
        messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
        tools: [],
        settings: {},
      });
      const error = await (async () => {
        for await (const _event of stream) {
          // nothing arrives
        }
      })().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ProviderError);
      expect((error as ProviderError).message).toBe('Anthropic API error 404: 404 page not found');
      expect((error as ProviderError).retryable).toBe(false);
    } finally {
      await server.close();
    }
  });
});
