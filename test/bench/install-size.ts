/**
 * The install as a user gets it, measured: `npm pack` (of the built dist/), then `npm install -g`
 * of the tarball into a temporary prefix, and the size of that prefix on disk. Fails (exit 1) above
 * {@link LIMIT_BYTES} (issue 40: 891 MB before, most of it GPU binaries this machine cannot use).
 *
 * Then the embedded model from that install, as a user runs it: a throw-away HOME, the tiny model,
 * the llama.cpp runtime fetched from the npm registry on first use (its size is printed), and a
 * second run with the registry unreachable, which must work from what was fetched.
 *
 *   npm run build && node --import tsx test/bench/install-size.ts [--no-model]
 *
 * In .ci/run after the tests (dist/ is built there).
 */
import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { writeTinyGguf } from '../fixtures/tiny-gguf.js';
import { REPOSITORY } from '../support/cli.js';
import { unusedPort } from '../support/loopback.js';

const run = promisify(execFile);

/** The target of issue 40, in bytes (10^6 per MB): a global install on a machine without a GPU. */
export const LIMIT_BYTES = 250_000_000;

async function diskBytes(folder: string): Promise<number> {
  // `du -sb`: the bytes of the files (apparent size), as npm's own figures and the issue count them.
  const { stdout } = await run('du', ['-sb', folder]);
  return Number(stdout.split('\t')[0]);
}

function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

async function mcphost(
  prefix: string,
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string; seconds: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(join(prefix, 'bin', 'mcphost'), args, {
      // The network settings a user's shell has (a proxy's CA for Node's fetch, as npm has its own).
      env: {
        PATH: process.env.PATH ?? '',
        ...Object.fromEntries(
          Object.entries(process.env).filter(
            (entry): entry is [string, string] =>
              /^(NODE_EXTRA_CA_CERTS|HTTPS?_PROXY|https?_proxy|NO_PROXY|no_proxy)$/.test(entry[0]) &&
              entry[1] !== undefined,
          ),
        ),
        ...env,
      },
      cwd: env.HOME,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, seconds: (Date.now() - started) / 1000 }));
  });
}

const work = await mkdtemp(join(tmpdir(), 'mcphost-install-size-'));
let failed = false;
try {
  const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {
    cwd: REPOSITORY,
    maxBuffer: 64 * 1024 * 1024,
  });
  const [tarball] = JSON.parse(packed.stdout) as Array<{ filename: string; size: number }>;
  if (tarball === undefined) throw new Error('npm pack said nothing about its tarball');
  const { filename, size } = tarball;
  const prefix = join(work, 'prefix');
  const started = Date.now();
  await run(
    'npm',
    [
      'install',
      '-g',
      '--prefix',
      prefix,
      join(work, filename),
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
    ],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  const installSeconds = (Date.now() - started) / 1000;
  const installed = await diskBytes(prefix);
  const modules = join(prefix, 'lib', 'node_modules', 'mcphost', 'node_modules');
  const llamaPackages = (await readdir(modules).catch(() => [] as string[])).filter(
    (name) => name === 'node-llama-cpp' || name === '@node-llama-cpp',
  );
  console.log(
    `install: tarball ${megabytes(size)}; npm install -g ${megabytes(installed)} in ${installSeconds.toFixed(0)} s (limit ${megabytes(LIMIT_BYTES)})`,
  );
  console.log(`install: llama packages installed with mcphost: ${llamaPackages.join(', ') || 'none'}`);
  if (installed > LIMIT_BYTES) {
    console.error(`install: ${megabytes(installed)} is over the limit of ${megabytes(LIMIT_BYTES)}`);
    failed = true;
  }
  if (!process.argv.includes('--no-model')) {
    const home = join(work, 'home');
    await mkdir(home);
    const model = await writeTinyGguf(join(work, 'tiny.gguf'));
    const args = ['-m', `local:${model}`, '-p', 'hello', '--max-tokens', '4'];
    const env = { HOME: home, MCPHOST_LOCAL_THREADS: '1' };
    // `mcphost models list` says which runtime runs and why: nothing fetched yet, then what was.
    const listedBefore = await mcphost(prefix, ['models', 'list'], env);
    const first = await mcphost(prefix, args, env);
    const runtime = await diskBytes(join(home, '.cache', 'mcphost', 'runtime')).catch(() => 0);
    console.log(
      `model: first run (fetches the runtime) exit ${first.code} in ${first.seconds.toFixed(1)} s; runtime fetched ${megabytes(runtime)}`,
    );
    const offline = { ...env, npm_config_registry: `http://127.0.0.1:${await unusedPort()}/` };
    const second = await mcphost(prefix, args, offline);
    console.log(
      `model: second run, registry unreachable: exit ${second.code} in ${second.seconds.toFixed(1)} s`,
    );
    const listedAfter = await mcphost(prefix, ['models', 'list'], offline);
    const runtimeLine = (listed: { stdout: string }) =>
      listed.stdout.split('\n').find((line) => line.startsWith('llama.cpp runtime:')) ?? '(none)';
    console.log(`models list before: ${runtimeLine(listedBefore)}`);
    console.log(`models list after: ${runtimeLine(listedAfter)}`);
    if (!runtimeLine(listedBefore).includes('not fetched yet')) {
      console.error(
        'models list: before the first local run, the runtime line should say it is not fetched yet',
      );
      failed = true;
    }
    if (!/^llama\.cpp runtime: @node-llama-cpp\/\S+.* in .+; runs on /.test(runtimeLine(listedAfter))) {
      console.error(
        'models list: after the first local run, the runtime line should name what was fetched and where it runs',
      );
      failed = true;
    }
    for (const [name, outcome] of [
      ['first', first],
      ['second', second],
    ] as const) {
      if (outcome.code !== 0 || outcome.stdout.trim() === '') {
        console.error(`model: the ${name} run failed (exit ${outcome.code}):\n${outcome.stderr}`);
        failed = true;
      }
    }
    console.log(`install + runtime: ${megabytes(installed + runtime)}`);
  }
} finally {
  await rm(work, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;
