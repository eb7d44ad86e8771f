/** Which refusals each provider reads as "longer than the context window" (and which it does not). */
import { describe, expect, it } from 'vitest';
import { isAnthropicContextLengthError } from '../../providers/anthropic-errors.js';
import { isGeminiContextLengthError } from '../../providers/google-errors.js';
import { isOllamaContextLengthError } from '../../providers/ollama-errors.js';
import { isOpenAIContextLengthError } from '../../providers/openai-errors.js';

describe('context-length refusals', () => {
  it('Anthropic: the 400 "prompt is too long", the 413 request_too_large; not other 400s', () => {
    expect(
      isAnthropicContextLengthError(
        400,
        'invalid_request_error',
        'prompt is too long: 215000 tokens > 200000 maximum',
      ),
    ).toBe(true);
    expect(
      isAnthropicContextLengthError(
        413,
        'request_too_large',
        'Request exceeds the maximum allowed number of bytes.',
      ),
    ).toBe(true);
    expect(
      isAnthropicContextLengthError(
        400,
        'invalid_request_error',
        'messages: text content blocks must be non-empty',
      ),
    ).toBe(false);
    expect(isAnthropicContextLengthError(429, 'rate_limit_error', 'prompt is too long')).toBe(false);
  });

  it("OpenAI and compatible servers: the code, or the words vLLM and llama.cpp's server use", () => {
    expect(
      isOpenAIContextLengthError(
        400,
        'context_length_exceeded',
        'Your input exceeds the context window of this model.',
      ),
    ).toBe(true);
    // vLLM: no code, OpenAI's words.
    expect(
      isOpenAIContextLengthError(
        400,
        null,
        "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens",
      ),
    ).toBe(true);
    // llama.cpp's server.
    expect(
      isOpenAIContextLengthError(
        400,
        null,
        'the request exceeds the available context size, try increasing it',
      ),
    ).toBe(true);
    expect(isOpenAIContextLengthError(400, 'invalid_value', "Invalid 'tools': array too long")).toBe(false);
    expect(isOpenAIContextLengthError(500, null, 'maximum context length')).toBe(false);
  });

  it('Gemini: the 400 about the input token count only', () => {
    expect(
      isGeminiContextLengthError(
        400,
        'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
      ),
    ).toBe(true);
    expect(isGeminiContextLengthError(400, 'API key not valid. Please pass a valid API key.')).toBe(false);
  });

  it('Ollama: the refusals it does send', () => {
    expect(isOllamaContextLengthError('input length exceeds the context length')).toBe(true);
    expect(isOllamaContextLengthError("model 'x' not found")).toBe(false);
  });
});
