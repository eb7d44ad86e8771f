/**
 * `{ key: value }` when value is set, `{}` otherwise. Spread it to keep optional properties truly
 * absent rather than present-and-undefined.
 */
export function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]: V });
}
