/**
 * `npm run conformance`: the official MCP conformance suite's client scenarios, for both
 * requirement sets (2025-11-25: the `initialize` handshake; 2026-07-28: stateless, per-request
 * `_meta`), against test/conformance/client.ts, judged with expected-failures.yml.
 *
 * Node: the suite imports `fs.globSync`, which Node 22 added; mcphost runs on Node 20. The suite
 * alone runs under a Node 22 taken from the npm registry (`npx -p node@…`: the registry's `node`
 * package, which installs the official binary), while the client under test keeps running on the
 * Node that runs this script — the one mcphost supports. A preload cannot help: the suite imports
 * the function by name, and an ES module's named imports of a builtin are bound before it runs.
 *
 * Scheduling: the suite's own `--requirements` run starts every scenario (40 in 2026-07-28) and
 * every client at once; on a two-core machine the clients then miss their own deadlines and the
 * verdicts turn random. So this reads the same frozen requirement files and runs
 * {@link PARALLEL_SCENARIOS} scenarios at a time, each with `--scenario --spec-version`.
 * Scenarios a requirement file lists as `not_scored` run and are reported, but do not fail the run.
 *
 * Usage: npm run conformance [-- 2025-11-25|2026-07-28] [-- --scenario NAME]
 * Exit 0 when every scored scenario passes or fails as the baseline expects.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import * as z from 'zod';

/** The Node that runs the suite: a 22.x with `fs.globSync`, pinned so every run is the same. */
const SUITE_NODE = 'node@22.23.3';
const REQUIREMENT_SETS = ['2025-11-25', '2026-07-28'] as const;
/** Scenarios run at once. Each starts a test server and a fresh Node for the client. */
const PARALLEL_SCENARIOS = 3;
/** A client that has not finished after this long fails its scenario (the suite's `--timeout`). */
const CLIENT_TIMEOUT_MS = 90_000;

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const conformancePackage = join(root, 'node_modules/@modelcontextprotocol/conformance');
const suite = join(conformancePackage, 'dist/index.js');
const baseline = join(here, 'expected-failures.yml');
// The client runs on this Node (20 in CI), loaded through tsx like the rest of the tests.
const clientCommand = `${process.execPath} --import tsx ${join(here, 'client.ts')}`;

const RequirementFile = z.object({
  client: z.array(z.string()).default([]),
  not_scored: z
    .array(z.object({ scenario: z.string(), leg: z.enum(['client', 'server']), reason: z.string() }))
    .default([]),
});

interface ScenarioRun {
  readonly revision: string;
  readonly scenario: string;
  readonly scored: boolean;
  /** An extension's scenario, run without `--spec-version` (see {@link EXTRA_SCENARIOS}). */
  readonly extension?: true;
}

interface ScenarioOutcome extends ScenarioRun {
  readonly exitCode: number;
  readonly output: string;
}

/**
 * Client scenarios no requirement file lists (`--requirements` does not run them) that mcphost
 * runs anyway, scored, with `--scenario`: the skills extension's (SEP-2640, issue 30). The suite
 * calls an extension's scenario "not applicable" at any `--spec-version`; without one it runs it
 * at 2026-07-28, so these run without the flag.
 */
const EXTRA_SCENARIOS: Readonly<Record<string, readonly string[]>> = {
  '2026-07-28': [
    'sep-2640-client-no-prefetch',
    'sep-2640-client-verify-digest',
    'sep-2640-client-verify-size',
    'sep-2640-client-verify-frontmatter',
  ],
};

function scenariosOf(revision: string): ScenarioRun[] {
  const path = join(conformancePackage, 'requirements', `${revision}.yaml`);
  const parsed = RequirementFile.safeParse(parse(readFileSync(path, 'utf8')));
  if (!parsed.success) throw new Error(`${path}: not a requirement file (${parsed.error.message})`);
  const scored = parsed.data.client.map((scenario) => ({ revision, scenario, scored: true }));
  const unscored = parsed.data.not_scored
    .filter((entry) => entry.leg === 'client')
    .map((entry) => ({ revision, scenario: entry.scenario, scored: false }));
  const extra = (EXTRA_SCENARIOS[revision] ?? []).map((scenario) => ({
    revision,
    scenario,
    scored: true,
    extension: true as const,
  }));
  return [...scored, ...unscored, ...extra];
}

