/**
 * `npm run fuzz -- --cli N [--from I]`: the end-to-end fuzz run. Each run spawns the built CLI
 * (`dist/bin/mcphost.js -p`) against a loopback vendor fake serving one generated stream, with the
 * good-server fixture for tool calls; two runs at a time, each with a timeout. A run fails on exit 1,
 * a timeout, output that is not one-line notes, or a request the fake's vendor validation refuses.
 *
 * Runs are numbered in the seed's sequence: `--from I` runs I … I+N-1 (so 10,000 runs can go in
 * chunks of one seed), and the summary ends with one JSON line that `--sum` adds up
 * (cli-fuzz-summary.ts). Each failure is printed with its seed and run index:
 * `FUZZ_SEED=S FUZZ_ONLY=I npm run fuzz -- --cli 1` replays just that run (run I uses vendor I mod 4).
 */
import { existsSync } from 'node:fs';
import fc from 'fast-check';
import { CLI, temporaryHome } from '../support/cli.js';
import { FIXTURE_CONFIG, runCliFuzz } from '../support/cli-fuzz-run.js';
import { emptyTally, record, summaryLines } from '../support/cli-fuzz-summary.js';
import { generatedAnswer, VENDORS, type GeneratedAnswer } from '../support/vendor-stream-fuzz.js';

const PARALLEL = 2;
/** A run answers in ~1 s; 30 s is a hang, not a slow machine. */
const TIMEOUT_MS = 30_000;
/** Answers generated at a time: a few hundred kilobytes, not the whole chunk's (deep arguments). */
const BATCH = 100;

/**
 * Runs `from` … `from + runs - 1` of the seed's sequence, generated lazily: fast-check's replay
 * `path` skips the earlier runs without generating them (each run has its own random state), and
 * gives the same answers as sampling from 0 (checked by test/unit/cli-fuzz-summary.test.ts).
 */
export function* answersFrom(seed: number, from: number, runs: number): Generator<GeneratedAnswer> {
  for (let start = from; start < from + runs; start += BATCH) {
    const count = Math.min(BATCH, from + runs - start);
    yield* fc.sample(generatedAnswer, { numRuns: count, seed, path: String(start) });
  }
}

/** Runs `runs` generated streams from run `from`, prints the summary, returns the exit code. */
export async function fuzzCli(runs: number, seconds: number, seed: number, from: number): Promise<number> {
  if (!existsSync(CLI)) throw new Error(`fuzz --cli: ${CLI} is missing; run npm run build first`);
  const deadline = Date.now() + seconds * 1000;
  const homes = await Promise.all(Array.from({ length: PARALLEL }, () => temporaryHome()));
  for (const home of homes) await home.writeConfig(FIXTURE_CONFIG);
  const tally = emptyTally(seed, from, runs);
  const answers = answersFrom(seed, from, runs);
  let next = from;
  const started = Date.now();
  const worker = async (home: string): Promise<void> => {
    while (Date.now() < deadline) {
      const generated = answers.next();
      if (generated.done === true) return;
      const index = next++;
      const vendor = VENDORS[index % VENDORS.length] ?? 'anthropic';
      const outcome = await runCliFuzz(vendor, generated.value, home, TIMEOUT_MS);
      record(tally, {
        vendor,
        exit: outcome.exit,
        continued: outcome.requests > 1,
        stderr: outcome.stderr,
        stream: outcome.stream,
        ...(outcome.problem === undefined
          ? {}
          : { failure: `seed ${seed} run ${index} (${vendor}, exit ${outcome.exit}): ${outcome.problem}` }),
      });
    }
  };
  try {
    await Promise.all(homes.map((home) => worker(home.path)));
  } finally {
    await Promise.all(homes.map((home) => home.remove()));
  }
  for (const line of summaryLines(tally, (Date.now() - started) / 1000, PARALLEL)) console.log(line);
  return tally.failures.length === 0 ? 0 : 1;
}
