/**
 * Builds' start side by side: `--help` and the one-shot `-p` with no server (fake Ollama over
 * loopback), each build with its own HOME (Node 20's code cache lives there), measured in turns
 * with the exchange floor and yargs' floor so that a noisy moment on the shared machine falls on
 * all alike. CPU time (user + system of the process alone, via peak-rss.mjs) and wall time, medians.
 * Usage: BENCH_BUILDS=old=/path/to/other/dist/bin/mcphost.js node --import tsx test/bench/compare-builds.ts
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startFakeOllama, textReply } from '../fakes/ollama-server.js';
import { CLI, REPOSITORY, temporaryHome, type TemporaryHome } from '../support/cli.js';
import { median } from './measure.js';
import { buildYargsFloor } from './yargs-floor.js';
import { ownUsageRun } from './own-usage-run.js';

const REPEATS = Number(process.env.BENCH_REPEATS ?? 10);
const EXCHANGE = join(REPOSITORY, 'test/bench/ollama-exchange.mjs');

function oneRun(home: TemporaryHome, args: readonly string[]): Promise<{ cpu: number; wall: number }> {
  return ownUsageRun({ home, args });
}

// name=path/to/dist/bin/mcphost.js,… : the other builds, measured beside this one ("this").
const others = (process.env.BENCH_BUILDS ?? '').split(',').filter((part) => part !== '');
if (others.length === 0) throw new Error('BENCH_BUILDS: name=path/to/dist/bin/mcphost.js,…');
const builds = [
  ...others.map((part) => part.split('=') as [string, string]),
  ['this', CLI] as [string, string],
];
const model = await startFakeOllama([], { fallback: textReply('ok') });
const homes = await Promise.all(builds.map(() => temporaryHome()));
const floorHome = await temporaryHome();
try {
  for (const home of homes) await home.writeConfig({ mcpServers: {} });
  const yargsFloor = await buildYargsFloor(floorHome.path);
  const oneShot = ['-p', 'hi', '--provider-url', model.url];
  const variants = [
    { name: 'node -e 0', run: () => oneRun(floorHome, ['-e', '0']) },
    { name: "yargs' floor --help", run: () => oneRun(floorHome, [yargsFloor, '--help']) },
    ...builds.map(([name, cli], index) => ({
      name: `${name} --help`,
      run: () => oneRun(homes[index]!, [cli, '--help']),
    })),
    { name: 'exchange floor', run: () => oneRun(floorHome, [EXCHANGE, model.url]) },
    ...builds.map(([name, cli], index) => ({
      name: `${name} one-shot`,
      run: () => oneRun(homes[index]!, [cli, ...oneShot]),
    })),
  ];
  for (const variant of variants) await variant.run(); // warm file and code caches
  const cpu: number[][] = variants.map(() => []);
  const wall: number[][] = variants.map(() => []);
  for (let round = 0; round < REPEATS; round++) {
    for (const [index, variant] of variants.entries()) {
      const figures = await variant.run();
      cpu[index]!.push(figures.cpu);
      wall[index]!.push(figures.wall);
    }
  }
  const load = (await readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' ');
  console.log(`Node ${process.version}, medians of ${REPEATS} rounds in turns, load average ${load}`);
  for (const [index, variant] of variants.entries()) {
    console.log(
      `  ${variant.name.padEnd(20)} CPU ${median(cpu[index]!).toFixed(1).padStart(6)} ms   wall ${median(wall[index]!).toFixed(1).padStart(6)} ms`,
    );
  }
} finally {
  for (const home of homes) await home.remove();
  await floorHome.remove();
  await model.close();
}
