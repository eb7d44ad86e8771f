/**
 * `npm run fuzz`: generated model output over the four vendor protocols, many times. Each run
 * parses a generated stream (valid, malformed, cut, reordered) with the vendor's parser, runs it
 * through the Runner with a tool host, prints the tool lines as `-p` does, and maps the next request
 * for the vendor, which the vendor fake's validation must accept. It stops at FUZZ_RUNS runs
 * (default 10,000) or FUZZ_SECONDS (default 600), and reports how many ran and every problem.
 *
 * In-process, not a spawned CLI per run: a process start costs ~0.5 s, which would make 10,000
 * runs take over an hour on the shared machine. `--cli N` (or FUZZ_CLI=N) is the end-to-end run
 * of the spawned CLI instead, N runs (fuzz-cli.ts).
 */
import fc from 'fast-check';
import { checkOne, generatedAnswer, VENDORS } from '../support/vendor-stream-fuzz.js';
import { fuzzCli } from './fuzz-cli.js';

const runs = Number(process.env.FUZZ_RUNS ?? 10_000);
const seconds = Number(process.env.FUZZ_SECONDS ?? 600);
const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const cliFlag = process.argv.indexOf('--cli');
const cliRuns = cliFlag === -1 ? process.env.FUZZ_CLI : process.argv[cliFlag + 1];
if (cliRuns !== undefined) {
  const only = process.env.FUZZ_ONLY === undefined ? undefined : Number(process.env.FUZZ_ONLY);
  process.exit(await fuzzCli(Number(cliRuns), seconds, seed, only));
}
const deadline = Date.now() + seconds * 1000;
const problems = new Map<string, number>();
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
  `fuzz: ${done} runs (seed ${seed}) in ${elapsed}s over ${VENDORS.join(', ')}; ${problems.size} kinds of problem`,
);
for (const [problem, count] of problems) console.log(`  ${count}× ${problem}`);
process.exitCode = problems.size === 0 ? 0 : 1;
