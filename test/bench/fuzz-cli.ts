/**
 * `npm run fuzz -- --cli N`: the end-to-end fuzz run. Each run spawns the built CLI
 * (`dist/bin/mcphost.js -p`) against a loopback vendor fake serving one generated stream, with the
 * good-server fixture for tool calls; two runs at a time, each with a timeout. A run fails on exit 1,
 * a timeout, output that is not one-line notes, or a request the fake's vendor validation refuses.
 * Each failure is printed with its seed and run index: `FUZZ_SEED=S FUZZ_ONLY=I npm run fuzz -- --cli 1`
 * replays just that run (the samples come from the seed in order; run I uses vendor I mod 4).
 */
import { existsSync } from 'node:fs';
import fc from 'fast-check';
import { CLI, temporaryHome } from '../support/cli.js';
import { FIXTURE_CONFIG, runCliFuzz } from '../support/cli-fuzz-run.js';
import { generatedAnswer, VENDORS } from '../support/vendor-stream-fuzz.js';

const PARALLEL = 2;
/** A run answers in ~1 s; 30 s is a hang, not a slow machine. */
const TIMEOUT_MS = 30_000;

/** Runs `runs` generated streams (or only run `only`), prints the summary, returns the exit code. */
export async function fuzzCli(
  runs: number,
  seconds: number,
  seed: number,
  only: number | undefined,
): Promise<number> {
  if (!existsSync(CLI)) throw new Error(`fuzz --cli: ${CLI} is missing; run npm run build first`);
  // Generated up front (deterministic from the seed), so the time limit counts from after it.
  const samples = fc.sample(generatedAnswer, { numRuns: only === undefined ? runs : only + 1, seed });
  const deadline = Date.now() + seconds * 1000;
  const homes = await Promise.all(Array.from({ length: PARALLEL }, () => temporaryHome()));
  for (const home of homes) await home.writeConfig(FIXTURE_CONFIG);
  const perVendor = new Map<string, number>();
  const exits = new Map<string, number>();
  const failures: string[] = [];
  let continued = 0;
  let next = only ?? 0;
  let done = 0;
  const started = Date.now();
  const worker = async (home: string): Promise<void> => {
    while (next < samples.length && Date.now() < deadline) {
      const index = next++;
      const vendor = VENDORS[index % VENDORS.length] ?? 'anthropic';
      const answer = samples[index];
      if (answer === undefined) return;
      const outcome = await runCliFuzz(vendor, answer, home, TIMEOUT_MS);
      done += 1;
      perVendor.set(vendor, (perVendor.get(vendor) ?? 0) + 1);
      exits.set(outcome.exit, (exits.get(outcome.exit) ?? 0) + 1);
      if (outcome.requests > 1) continued += 1;
      if (outcome.problem !== undefined) {
        failures.push(`seed ${seed} run ${index} (${vendor}, exit ${outcome.exit}): ${outcome.problem}`);
      }
    }
  };
  try {
    await Promise.all(homes.map((home) => worker(home.path)));
  } finally {
    await Promise.all(homes.map((home) => home.remove()));
  }
  const elapsed = ((Date.now() - started) / 1000).toFixed(1);
  const histogram = [...exits].map(([exit, count]) => `${exit}: ${count}`).join(', ');
  const vendors = [...perVendor].map(([vendor, count]) => `${vendor} ${count}`).join(', ');
  console.log(`fuzz --cli: ${done} runs (seed ${seed}) in ${elapsed}s, ${PARALLEL} at a time`);
  console.log(`  per vendor: ${vendors}`);
  console.log(`  exit codes: ${histogram}; ${continued} runs continued past the generated stream`);
  console.log(`  ${failures.length} failures`);
  for (const failure of failures) console.log(`  ${failure.slice(0, 300)}`);
  return failures.length === 0 ? 0 : 1;
}
