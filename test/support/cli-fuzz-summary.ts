/**
 * The tally of a `npm run fuzz -- --cli N` chunk, its summary, and the one JSON line that ends it,
 * so that chunks run apart (`--from I`) can be summed (`npm run fuzz -- --sum FILE…`).
 *
 * Exit-3 runs are grouped by cause: the `mcphost:` line of stderr, normalised so that one cause is
 * one row whatever numbers, ids or quoted text it carries. Each cause also counts how the generated
 * stream was spoiled: a `whole` stream (nothing cut or swapped) that ends in exit 3 is suspect.
 */
import * as z from 'zod';

/** How the vendor fake's stream differs from the generated answer's whole stream. */
export type StreamKind = 'whole' | 'cut' | 'reordered';
const STREAM_KINDS: readonly StreamKind[] = ['whole', 'cut', 'reordered'];

/** One exit-3 cause: how many runs, by stream kind. */
export type CauseCount = { total: number } & Partial<Record<StreamKind, number>>;

/** What the JSON line holds; summable field by field. */
export interface CliFuzzTally {
  readonly seed: number;
  /** The first run of the chunk in the seed's sequence. */
  readonly from: number;
  /** Runs asked for. */
  readonly runs: number;
  /** Runs done (fewer when the time ran out). */
  done: number;
  /** Runs whose model was asked again after the generated stream. */
  continued: number;
  readonly perVendor: Record<string, number>;
  /** By exit code (`0`, `3`, `timeout`, `signal SIGKILL`…). */
  readonly exits: Record<string, number>;
  /** One line each, with the seed and run index to replay. */
  readonly failures: string[];
  readonly exit3Causes: Record<string, CauseCount>;
}

export function emptyTally(seed: number, from: number, runs: number): CliFuzzTally {
  return { seed, from, runs, done: 0, continued: 0, perVendor: {}, exits: {}, failures: [], exit3Causes: {} };
}

/** The outcome of one run, as the tally needs it. */
export interface RunRecord {
  readonly vendor: string;
  readonly exit: string;
  readonly continued: boolean;
  readonly failure?: string;
  /** Exit 3 only: stderr, and how the stream was spoiled. */
  readonly stderr?: string;
  readonly stream?: StreamKind;
}

export function record(tally: CliFuzzTally, run: RunRecord): void {
  tally.done += 1;
  if (run.continued) tally.continued += 1;
  increment(tally.perVendor, run.vendor);
  increment(tally.exits, run.exit);
  if (run.failure !== undefined) tally.failures.push(run.failure);
  if (run.exit !== '3') return;
  const cause = exitCause(run.stderr ?? '');
  const count = (tally.exit3Causes[cause] ??= { total: 0 });
  count.total += 1;
  const kind = run.stream ?? 'whole';
  count[kind] = (count[kind] ?? 0) + 1;
}

function increment(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

/** Marks a cause that is not one `mcphost:` line (itself a bug: `-p` promises one line). */
export const NO_ERROR_LINE = '(no mcphost: line on stderr)';
export const SEVERAL_ERROR_LINES = '(several mcphost: lines) ';
export const LINES_AFTER_ERROR = '(more lines after the mcphost: line) ';

/** A retry note (`mcphost: … — retrying in 0.5s (retry 1)`): not the error that ended the run. */
const RETRY_NOTE = / — retrying in \S+ \(retry \d+\)$/u;

/** The normalised `mcphost:` line of an exit-3 run's stderr (retry notes before it left out). */
export function exitCause(stderr: string): string {
  const all = stderr.split('\n');
  const errors = all.filter((line) => line.startsWith('mcphost:') && !RETRY_NOTE.test(line));
  const [first] = errors;
  if (first === undefined) return NO_ERROR_LINE;
  const cause = normaliseCause(first);
  if (errors.length > 1) return `${SEVERAL_ERROR_LINES}${cause}`;
  // The error ends the run: text after it is the message going on over more lines.
  const after = all.slice(all.indexOf(first) + 1).some((line) => line.trim() !== '');
  return after ? `${LINES_AFTER_ERROR}${cause}` : cause;
}

/**
 * One cause per row: quoted text (`"…"`, `'…'`, `` `…` ``, JSON after a colon) becomes `<text>`,
 * ids and long hex/base64-ish tokens `<id>`, numbers `<n>`. Cut to 200 characters.
 */
export function normaliseCause(line: string): string {
  return line
    .replace(/"(?:[^"\\]|\\.)*"|'[^'\n]*'|`[^`\n]*`/gu, '<text>')
    .replace(/\b(?:toolu|call|msg|chatcmpl|req|fc)_[A-Za-z0-9_-]+/gu, '<id>')
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/giu, '<id>')
    .replace(/\b\d+(?:\.\d+)?\b/gu, '<n>')
    .slice(0, 200);
}

