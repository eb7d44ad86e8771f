import { describe, expect, it } from 'vitest';
import { describeError } from '../../src/cli/exit-codes.js';
import { ConfigError, ProviderError } from '../../src/core/errors.js';
import { userPath } from '../../src/cli/io.js';
import { inChatAdvice } from '../../src/cli/model-switch-advice.js';

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

describe('/model advice', () => {
  it('replaces advice that cannot be followed inside the chat', () => {
    const advice = inChatAdvice(
      new ConfigError('ANTHROPIC_API_KEY', 'is not set; export it or pass --provider-api-key'),
    ) as ConfigError;
    expect(advice.message).toBe(
      'ANTHROPIC_API_KEY: is not set; quit, export it (or start with --provider-api-key), and run mcphost -c to go on with this conversation',
    );
    const other = new ConfigError('x', 'something else');
    expect(inChatAdvice(other)).toBe(other);
  });
});

describe('userPath', () => {
  it('expands ~ to the home folder and resolves the rest from the working folder', () => {
    const io = { cwd: '/work/here', homeDir: '/home/ann' };
    expect(userPath(io, '~/x.json')).toBe('/home/ann/x.json');
    expect(userPath(io, '~')).toBe('/home/ann');
    expect(userPath(io, 'x.json')).toBe('/work/here/x.json');
    expect(userPath(io, '~other/x')).toBe('/work/here/~other/x');
  });
});