/** The path of the registry's Node 22 binary (downloaded once into npx's cache). */
function suiteNode(): string {
  return execFileSync('npx', ['--yes', '-p', SUITE_NODE, '--', 'node', '-p', 'process.execPath'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
}

function runScenario(node: string, run: ScenarioRun, outputDir: string): Promise<ScenarioOutcome> {
  const args = [
    suite,
    'client',
    '--command',
    clientCommand,
    '--scenario',
    run.scenario,
    ...(run.extension === true ? [] : ['--spec-version', run.revision]),
    '--timeout',
    String(CLIENT_TIMEOUT_MS),
    '--expected-failures',
    baseline,
    '--output-dir',
    outputDir,
  ];
  return new Promise((resolvePromise, reject) => {
    const child = spawn(node, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      resolvePromise({ ...run, exitCode: code ?? 1, output });
    });
  });
}

/** The suite's summary line for a scenario ("Passed: 5/5, 0 failed …"), for the report. */
function summaryOf(output: string): string {
  if (output.includes('is not applicable at spec version')) return 'skipped by the suite: not applicable';
  const passed = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(output);
  return passed === null ? 'no summary' : `${passed[1]}/${passed[2]} checks passed`;
}

function verdictOf(outcome: ScenarioOutcome): string {
  if (outcome.exitCode !== 0) return outcome.scored ? 'FAILED' : 'failed (not scored)';
  return /Passed: \d+\/\d+, [1-9]\d* failed/.test(outcome.output) ? 'expected failure' : 'passed';
}

const argv = process.argv.slice(2);
const scenarioIndex = argv.indexOf('--scenario');
const onlyScenario = scenarioIndex === -1 ? undefined : argv[scenarioIndex + 1];
const chosen = argv.filter((value) => (REQUIREMENT_SETS as readonly string[]).includes(value));
const revisions = chosen.length === 0 ? REQUIREMENT_SETS : chosen;
const runs = revisions
  .flatMap(scenariosOf)
  .filter((run) => onlyScenario === undefined || run.scenario === onlyScenario);
if (runs.length === 0) {
  process.stderr.write(`conformance: no client scenario ${onlyScenario ?? ''} in ${revisions.join(', ')}\n`);
  process.exit(2);
}

const node = suiteNode();
const outputRoot = mkdtempSync(join(tmpdir(), 'mcphost-conformance-'));
process.stdout.write(`MCP conformance: ${runs.length} client scenarios, suite on ${node}\n`);
const outcomes: ScenarioOutcome[] = [];
const queue = [...runs];
async function worker(): Promise<void> {
  for (let run = queue.shift(); run !== undefined; run = queue.shift()) {
    const outcome = await runScenario(node, run, join(outputRoot, run.revision));
    outcomes.push(outcome);
    process.stdout.write(
      `${run.revision}  ${run.scenario.padEnd(42)} ${verdictOf(outcome).padEnd(20)} ${summaryOf(outcome.output)}\n`,
    );
    if (outcome.exitCode !== 0 && outcome.scored) process.stdout.write(`${outcome.output}\n`);
  }
}
await Promise.all(Array.from({ length: PARALLEL_SCENARIOS }, worker));

const failed = outcomes.filter((outcome) => outcome.exitCode !== 0 && outcome.scored);
process.stdout.write(
  `\n${outcomes.length - failed.length} of ${outcomes.length} scenarios as expected` +
    `${failed.length === 0 ? '' : `; unexpected: ${failed.map((o) => `${o.revision} ${o.scenario}`).join(', ')}`}\n` +
    `Results (checks.json, client stdout/stderr per scenario): ${outputRoot}\n`,
);
process.exitCode = failed.length === 0 ? 0 : 1;
