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
 * The suite itself is fetched the same way, on demand ({@link SUITE_PACKAGE}), and is no
 * devDependency: its dependencies need Node 22, so `npm ci` on Node 20 would warn EBADENGINE.
 *
 * `auth/metadata-var3` runs a second time with the sign-in done by `mcphost auth login` before the
 * client connects (MCPHOST_CONFORMANCE_SIGN_IN=auth-login, see client.ts), so that the command's
 * discovery is judged by the suite as well as the in-run sign-in's.
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
import { mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import * as z from 'zod';

/** The Node that runs the suite: a 22.x with `fs.globSync`, pinned so every run is the same. */
const SUITE_NODE = 'node@22.23.3';
/** The official suite, pinned: a new alpha may add or change scenarios. */
const SUITE_PACKAGE = '@modelcontextprotocol/conformance@0.2.0-alpha.12';
/** Scenarios run once more with the sign-in done beforehand by `mcphost auth login`. */
const AUTH_LOGIN_SCENARIOS: ReadonlySet<string> = new Set(['auth/metadata-var3']);
const REQUIREMENT_SETS = ['2025-11-25', '2026-07-28'] as const;
/** Scenarios run at once. Each starts a test server and a fresh Node for the client. */
const PARALLEL_SCENARIOS = 3;
/** A client that has not finished after this long fails its scenario (the suite's `--timeout`). */
const CLIENT_TIMEOUT_MS = 90_000;

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
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
  /** How the client signs in: as the chat does when a server asks, or by `auth login` first. */
  readonly signIn: 'in-run' | 'auth-login';
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

function scenariosOf(conformancePackage: string, revision: string): ScenarioRun[] {
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
  return [...scored, ...unscored, ...extra].flatMap((run) => [
    { ...run, signIn: 'in-run' as const },
    ...(AUTH_LOGIN_SCENARIOS.has(run.scenario) ? [{ ...run, signIn: 'auth-login' as const }] : []),
  ]);
}

/** Where the suite runs from: the registry's Node 22 binary and the suite's package folder. */
interface Suite {
  readonly node: string;
  readonly packageFolder: string;
}

/**
 * The registry's Node 22 and the pinned suite, downloaded once into npx's cache. The suite's bin
 * is a link into its package, whose requirement files this reads.
 */
function fetchSuite(): Suite {
  const output = execFileSync(
    'npx',
    [
      '--yes',
      '--loglevel=error',
      '-p',
      SUITE_NODE,
      '-p',
      SUITE_PACKAGE,
      '--',
      'sh',
      '-c',
      'command -v node && command -v conformance',
    ],
    { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const [node, bin] = output.trim().split('\n');
  if (node === undefined || bin === undefined) throw new Error(`npx did not install ${SUITE_PACKAGE}`);
  return { node: realpathSync(node), packageFolder: dirname(dirname(realpathSync(bin))) };
}

function runScenario(suite: Suite, run: ScenarioRun, outputDir: string): Promise<ScenarioOutcome> {
  const args = [
    join(suite.packageFolder, 'dist/index.js'),
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
    const child = spawn(suite.node, args, {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, MCPHOST_CONFORMANCE_SIGN_IN: run.signIn },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      resolvePromise({ ...run, exitCode: code ?? 1, output });
    });
  });
}

/** The scenario's name, marked when the sign-in ran through `auth login`. */
function nameOf(run: ScenarioRun): string {
  return run.signIn === 'auth-login' ? `${run.scenario} (auth login)` : run.scenario;
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
const suite = fetchSuite();
const runs = revisions
  .flatMap((revision) => scenariosOf(suite.packageFolder, revision))
  .filter((run) => onlyScenario === undefined || run.scenario === onlyScenario);
if (runs.length === 0) {
  process.stderr.write(`conformance: no client scenario ${onlyScenario ?? ''} in ${revisions.join(', ')}\n`);
  process.exit(2);
}

const outputRoot = mkdtempSync(join(tmpdir(), 'mcphost-conformance-'));
process.stdout.write(`MCP conformance: ${runs.length} client scenario runs, suite on ${suite.node}\n`);
const outcomes: ScenarioOutcome[] = [];
const queue = [...runs];
async function worker(): Promise<void> {
  for (let run = queue.shift(); run !== undefined; run = queue.shift()) {
    const outcome = await runScenario(suite, run, join(outputRoot, run.revision, run.signIn));
    outcomes.push(outcome);
    process.stdout.write(
      `${run.revision}  ${nameOf(run).padEnd(42)} ${verdictOf(outcome).padEnd(20)} ${summaryOf(outcome.output)}\n`,
    );
    if (outcome.exitCode !== 0 && outcome.scored) process.stdout.write(`${outcome.output}\n`);
  }
}
await Promise.all(Array.from({ length: PARALLEL_SCENARIOS }, worker));

const failed = outcomes.filter((outcome) => outcome.exitCode !== 0 && outcome.scored);
process.stdout.write(
  `\n${outcomes.length - failed.length} of ${outcomes.length} scenarios as expected` +
    `${failed.length === 0 ? '' : `; unexpected: ${failed.map((o) => `${o.revision} ${nameOf(o)}`).join(', ')}`}\n` +
    `Results (checks.json, client stdout/stderr per scenario): ${outputRoot}\n`,
);
process.exitCode = failed.length === 0 ? 0 : 1;
