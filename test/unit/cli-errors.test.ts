import { describe, expect, it } from 'vitest';
import { describeError } from '../../src/cli/exit-codes.js';
import { ConfigError, ProviderError } from '../../src/errors.js';

describe('describeError', () => {
  it('keeps the lines a config error lists under its one-line summary', () => {
    const error = new ConfigError('/h/.mcp.json', '2 problems:\n  maxSteps: bad\n  topK: bad');
    expect(describeError(error, false)).toBe(
      'mcphost: /h/.mcp.json: 2 problems:\n  maxSteps: bad\n  topK: bad',
    );
  });

  it('puts any other message on one line', () => {
    expect(describeError(new ConfigError('x', 'a\nb'), false)).toBe('mcphost: x: a b');
    expect(describeError(new ProviderError('ollama', 'down\nhard', { retryable: false }), false)).toBe(
      'mcphost: down hard',
    );
  });
});
