/**
 * Bench section 2: the host's cost of one tool round (a model call answered at once by a fake
 * Ollama over loopback, a call of server-everything's `echo`, the history grown by both), target
 * ≤ 5 ms (issue 27).
 *
 * Wall time on a shared machine is mostly other people's work: the round waits on the fake model
 * and on the server, and each waits for a core. So the figure the target is read from is the host's
 * own CPU time (user + system, getrusage RUSAGE_SELF: the server and the fake model excluded):
 *
 *   - CLI: `mcphost -p` as a user runs it, once with ROUNDS tool rounds and once with one, both
 *     through test/bench/peak-rss.mjs; the difference over ROUNDS - 1 is the cost of a round, start
 *     and close cancelled out. Medians of interleaved pairs.
 *   - library: `createRunner` in this process, wall time and `process.cpuUsage()` per round. The
 *     fake model answers in this process too, so its CPU time counts here (an upper bound).
 */
import { spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createRunner } from '../../src/setup/create-runner.js';
import { startFakeOllama, textReply, toolCallReply } from '../fakes/ollama-server.js';
import { CLI, EVERYTHING_SERVER, REPOSITORY, temporaryHome, type TemporaryHome } from '../support/cli.js';
import { median } from './measure.js';

export const ROUNDS = 200;
const PAIRS = Math.max(3, Number(process.env.BENCH_REPEATS ?? 5));
const TARGET_MS = 5;
const OWN_USAGE_PRELOAD = join(REPOSITORY, 'test/bench/peak-rss.mjs');

/** A fake Ollama that asks for `everything__echo` while `callsLeft` lasts, then answers in text. */
export async function echoingModel(): Promise<{
  url: string;
  setCalls: (count: number) => void;
  close: () => Promise<void>;
}> {
  let callsLeft = 0;
  const ollama = await startFakeOllama([], {
    fallback: () =>
      callsLeft-- > 0 ? toolCallReply(['everything__echo', { message: 'x' }]) : textReply('done'),
  });
  return {
    url: ollama.url,
    setCalls: (count) => {
      callsLeft = count;
    },
    close: () => ollama.close(),
  };
}

/**
 * The CPU time (ms) an `mcphost -p` run used itself, by its own getrusage. Fails on a non-zero exit
 * or when the run did not make `rounds` tool calls (a denied or failed call would cost less).
 */
export function cliCpuMs(
  home: TemporaryHome,
  providerUrl: string,
  rounds: number,
  extraEnv: Readonly<Record<string, string>> = {},
): Promise<number> {
  const file = join(home.path, 'own-usage.json');
  const args = ['--import', OWN_USAGE_PRELOAD, CLI, '-p', 'echo', '--provider-url', providerUrl];
  args.push('--max-steps', String(ROUNDS + 1), '--output-format', 'json');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      env: { PATH: process.env.PATH, HOME: home.path, PEAK_RSS_FILE: file, ...extraEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) {
        reject(new Error(`mcphost -p exited ${code}: ${stderr}`));
        return;
      }
      const result = JSON.parse(stdout) as { toolCalls: ReadonlyArray<{ isError: boolean }> };
      const done = result.toolCalls.filter((call) => !call.isError).length;
      if (done !== rounds) {
        reject(new Error(`mcphost -p made ${done} successful tool calls, not ${rounds}: ${stderr}`));
        return;
      }
      readFile(file, 'utf8')
        .then(async (text) => {
          await rm(file);
          resolve((JSON.parse(text) as { cpu: number }).cpu / 1000);
        })
        .catch(reject);
    });
  });
}

/** Host CPU ms per round of the CLI: (run with ROUNDS rounds - run with 1) / (ROUNDS - 1), medians. */
async function cliPerRound(): Promise<{ perRound: number; many: number; one: number }> {
  const model = await echoingModel();
  const home = await temporaryHome();
  try {
    await home.writeConfig({ mcpServers: { everything: EVERYTHING_SERVER } });
    const run = (rounds: number): Promise<number> => {
      model.setCalls(rounds);
      return cliCpuMs(home, model.url, rounds);
    };
    await run(1); // warm the file cache (and Node's compile cache)
    const perRound: number[] = [];
    const many: number[] = [];
    const one: number[] = [];
    for (let pair = 0; pair < PAIRS; pair++) {
      many.push(await run(ROUNDS));
      one.push(await run(1));
      perRound.push((many.at(-1)! - one.at(-1)!) / (ROUNDS - 1));
    }
    return { perRound: median(perRound), many: median(many), one: median(one) };
  } finally {
    await home.remove();
    await model.close();
  }
}

/** Wall and CPU ms per round of the library in this process (the fake model's CPU included). */
async function libraryPerRound(): Promise<{ wall: number; cpu: number; rounds: number }> {
  const model = await echoingModel();
  const runner = await createRunner({
    model: 'ollama:mistral-small',
    providerUrl: model.url,
    maxSteps: ROUNDS + 1,
    mcpServers: { everything: EVERYTHING_SERVER },
  });
  try {
    model.setCalls(1);
    await runner.run('warm up: one round');
    runner.reset();
    model.setCalls(ROUNDS);
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const result = await runner.run('echo many times');
    const wall = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    const rounds = result.toolCalls.length;
    return { wall: wall / rounds, cpu: (cpu.user + cpu.system) / 1000 / rounds, rounds };
  } finally {
    await runner.close();
    await model.close();
  }
}

export async function toolRound(): Promise<void> {
  const library = await libraryPerRound();
  const cli = await cliPerRound();
  const verdict = cli.perRound <= TARGET_MS ? 'meets' : 'MISSES';
  console.log(
    `2. host cost per tool round (fake Ollama over loopback + everything__echo; model call + tool call + history)\n` +
      `  mcphost -p, host CPU (user + system, the server and the fake model excluded): ` +
      `${cli.perRound.toFixed(2)} ms per round ` +
      `(${ROUNDS} rounds ${cli.many.toFixed(0)} ms, 1 round ${cli.one.toFixed(0)} ms; medians of ${PAIRS} pairs)\n` +
      `  library, in this process: ${library.wall.toFixed(2)} ms wall, ` +
      `${library.cpu.toFixed(2)} ms CPU per round (the fake model's CPU included; ${library.rounds} rounds)\n` +
      `  ${cli.perRound.toFixed(2)} ms (target ≤ ${TARGET_MS} ms of host CPU: ${verdict})\n`,
  );
}
