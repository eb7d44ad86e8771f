/**
 * `npm run fuzz`: generated model output over the four vendor protocols, many times. Each run
 * parses a generated stream (valid, malformed, cut, reordered) with the vendor's parser, runs it
 * through the Runner with a tool host, prints the tool lines as `-p` does, and maps the next request
 * for the vendor, which the vendor fake's validation must accept. It stops at FUZZ_RUNS runs
 * (default 10,000) or FUZZ_SECONDS (default 600), and reports how many ran and every problem.
 *
 * In-process, not a spawned CLI per run: a process start costs ~0.5 s, which would make 10,000
 * runs take over an hour on the shared machine. `--cli N` (or FUZZ_CLI=N) is the end-to-end run
 * of the spawned CLI instead, N runs (fuzz-cli.ts), from run `--from I` of the seed's sequence
 * (default 0), so a long job goes in chunks: e.g. 10,000 runs as ten chunks of one seed
 *   FUZZ_SEED=7 FUZZ_SECONDS=100000 npm run fuzz -- --cli 1000 --from 3000 > chunk-3.txt
 * and `npm run fuzz -- --sum chunk-*.txt` adds up the JSON lines that end their summaries.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { summaryLines, sumTallies } from '../support/cli-fuzz-summary.js';
import { checkOne, generatedAnswer, VENDORS } from '../support/vendor-stream-fuzz.js';
import { fuzzCli } from './fuzz-cli.js';

/** The word after `flag` on the command line, if the flag is there. */
function flagValue(flag: string): string | undefined {
  const at = process.argv.indexOf(flag);
  return at === -1 ? undefined : process.argv[at + 1];
}

/** Every word after `flag` (none: an empty list), or undefined without the flag. */
function flagValues(flag: string): string[] | undefined {
  const at = process.argv.indexOf(flag);
  return at === -1 ? undefined : process.argv.slice(at + 1);
}

/** A whole number of 0 or more, or exit 2 naming the flag. */
function count(flag: string, text: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isInteger(value) || value < 0) {
    console.error(`fuzz: ${flag}: expected a whole number of 0 or more, got ${JSON.stringify(text)}`);
    process.exit(2);
  }
  return value;
}

const runs = Number(process.env.FUZZ_RUNS ?? 10_000);
const seconds = Number(process.env.FUZZ_SECONDS ?? 600);
const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const cliRuns = flagValue('--cli') ?? process.env.FUZZ_CLI;
const sumFiles = flagValues('--sum');
if (sumFiles !== undefined) {
  // Adds up the JSON lines that end each chunk's summary (in these files, or stdin).
  const text =
    sumFiles.length === 0
      ? readFileSync(0, 'utf8')
      : sumFiles.map((file) => readFileSync(file, 'utf8')).join('\n');
  const lines = text.split('\n').filter((line) => line.startsWith('{"fuzz":"cli"'));
  let sum: ReturnType<typeof sumTallies>;
  try {
    sum = sumTallies(lines);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(2);
  }
  const last = sum.from + sum.runs - 1;
  console.log(
    `fuzz --sum: ${lines.length} chunks, ${sum.done} runs done (seed ${sum.seed}, runs ${sum.from}…${last})`,
  );
  // The per-chunk title (time, parallelism) means nothing for a sum: the rest is the same report.
  for (const line of summaryLines(sum, 0, 0).slice(1)) console.log(line);
  process.exit(sum.failures.length === 0 ? 0 : 1);
}
if (cliRuns !== undefined) {
  // FUZZ_ONLY=I replays run I alone (as printed with a failure): the same as --from I --cli 1.
  const only = process.env.FUZZ_ONLY;
  const from = count('--from', only ?? flagValue('--from') ?? '0');
  process.exit(await fuzzCli(only === undefined ? count('--cli', cliRuns) : 1, seconds, seed, from));
}
const deadline = Date.now() + seconds * 1000;
const problems = new Map<string, number>();
// A crash of the process is what a user would meet (an uncaught socket error once ended mcphost on a
// chunk after Ollama's `done` line): counted as a problem of its own, and the fuzz goes on.
let crashes = 0;
process.on('uncaughtException', (error) => {
  crashes += 1;
  const key = `crash (uncaught ${error.name}): ${error.message}`.slice(0, 200);
  problems.set(key, (problems.get(key) ?? 0) + 1);
});
let done = 0;
const started = Date.now();
const samples = fc.sample(generatedAnswer, { numRuns: runs, seed });
for (const [index, answer] of samples.entries()) {
  if (Date.now() > deadline) break;
  const vendor = VENDORS[index % VENDORS.length] ?? 'anthropic';
  const problem = await Promise.race([
    checkOne(vendor, answer),
    new Promise<string>((resolve) =>
      setTimeout(() => resolve(`${vendor}: a run hung for 10 s`), 10_000).unref(),
    ),
  ]);
  done += 1;
  if (problem !== undefined) {
    const key = problem.slice(0, 200);
    problems.set(key, (problems.get(key) ?? 0) + 1);
  }
}
const elapsed = ((Date.now() - started) / 1000).toFixed(1);
console.log(
  `fuzz: ${done} runs (seed ${seed}) in ${elapsed}s over ${VENDORS.join(', ')} (Ollama over a loopback socket); ${crashes} crashes; ${problems.size} kinds of problem`,
);
for (const [problem, count] of problems) console.log(`  ${count}× ${problem}`);
process.exitCode = problems.size === 0 ? 0 : 1;
