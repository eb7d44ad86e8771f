/**
 * `npm run bench`: the performance targets, measured in one run on this machine and printed as
 * figures and ratios. Not a test: shared machines are noisy, so nothing here fails a build.
 *
 *   1. 8 servers start in about the time of one: one-shot wall time with 8 ≤ 1.3 × with 1.
 *   2. Host cost per tool round (fake model answering at once, everything__echo) ≤ 10 ms.
 *   3. `mcphost --help` ≤ 2.5 × `node -e 0` (yargs parses; vendor SDKs are imported only when used).
 */
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createRunner } from '../../src/setup/create-runner.js';
import { startFakeOllama, textReply, toolCallReply } from '../fakes/ollama-server.js';
import { coldPath } from './cold-path.js';
import { CLI, REPOSITORY, temporaryHome, EVERYTHING_SERVER, npmServerConfig } from '../support/cli.js';

const REPEATS = Number(process.env.BENCH_REPEATS ?? 5);

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Wall time of a command, in ms, waiting for it to exit. */
function timeCommand(command: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${stderr}`));
      else resolve(performance.now() - started);
    });
  });
}

async function medianOf(runs: number, measure: () => Promise<number>): Promise<number> {
  const times: number[] = [];
  await measure(); // warm the file cache
  for (let index = 0; index < runs; index++) times.push(await measure());
  return median(times);
}

function report(name: string, figures: string, ratio: number, target: number, unit = '×'): void {
  const verdict = ratio <= target ? 'meets' : 'MISSES';
  console.log(
    `${name}\n  ${figures}\n  ${ratio.toFixed(2)}${unit} (target ≤ ${target}${unit}: ${verdict})\n`,
  );
}

/** A server whose start-up is mostly waiting (500 ms), like one behind `npx` or a cold cache. */
const SLOW_START = {
  command: process.execPath,
  args: [join(REPOSITORY, 'test/fixtures/servers/slow-start.mjs')],
  env: { STARTUP_DELAY_MS: '500' },
};
/** A real server from npm: its start-up is mostly CPU (loading the SDK and zod). */
const MEMORY = npmServerConfig('memory');

async function serverStartup(label: string, server: object): Promise<void> {
  const ollama = await startFakeOllama([], { fallback: textReply('ok') });
  const home = await temporaryHome();
  const oneShot = async (servers: number): Promise<number> => {
    const mcpServers = Object.fromEntries(
      Array.from({ length: servers }, (_, index) => [`server${index}`, server]),
    );
    await home.writeConfig({ mcpServers });
    return timeCommand(process.execPath, [CLI, '-p', 'hi', '--provider-url', ollama.url], {
      PATH: process.env.PATH,
      HOME: home.path,
    });
  };
  try {
    const one = await medianOf(REPEATS, () => oneShot(1));
    const eight = await medianOf(REPEATS, () => oneShot(8));
    report(
      `1. one-shot wall time, 8 servers vs 1 (${label})`,
      `1 server ${one.toFixed(0)} ms, 8 servers ${eight.toFixed(0)} ms`,
      eight / one,
      1.3,
    );
  } finally {
    await home.remove();
    await ollama.close();
  }
}

async function toolRound(): Promise<void> {
  const rounds = 200;
  let toolCallsLeft = 1;
  const ollama = await startFakeOllama([], {
    fallback: () =>
      toolCallsLeft-- > 0 ? toolCallReply(['everything__echo', { message: 'x' }]) : textReply('done'),
  });
  const runner = await createRunner({
    model: 'ollama:mistral-small',
    providerUrl: ollama.url,
    maxSteps: rounds + 1,
    mcpServers: { everything: EVERYTHING_SERVER },
  });
  try {
    await runner.run('warm up: one round');
    runner.reset();
    toolCallsLeft = rounds;
    const started = performance.now();
    const result = await runner.run('echo many times');
    const perRound = (performance.now() - started) / result.toolCalls.length;
    report(
      '2. host cost per tool round (fake Ollama over loopback + everything__echo)',
      `${result.toolCalls.length} rounds, ${perRound.toFixed(2)} ms each (model call + tool call + history)`,
      perRound,
      10,
      ' ms',
    );
  } finally {
    await runner.close();
    await ollama.close();
  }
}

async function helpStartup(): Promise<void> {
  const env = { PATH: process.env.PATH };
  const node = await medianOf(REPEATS * 2, () => timeCommand(process.execPath, ['-e', '0'], env));
  const help = await medianOf(REPEATS * 2, () => timeCommand(process.execPath, [CLI, '--help'], env));
  report(
    '3. mcphost --help vs node -e 0',
    `node -e 0 ${node.toFixed(0)} ms, mcphost --help ${help.toFixed(0)} ms`,
    help / node,
    2.5,
  );
}

console.log(`mcphost benchmarks (median of ${REPEATS} runs each; ${process.version})\n`);
await helpStartup();
await serverStartup('servers that wait 500 ms before they are ready', SLOW_START);
await serverStartup(`server-memory from npm: CPU-bound, ${availableParallelism()} cores`, MEMORY);
await toolRound();
await coldPath();
