/**
 * The cold path against its floors (issue 17), each pair measured in the same run:
 *
 *   a. `mcphost --help` ≤ 1.1 × yargs' own floor: a yargs program with our flags and commands,
 *      bundled as ours is (yargs-floor-program.ts), as the owner decided for issue 27 (the earlier
 *      2.5 × `node -e 0` is printed beside). On Node ≥ 22.1 with Node's compile cache, as every run
 *      after the first; runs without it are printed beside.
 *   b. one-shot `-p` with no server (fake Ollama over loopback) ≤ 2.5 × the exchange floor: Node
 *      making the same requests and nothing else (ollama-exchange.mjs).
 *   c. one-shot with eight servers that wait 0.5 s before answering ≤ the floor + 100 ms, the floor
 *      being a bare SDK client per server (bare-clients.mjs): spawn, connect, list tools, close.
 *   d. the host process's own peak RSS (servers excluded) with 0, 1 and 8 servers: with 8 ≤ 1.1 × the
 *      MCP SDK's own floor (bare-clients.mjs: the SDK's client per server and nothing else), as the
 *      owner decided for issue 27 (on Node 24; the earlier ≤ 75 MB is printed beside).
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { median } from './measure.js';
import { buildYargsFloor } from './yargs-floor.js';
import { performance } from 'node:perf_hooks';
import { startFakeOllama, textReply } from '../fakes/ollama-server.js';
import { CLI, REPOSITORY, temporaryHome, type TemporaryHome } from '../support/cli.js';

const REPEATS = Number(process.env.BENCH_REPEATS ?? 5);
const BARE_CLIENTS = join(REPOSITORY, 'test/bench/bare-clients.mjs');
const OLLAMA_EXCHANGE = join(REPOSITORY, 'test/bench/ollama-exchange.mjs');
const PEAK_RSS_PRELOAD = join(REPOSITORY, 'test/bench/peak-rss.mjs');

/** A server that waits 500 ms before it reads its stdin, as one behind `npx` or a cold cache does. */
const SLOW_START = {
  command: process.execPath,
  args: [join(REPOSITORY, 'test/fixtures/servers/slow-start.mjs')],
  env: { STARTUP_DELAY_MS: '500' },
};

function eightSlowServers(): Record<string, typeof SLOW_START> {
  return Object.fromEntries(Array.from({ length: 8 }, (_, index) => [`slow${index}`, SLOW_START]));
}

/** Wall time of a command, in ms, from spawn to exit; a non-zero exit is an error. */
function timeCommand(args: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`node ${args.join(' ')} exited ${code}: ${stderr}`));
      else resolve(performance.now() - started);
    });
  });
}

/**
 * Medians of several commands measured in turns (a, b, a, b, …), so that a noisy moment on the
 * shared machine falls on all of them alike rather than on whichever ran then.
 */
async function interleavedMedians(measures: ReadonlyArray<() => Promise<number>>): Promise<number[]> {
  for (const measure of measures) await measure(); // warm the file cache
  const times: number[][] = measures.map(() => []);
  for (let round = 0; round < REPEATS; round++) {
    for (const [index, measure] of measures.entries()) times[index]!.push(await measure());
  }
  return times.map(median);
}

function verdict(met: boolean): string {
  return met ? 'meets' : 'MISSES';
}

/** What one process used, by its own count (getrusage RUSAGE_SELF): children excluded. */
interface OwnUsage {
  /** Peak resident memory, MB (/proc's VmHWM of the process image; test/bench/peak-rss.mjs). */
  readonly peakRssMb: number;
  /** User + system CPU time, ms: unlike wall time, barely moved by other load on the machine. */
  readonly cpuMs: number;
}

/** A process's own usage over several runs of `node --import peak-rss.mjs ...args` (medians). */
async function ownUsage(home: TemporaryHome, args: readonly string[]): Promise<OwnUsage> {
  const file = join(home.path, 'own-usage.json');
  const peaks: number[] = [];
  const cpu: number[] = [];
  for (let round = 0; round < Math.max(3, Math.ceil(REPEATS / 2)); round++) {
    await timeCommand(['--import', PEAK_RSS_PRELOAD, ...args], {
      PATH: process.env.PATH,
      HOME: home.path,
      PEAK_RSS_FILE: file,
    });
    const usage = JSON.parse(await readFile(file, 'utf8')) as { maxRss: number; cpu: number };
    peaks.push(usage.maxRss / 1024);
    cpu.push(usage.cpu / 1000);
    await rm(file);
  }
  return { peakRssMb: median(peaks), cpuMs: median(cpu) };
}

