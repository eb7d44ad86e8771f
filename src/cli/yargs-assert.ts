/**
 * What yargs takes from `node:assert` (its ES module platform shim): two checks of its own
 * invariants. The executable's bundle gives yargs these instead (esbuild.config.mjs), because
 * `node:assert` loads its error formatting with it, ~2.5 ms of CPU on every run for two comparisons
 * that never fail on yargs' own paths.
 */
export function notStrictEqual(actual: unknown, expected: unknown, message?: string): void {
  if (actual === expected)
    throw new Error(message ?? `yargs: expected a value other than ${String(expected)}`);
}

export function strictEqual(actual: unknown, expected: unknown, message?: string): void {
  if (actual !== expected)
    throw new Error(message ?? `yargs: expected ${String(expected)}, got ${String(actual)}`);
}