/** The human-readable summary, then the JSON line last. */
export function summaryLines(tally: CliFuzzTally, elapsedSeconds: number, parallel: number): string[] {
  const last = tally.from + tally.runs - 1;
  const range = tally.runs === 0 ? 'no runs' : `runs ${tally.from}…${last}`;
  const lines = [
    `fuzz --cli: ${tally.done} runs (seed ${tally.seed}, ${range}) in ${elapsedSeconds.toFixed(1)}s, ${parallel} at a time`,
    `  per vendor: ${entries(tally.perVendor)}`,
    `  exit codes: ${entries(tally.exits)}; ${tally.continued} runs continued past the generated stream`,
    ...exitCauseTable(tally.exit3Causes),
    `  ${tally.failures.length} failures`,
    ...tally.failures.map((failure) => `  ${failure.slice(0, 300)}`),
  ];
  if (tally.failures.length > 0) {
    lines.push(`  replay one: FUZZ_SEED=${tally.seed} FUZZ_ONLY=<run> npm run fuzz -- --cli 1`);
  }
  lines.push(JSON.stringify({ fuzz: 'cli', ...tally }));
  return lines;
}

/** The exit-3 causes, most frequent first, with the stream kinds behind each. */
export function exitCauseTable(causes: Readonly<Record<string, CauseCount>>): string[] {
  const rows = Object.entries(causes).sort(([, a], [, b]) => b.total - a.total);
  if (rows.length === 0) return [];
  return [
    '  exit-3 causes (runs: whole/cut/reordered streams):',
    ...rows.map(([cause, count]) => {
      const kinds = STREAM_KINDS.map((kind) => count[kind] ?? 0).join('/');
      return `  ${String(count.total).padStart(5)} (${kinds}) ${cause}`;
    }),
  ];
}

function entries(counts: Readonly<Record<string, number>>): string {
  return Object.entries(counts)
    .map(([key, count]) => `${key}: ${count}`)
    .join(', ');
}

/**
 * Sums the JSON lines of several chunks (of one seed). Throws, naming the line, on a line that is
 * not a chunk's summary or a seed that differs.
 */
export function sumTallies(lines: readonly string[]): CliFuzzTally {
  const tallies = lines.map((line, index) => parseTally(line, index + 1));
  const [first] = tallies;
  if (first === undefined) throw new Error('fuzz --sum: no summary lines');
  const sorted = [...tallies].sort((a, b) => a.from - b.from);
  const runs = sorted.reduce((total, tally) => total + tally.runs, 0);
  const sum = emptyTally(first.seed, sorted[0]?.from ?? 0, runs);
  let expectedFrom = sum.from;
  for (const tally of sorted) {
    if (tally.seed !== first.seed) {
      throw new Error(`fuzz --sum: seed ${tally.seed} differs from ${first.seed}`);
    }
    // The sum stands for runs from…from+runs-1 only if the chunks neither overlap nor leave a gap.
    if (tally.from !== expectedFrom) {
      const what =
        tally.from < expectedFrom
          ? 'overlaps the chunk before it'
          : `leaves runs ${expectedFrom}…${tally.from - 1} out`;
      throw new Error(`fuzz --sum: the chunk from run ${tally.from} ${what}`);
    }
    expectedFrom = tally.from + tally.runs;
    sum.done += tally.done;
    sum.continued += tally.continued;
    addCounts(sum.perVendor, tally.perVendor);
    addCounts(sum.exits, tally.exits);
    sum.failures.push(...tally.failures);
    for (const [cause, count] of Object.entries(tally.exit3Causes)) {
      const into = (sum.exit3Causes[cause] ??= { total: 0 });
      into.total += count.total;
      for (const kind of STREAM_KINDS) {
        if (count[kind] !== undefined) into[kind] = (into[kind] ?? 0) + count[kind];
      }
    }
  }
  return sum;
}

function addCounts(into: Record<string, number>, counts: Readonly<Record<string, number>>): void {
  for (const [key, count] of Object.entries(counts)) into[key] = (into[key] ?? 0) + count;
}

const counts = z.record(z.string(), z.number().int().nonnegative());
const tallySchema = z.object({
  fuzz: z.literal('cli'),
  seed: z.number().int(),
  from: z.number().int().nonnegative(),
  runs: z.number().int().nonnegative(),
  done: z.number().int().nonnegative(),
  continued: z.number().int().nonnegative(),
  perVendor: counts,
  exits: counts,
  failures: z.array(z.string()),
  exit3Causes: z.record(
    z.string(),
    z.object({
      total: z.number().int().nonnegative(),
      whole: z.number().int().nonnegative().exactOptional(),
      cut: z.number().int().nonnegative().exactOptional(),
      reordered: z.number().int().nonnegative().exactOptional(),
    }),
  ),
});

function parseTally(line: string, number: number): CliFuzzTally {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new Error(`fuzz --sum: line ${number} is not JSON`);
  }
  const parsed = tallySchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined ? '' : ` (${issue.path.join('.') || 'the line'}: ${issue.message})`;
    throw new Error(`fuzz --sum: line ${number} is not a fuzz --cli summary${where}`);
  }
  const { fuzz: _fuzz, ...tally } = parsed.data;
  return tally;
}
