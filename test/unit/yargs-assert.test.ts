import { describe, expect, it } from 'vitest';
import { notStrictEqual, strictEqual } from '../../src/cli/yargs-assert.js';

describe("yargs' two checks, as the bundle gives them (node:assert's meaning)", () => {
  it('strictEqual passes on ===, throws otherwise with the message given', () => {
    expect(() => strictEqual(typeof 'x', 'string')).not.toThrow();
    expect(() => strictEqual(NaN, NaN)).toThrow(/expected NaN, got NaN/);
    expect(() => strictEqual(1, '1', 'not a string')).toThrow('not a string');
  });

  it('notStrictEqual throws on ===, passes otherwise', () => {
    expect(() => notStrictEqual('a', undefined)).not.toThrow();
    expect(() => notStrictEqual(undefined, undefined)).toThrow(/other than undefined/);
    expect(() => notStrictEqual(null, null, 'no context')).toThrow('no context');
  });
});
