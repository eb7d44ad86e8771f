import { describe, expect, expectTypeOf, it } from 'vitest';
import { definedProperties } from '../../src/util/defined-properties.js';

describe('definedProperties', () => {
  it('drops the keys whose value is undefined and keeps every other value, falsy ones included', () => {
    const maybe = (value: number): number | undefined => (value > 0 ? value : undefined);
    const result = definedProperties({ a: maybe(1), b: maybe(0), c: 0, d: '', e: null, f: false });
    expect(result).toEqual({ a: 1, c: 0, d: '', e: null, f: false });
    expect('b' in result).toBe(false);
    expect(Object.keys(result)).toEqual(['a', 'c', 'd', 'e', 'f']);
  });

  it('returns a new object and leaves its argument alone', () => {
    const input = { a: 1, b: undefined };
    const result = definedProperties(input);
    expect(result).not.toBe(input);
    expect('b' in input).toBe(true);
    expect(JSON.stringify({ x: 0, ...result })).toBe('{"x":0,"a":1}');
  });

  it('spread over defaults, an absent key keeps the default where an undefined one would erase it', () => {
    const defaults = { temperature: 0.5, topP: 0.9 };
    const temperature: number | undefined = undefined;
    expect({ ...defaults, ...definedProperties({ temperature, topP: 0.2 }) }).toEqual({
      temperature: 0.5,
      topP: 0.2,
    });
  });

  it('types a key that may be undefined as optional, without undefined, and leaves the others required', () => {
    const value = (): number | undefined => 1;
    const result = definedProperties({ maybe: value(), sure: 'text', nullable: null as string | null });
    expectTypeOf(result).toEqualTypeOf<{ sure: string; nullable: string | null; maybe?: number }>();
    // The point of it: the result fits a type declared `key?: T` under exactOptionalPropertyTypes.
    expectTypeOf(result).toExtend<{ maybe?: number; sure: string }>();
    // A plain object literal with the same value does not.
    expectTypeOf({ maybe: value() }).not.toExtend<{ maybe?: number }>();
  });
});
