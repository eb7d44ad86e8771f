import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors.js';
import { DEFAULT_OLLAMA_HOST, parseOllamaHost, resolveOllamaHost } from '../../providers/ollama.js';

describe('parseOllamaHost (the forms OLLAMA_HOST takes)', () => {
  it.each([
    ['127.0.0.1', 'http://127.0.0.1:11434'],
    ['localhost:8080', 'http://localhost:8080'],
    ['example.com', 'http://example.com:11434'],
    ['0.0.0.0', 'http://127.0.0.1:11434'],
    ['0.0.0.0:9999', 'http://127.0.0.1:9999'],
    [':9999', 'http://127.0.0.1:9999'],
    ['http://example.com', 'http://example.com:80'],
    ['https://example.com', 'https://example.com:443'],
    ['https://example.com:8443/', 'https://example.com:8443'],
    ['http://gpu-box:11434/ollama/', 'http://gpu-box:11434/ollama'],
    ['HTTP://Box:1234', 'http://Box:1234'],
    ['[::1]:11434', 'http://[::1]:11434'],
    ['::1', 'http://[::1]:11434'],
    ['[::]', 'http://[::1]:11434'],
    ['"10.0.0.5:11434"', 'http://10.0.0.5:11434'],
    ['  10.0.0.5  ', 'http://10.0.0.5:11434'],
    ['localhost:notaport', 'http://localhost:11434'],
    ['localhost:99999', 'http://localhost:11434'],
    ['ollama.com', 'https://ollama.com:443'],
    ['', DEFAULT_OLLAMA_HOST],
  ])('%j → %s', (input, expected) => {
    expect(parseOllamaHost(input, 'OLLAMA_HOST')).toBe(expected);
  });

  it('refuses a scheme Ollama does not speak, naming where the value came from', () => {
    expect(() => parseOllamaHost('ftp://box:21', 'OLLAMA_HOST')).toThrow(ConfigError);
    expect(() => parseOllamaHost('ftp://box:21', 'OLLAMA_HOST')).toThrow(/^OLLAMA_HOST: "ftp:\/\/box:21"/);
  });

  it('refuses a host that cannot be in a URL', () => {
    expect(() => parseOllamaHost('http://bad host:1', '--provider-url')).toThrow(/^--provider-url: /);
  });
});

describe('resolveOllamaHost', () => {
  it('prefers --provider-url, then OLLAMA_HOST, then the default', () => {
    const env = { OLLAMA_HOST: 'envhost:1111' };
    expect(resolveOllamaHost({ baseUrl: 'http://flag:2222', env })).toBe('http://flag:2222');
    expect(resolveOllamaHost({ env })).toBe('http://envhost:1111');
    expect(resolveOllamaHost({ baseUrl: '  ', env: { OLLAMA_HOST: '' } })).toBe('http://127.0.0.1:11434');
  });
});
