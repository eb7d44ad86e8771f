import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { randomHex, randomUuid } from '../../src/util/random-id.js';
import { sha256Hex } from '../../src/util/sha256.js';

describe('randomHex', () => {
  it('gives exactly the digits asked for, lowercase hex', () => {
    for (const length of [0, 1, 6, 8, 9, 12, 24, 33]) {
      expect(randomHex(length)).toMatch(new RegExp(`^[0-9a-f]{${length}}$`));
    }
  });

  it('does not repeat itself, and uses every digit in every place', () => {
    const names = Array.from({ length: 20_000 }, () => randomHex(12));
    expect(new Set(names).size).toBe(names.length);
    // Each of the 12 places takes all 16 digits over 20,000 draws (a stuck or biased place would not).
    for (let place = 0; place < 12; place++) {
      expect(new Set(names.map((name) => name[place])).size, `place ${place}`).toBe(16);
    }
  });
});

describe('randomUuid', () => {
  it('is a version 4 UUID with the RFC 9562 variant', () => {
    const variants = new Set<string>();
    for (let index = 0; index < 2_000; index++) {
      const uuid = randomUuid();
      expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      variants.add(uuid[19]!);
    }
    expect([...variants].sort()).toEqual(['8', '9', 'a', 'b']);
  });

  it('does not repeat itself', () => {
    const uuids = Array.from({ length: 20_000 }, randomUuid);
    expect(new Set(uuids).size).toBe(uuids.length);
  });
});

describe('sha256Hex', () => {
  it("is node:crypto's SHA-256 of the text as UTF-8", () => {
    for (const text of ['', 'abc', 'mcp\u0000tool', 'caf\u00e9 \u{1f600}']) {
      expect(sha256Hex(text)).toBe(createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex'));
    }
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
