import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors.js';
import { createProvider, KNOWN_PROVIDERS, parseModelString } from '../../providers/index.js';

describe('parseModelString', () => {
  it.each([
    ['ollama:mistral-small', 'ollama', 'mistral-small'],
    ['ollama:qwen2.5:3b', 'ollama', 'qwen2.5:3b'],
    ['ollama/llama3.2', 'ollama', 'llama3.2'],
    ['openai/meta-llama/x', 'openai', 'meta-llama/x'],
    ['openai:meta-llama/Llama-3-8B', 'openai', 'meta-llama/Llama-3-8B'],
    ['anthropic:claude-sonnet-4-5', 'anthropic', 'claude-sonnet-4-5'],
    ['google:gemini-2.5-flash', 'google', 'gemini-2.5-flash'],
    ['gemini:gemini-2.5-flash', 'google', 'gemini-2.5-flash'],
    ['Ollama:Mistral', 'ollama', 'Mistral'],
  ])('%s → %s + %s', (text, provider, model) => {
    expect(parseModelString(text)).toEqual({ provider, model });
  });

  it('names every known provider when the provider is unknown', () => {
    expect(KNOWN_PROVIDERS).toEqual(['ollama', 'anthropic', 'google', 'openai', 'local']);
    expect(() => parseModelString('mistral:large')).toThrow(ConfigError);
    expect(() => parseModelString('mistral:large')).toThrow(
      '--model: unknown provider "mistral" in "mistral:large"; known providers: ollama, anthropic, google, openai, local',
    );
  });

  it.each(['', 'mistral-small', ':mistral', 'ollama:', 'gemini:', '/x', 'openai/'])(
    'refuses %j as not provider:model',
    (text) => {
      expect(() => parseModelString(text)).toThrow(ConfigError);
      expect(() => parseModelString(text)).toThrow(
        /is not provider:model \(for example ollama:mistral-small\)$/,
      );
    },
  );

  it('names where the string came from', () => {
    expect(() => parseModelString('nope', '~/.mcp.json model')).toThrow(/^~\/\.mcp\.json model: /);
  });
});

describe('createProvider', () => {
  it('creates the Ollama provider with the model name after the first separator', async () => {
    const provider = await createProvider('ollama:qwen2.5:3b', { env: { OLLAMA_HOST: '0.0.0.0:1234' } });
    expect(provider).toMatchObject({ name: 'ollama', model: 'qwen2.5:3b', host: 'http://127.0.0.1:1234' });
  });
});
