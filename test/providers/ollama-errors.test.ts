import { describe, expect, it } from 'vitest';
import { AbortedError, ProviderError } from '../../src/core/errors.js';
import { toOllamaError } from '../../providers/ollama.js';

const context = { host: 'http://127.0.0.1:11434', model: 'qwen2.5:3b' };

/** What fetch throws: a TypeError whose cause (or the cause's cause) carries the socket code. */
function networkError(code: string): Error {
  const socket = Object.assign(new Error(`connect ${code}`), { code });
  return new TypeError('fetch failed', { cause: new Error('wrapped', { cause: socket }) });
}

describe('toOllamaError', () => {
  it('reads a refused connection from the cause chain and says how to start Ollama', () => {
    const error = toOllamaError(networkError('ECONNREFUSED'), context);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({
      retryable: false,
      message: 'cannot reach Ollama at http://127.0.0.1:11434 — is `ollama serve` running?',
    });
  });

  // EAI_AGAIN belongs here too, but http-errors.ts's code pattern misses codes with an underscore
  // after E (reported to the lead).
  it.each(['ECONNRESET', 'ETIMEDOUT', 'UND_ERR_SOCKET'])('%s is retryable', (code) => {
    expect(toOllamaError(networkError(code), context)).toMatchObject({ retryable: true });
  });

  it('an unknown host is not retryable', () => {
    expect(toOllamaError(networkError('ENOTFOUND'), context)).toMatchObject({
      retryable: false,
      message: 'cannot reach Ollama at http://127.0.0.1:11434: no such host',
    });
  });

  it('passes errors of our own tree through unchanged', () => {
    const aborted = new AbortedError();
    expect(toOllamaError(aborted, context)).toBe(aborted);
  });

  it('wraps anything else as a non-retryable ProviderError keeping the cause', () => {
    const cause = new Error('odd');
    const error = toOllamaError(cause, context);
    expect(error).toMatchObject({
      name: 'ProviderError',
      retryable: false,
      message: 'Ollama at http://127.0.0.1:11434: odd',
    });
    expect(error.cause).toBe(cause);
  });
});
