/**
 * `object` without its keys whose value is `undefined`, typed so that each key whose type admits
 * `undefined` becomes optional (`key?: T`, not `key: T | undefined`).
 *
 * Why: with `exactOptionalPropertyTypes`, `{ maxTokens }` does not fit `{ maxTokens?: number }`
 * when `maxTokens` may be `undefined`, and for data that is serialized, compared with `in` or spread
 * over defaults a present-but-undefined key is not the same as an absent one. This replaces runs of
 * `...(x === undefined ? {} : { x })`, one per key, with one call:
 * `{ ...defaults, ...definedProperties({ maxTokens, temperature, topP }) }`.
 */
export function definedProperties<T extends object>(object: T): DefinedProperties<T> {
  const defined: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) {
    if (value !== undefined) defined[key] = value;
  }
  // The loop above is what the mapped type says; TypeScript cannot follow a loop over keys.
  return defined as DefinedProperties<T>;
}

/**
 * The type `definedProperties` returns: keys that cannot be `undefined` stay as they are; keys
 * that can become optional and lose `undefined`.
 */
export type DefinedProperties<T extends object> = Flatten<
  { [K in keyof T as undefined extends T[K] ? never : K]: T[K] } & {
    [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined>;
  }
>;

/** One object type instead of an intersection, so that editors and errors show plain keys. */
type Flatten<T> = { [K in keyof T]: T[K] } & {};
