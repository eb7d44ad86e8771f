/**
 * Property-based: generated vendor streams (valid, malformed, cut, reordered) through each
 * provider's parser, the Runner and the vendor's request mapper. No parser throws anything but our
 * errors, and no history the Runner leaves is one the vendor fake would refuse. `npm run fuzz`
 * runs the same property many more times.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkOne, generatedAnswer, VENDORS } from '../support/vendor-stream-fuzz.js';

describe.each(VENDORS)('%s streams', (vendor) => {
  it('parse, run and map to a request the vendor accepts', async () => {
    await fc.assert(
      fc.asyncProperty(generatedAnswer, async (answer) => {
        expect(await checkOne(vendor, answer)).toBeUndefined();
      }),
      { numRuns: 150 },
    );
  }, 60_000);
});