export async function coldPath(): Promise<void> {
  const ollama = await startFakeOllama([], { fallback: textReply('ok') });
  const home = await temporaryHome();
  const env = { PATH: process.env.PATH, HOME: home.path };
  const oneShot = [CLI, '-p', 'hi', '--provider-url', ollama.url];
  try {
    console.log(`Cold path (issues 17 and 27), interleaved runs, Node ${process.version}:\n`);
    await home.writeConfig({ mcpServers: {} });
    // On Node ≥ 22.1 the first run writes Node's compile cache (bin/mcphost.ts) and later runs use
    // it; runs without it (a first run, an upgrade, or Node 20) are measured beside.
    const noCache = { ...env, NODE_DISABLE_COMPILE_CACHE: '1' };
    const yargsFloor = await buildYargsFloor(home.path);
    const [node, help, noServer, helpFirst, noServerFirst, exchange, floorHelp] = await interleavedMedians([
      () => timeCommand(['-e', '0'], env),
      () => timeCommand([CLI, '--help'], env),
      () => timeCommand(oneShot, env),
      () => timeCommand([CLI, '--help'], noCache),
      () => timeCommand(oneShot, noCache),
      () => timeCommand([OLLAMA_EXCHANGE, ollama.url], env),
      () => timeCommand([yargsFloor, '--help'], env),
    ]);
    const overYargs = help! / floorHelp!;
    console.log(
      `a. mcphost --help\n  ${help!.toFixed(0)} ms vs yargs' floor (a yargs program with our flags and ` +
        `commands, bundled as ours) ${floorHelp!.toFixed(0)} ms: ${overYargs.toFixed(2)}× ` +
        `(target ≤ 1.1×: ${verdict(overYargs <= 1.1)}); node -e 0 ${node!.toFixed(0)} ms: ` +
        `${(help! / node!).toFixed(2)}× (earlier target 2.5×)\n`,
    );
    const overFloor = noServer! / exchange!;
    console.log(
      `b. one-shot -p with no server\n  ${noServer!.toFixed(0)} ms vs the exchange floor ` +
        `(ollama-exchange.mjs: Node and the one-shot's requests alone) ${exchange!.toFixed(0)} ms: ` +
        `${overFloor.toFixed(2)}× (target ≤ 2.5×: ${verdict(overFloor <= 2.5)}); ` +
        `${(noServer! / node!).toFixed(2)}× node -e 0\n` +
        `   without the compile cache (a first run, or Node 20): --help ${helpFirst!.toFixed(0)} ms ` +
        `(${(helpFirst! / node!).toFixed(2)}× node -e 0, ${(helpFirst! / floorHelp!).toFixed(2)}× yargs' floor, ` +
        `which has no cache either), one-shot ${noServerFirst!.toFixed(0)} ms ` +
        `(${(noServerFirst! / exchange!).toFixed(2)}× the floor)\n`,
    );
    const nodeAlone = await ownUsage(home, ['-e', '0']);
    const none = await ownUsage(home, oneShot);
    // CPU time is moved far less than wall time by other work on a shared machine: the same two
    // ratios by it (each process's own user + system time, medians).
    const helpUsage = await ownUsage(home, [CLI, '--help']);
    const floorHelpUsage = await ownUsage(home, [yargsFloor, '--help']);
    const exchangeUsage = await ownUsage(home, [OLLAMA_EXCHANGE, ollama.url]);
    console.log(
      `a+b by CPU time (user + system of the process alone): --help ${helpUsage.cpuMs.toFixed(0)} ms vs ` +
        `node -e 0 ${nodeAlone.cpuMs.toFixed(0)} ms: ${(helpUsage.cpuMs / nodeAlone.cpuMs).toFixed(2)}×, ` +
        `vs yargs' floor ${floorHelpUsage.cpuMs.toFixed(0)} ms: ` +
        `${(helpUsage.cpuMs / floorHelpUsage.cpuMs).toFixed(2)}×; ` +
        `one-shot ${none.cpuMs.toFixed(0)} ms vs the exchange floor ${exchangeUsage.cpuMs.toFixed(0)} ms: ` +
        `${(none.cpuMs / exchangeUsage.cpuMs).toFixed(2)}×\n`,
    );

    const servers = eightSlowServers();
    await home.writeConfig({ mcpServers: servers });
    const [floor, eight] = await interleavedMedians([
      () => timeCommand([BARE_CLIENTS, JSON.stringify(servers)], env),
      () => timeCommand(oneShot, env),
    ]);
    const over = eight! - floor!;
    console.log(
      `c. one-shot with 8 servers that wait 500 ms\n  ${eight!.toFixed(0)} ms vs floor ` +
        `${floor!.toFixed(0)} ms (8 bare SDK clients): ${over >= 0 ? '+' : ''}${over.toFixed(0)} ms ` +
        `(target ≤ floor + 100 ms: ${verdict(over <= 100)})\n`,
    );
    const eightUsage = await ownUsage(home, oneShot);
    const sdkFloor = await ownUsage(home, [BARE_CLIENTS, JSON.stringify(servers)]);
    const overSdk = eightUsage.peakRssMb / sdkFloor.peakRssMb;
    // One server apart from eight: what the first server costs (the MCP SDK loaded, its schemas
    // built) against what each further one adds.
    await home.writeConfig({ mcpServers: { slow0: SLOW_START } });
    const oneUsage = await ownUsage(home, oneShot);
    const load = (await readFile('/proc/loadavg', 'utf8').catch(() => '? ? ?')).split(' ').slice(0, 3);
    console.log(
      `d. host peak RSS (VmHWM of the mcphost process, servers excluded; load average ${load.join(' ')})\n` +
        `  0 servers ${none.peakRssMb.toFixed(1)} MB, 1 server ${oneUsage.peakRssMb.toFixed(1)} MB, ` +
        `8 servers ${eightUsage.peakRssMb.toFixed(1)} MB vs the MCP SDK's floor (8 bare SDK clients) ` +
        `${sdkFloor.peakRssMb.toFixed(1)} MB: ${overSdk.toFixed(2)}× (target ≤ 1.1× on Node 24: ` +
        `${verdict(overSdk <= 1.1)}; earlier target ≤ 75 MB: ${verdict(eightUsage.peakRssMb <= 75)}; ` +
        `node -e 0 ${nodeAlone.peakRssMb.toFixed(1)} MB)\n` +
        `  host CPU time (user + system) 0 servers ${none.cpuMs.toFixed(0)} ms, ` +
        `1 server ${oneUsage.cpuMs.toFixed(0)} ms, 8 servers ${eightUsage.cpuMs.toFixed(0)} ms, ` +
        `node -e 0 ${nodeAlone.cpuMs.toFixed(0)} ms\n`,
    );
  } finally {
    await home.remove();
    await ollama.close();
  }
}
