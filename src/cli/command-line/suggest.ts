/**
 * "Did you mean …?" for a mistyped command, flag or script variable. yargs suggests commands only
 * (and not beside a default command), so the distance is computed here: a dozen lines do not
 * justify a dependency.
 */

/** Edit distance (insertions, deletions, substitutions, and swaps of two neighbours). */
export function editDistance(from: string, to: string): number {
  const width = to.length + 1;
  // One flat table, (from.length + 1) × (to.length + 1); cells start at their row/column bound.
  const table = Array.from({ length: (from.length + 1) * width }, (_, index) =>
    index < width ? index : index % width === 0 ? index / width : 0,
  );
  const cell = (row: number, column: number): number => table[row * width + column] ?? 0;
  for (let row = 1; row <= from.length; row++) {
    for (let column = 1; column <= to.length; column++) {
      const cost = from[row - 1] === to[column - 1] ? 0 : 1;
      let best = Math.min(
        cell(row - 1, column) + 1,
        cell(row, column - 1) + 1,
        cell(row - 1, column - 1) + cost,
      );
      const swapped =
        row > 1 && column > 1 && from[row - 1] === to[column - 2] && from[row - 2] === to[column - 1];
      if (swapped) best = Math.min(best, cell(row - 2, column - 2) + 1);
      table[row * width + column] = best;
    }
  }
  return cell(from.length, to.length);
}

/** The candidate nearest `typed`, when it is near enough to be what was meant. */
export function nearest(typed: string, candidates: readonly string[]): string | undefined {
  // A third of the length (at least one edit, at most three): "fiel" → "file", not "x" → "model".
  const limit = Math.min(3, Math.max(1, Math.floor(typed.length / 3)));
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    const distance = editDistance(typed.toLowerCase(), name.toLowerCase());
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}
