/**
 * `{ key: value }` when value is set, `{}` otherwise. Spread it to keep optional properties truly
 * absent rather than present-and-undefined.
 *
 * With `exactOptionalPropertyTypes`, a plain `key: value` is the thing to write when the target
 * property accepts `undefined` (an option read field by field). This is for the others: data that
 * is spread over defaults, serialized, compared, or declared by a library as `key?: T` only.
 */
export function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]: V });
}
