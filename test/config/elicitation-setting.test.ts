/** The `elicitation` setting: how servers' questions are answered when nobody can be asked. */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../config/parse.js';

const parse = (raw: unknown) => parseConfig(raw, '/home/ada/.mcp.json', { HOME: '/home/ada' });

describe('the elicitation setting', () => {
  it('reads the policy', () => {
    expect(parse({ elicitation: { policy: 'accept-defaults' } }).elicitation).toEqual({
      policy: 'accept-defaults',
    });
    expect(parse({}).elicitation).toBeUndefined();
  });

  it('names the file and the key of an unknown policy', () => {
    expect(() => parse({ elicitation: { policy: 'accept-all' } })).toThrow(
      /\/home\/ada\/\.mcp\.json.*elicitation\.policy/s,
    );
  });
});
