/** The model used when nothing names one: the embedded model, unless a model server is named. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_LOCAL_MODEL } from '../../providers/local/model-names.js';
import { DEFAULT_MODEL, DEFAULT_OLLAMA_MODEL, defaultModel } from '../../src/setup/create-runner.js';

describe('defaultModel', () => {
  it('is the embedded model when nothing names a server', () => {
    expect(DEFAULT_MODEL).toBe(`local:${DEFAULT_LOCAL_MODEL}`);
    expect(defaultModel(undefined, {})).toBe(DEFAULT_MODEL);
    expect(defaultModel(undefined, { OLLAMA_HOST: '  ' })).toBe(DEFAULT_MODEL);
  });

  it('is Ollama when a provider URL or OLLAMA_HOST names a server', () => {
    expect(defaultModel('http://127.0.0.1:11434', {})).toBe(DEFAULT_OLLAMA_MODEL);
    expect(defaultModel(undefined, { OLLAMA_HOST: 'http://box:11434' })).toBe(DEFAULT_OLLAMA_MODEL);
  });
});
