/**
 * JSON with object keys sorted at every level, no spaces: equal values give the same text (and
 * hash) whatever order their keys came in. The dozen lines of json-stable-stringify and the like,
 * written here through `JSON.stringify`'s replacer so every leaf is written as JSON writes it
 * (undefined fields left out, undefined array items as null).
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) return inner;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(inner).sort()) sorted[key] = (inner as Record<string, unknown>)[key];
    return sorted;
  });
}
