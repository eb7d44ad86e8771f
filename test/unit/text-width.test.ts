/**
 * The fast path of textWidth (src/cli/text-width.ts) must measure exactly as string-width does: it
 * stands in for string-width in the bundled executable.
 */
import fc from 'fast-check';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import textWidth from '../../src/cli/text-width.js';

/** Characters from the fast path's ranges and from just outside them (marks, wide, invisible). */
const interesting = fc.constantFrom(
  ...'aZ ~!…–—“”•°é©ÿĀſǿ\u00ad\u00a0\u0300\u0301\u200b\u2028\u2060\u2026\u3000字😀\x1b[31m\x07\t'.split(''),
);
const mixedText = fc
  .array(fc.oneof(interesting, fc.string({ unit: 'binary' })), { maxLength: 12 })
  .map((parts) => parts.join(''));

describe('textWidth', () => {
  it('measures plain text, with and without options, as string-width does', () => {
    for (const text of [
      '',
      'mcphost --help',
      'add NAME -- COMMAND [ARGS…]',
      'naïve café — “quoted”',
      '°C ±1',
    ]) {
      expect(textWidth(text)).toBe(stringWidth(text));
      expect(textWidth(text, { ambiguousIsNarrow: false })).toBe(
        stringWidth(text, { ambiguousIsNarrow: false }),
      );
    }
  });

  it('measures wide, combining, invisible and escape-coded text as string-width does', () => {
    for (const text of ['漢字', 'e\u0301', 'a\u200bb', 'soft\u00adhyphen', '\x1b[1mbold\x1b[22m', '😀 ok']) {
      expect(textWidth(text)).toBe(stringWidth(text));
    }
  });

  it('agrees with string-width on generated text', () => {
    fc.assert(
      fc.property(mixedText, fc.boolean(), (text, ambiguousIsNarrow) => {
        expect(textWidth(text, { ambiguousIsNarrow })).toBe(stringWidth(text, { ambiguousIsNarrow }));
      }),
      { numRuns: 2000 },
    );
  });
});
