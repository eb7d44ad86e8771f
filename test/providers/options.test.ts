import { describe, expect, it } from 'vitest';
import { nonEmptySetting } from '../../providers/options.js';

describe('nonEmptySetting', () => {
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['   ', undefined],
    ['\t\n', undefined],
    ['sk-key', 'sk-key'],
    ['  sk-key \n', 'sk-key'],
    [' http://127.0.0.1:8080/v1 ', 'http://127.0.0.1:8080/v1'],
  ])('%j → %j', (value, expected) => {
    expect(nonEmptySetting(value)).toBe(expected);
  });
});
