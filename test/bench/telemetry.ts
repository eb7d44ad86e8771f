/**
 * Bench section `telemetry` (issue 37), two targets:
 *
 *   a. The one-shot start with telemetry off is unchanged: `mcphost -p` with no server, this build
 *      against a baseline build named by BENCH_BASELINE_CLI (a build of main, say:
 *      `git archive main | tar -x -C /tmp/base && ln -s $PWD/node_modules /tmp/base/ && (cd /tmp/base
 *      && npm run build)`, then BENCH_BASELINE_CLI=/tmp/base/dist/bin/mcphost.js), measured in
 *      turns; and the same start exporting to an OTLP receiver on loopback, beside. Host CPU (user
 *      + system of the process alone, getrusage through peak-rss.mjs) and wall time, medians.
 *   b. Host CPU per tool round with export on ≤ off + 1 ms: `mcphost -p` with ROUNDS rounds of
 *      server-everything's `echo` and with one, exporting (OTLP http/protobuf to the loopback
 *      receiver, as a user's collector would get it) and not; the difference of the two over
 *      ROUNDS - 1 is a round's cost (start, close and the export at exit of a one-round run
 *      cancelled out; the spans of the other rounds are exported within the run). Medians of
 *      interleaved quadruples.
 *
 * The check that no OpenTelemetry module runs with telemetry off is a test (test/e2e/telemetry.test.ts).
 */
import { readFile } from 'node:fs/promises';
import { startFakeOllama, textReply } from '../fakes/ollama-server.js';
import { CLI, EVERYTHING_SERVER, temporaryHome, type TemporaryHome } from '../support/cli.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import { median } from './measure.js';
import { ownUsageRun } from './own-usage-run.js';
import { cliCpuMs, echoingModel, ROUNDS } from './tool-round.js';

const REPEATS = Math.max(3, Number(process.env.BENCH_REPEATS ?? 5));
const TARGET_EXTRA_MS = 1;

/** CPU (ms, the process's own) and wall time (ms) of one run of `node <cli> ...args`. */
function oneRun(
  home: TemporaryHome,
  cli: string,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
): Promise<{ cpu: number; wall: number }> {
  // A run that exported nothing says so on stderr and still exits 0.
  return ownUsageRun({ home, args: [cli, ...args], env, failsOn: (stderr) => stderr.includes('telemetry:') });
}

interface Figures {
  readonly cpu: number;
  readonly wall: number;
}

export async function oneShotStart(receiver: OtlpReceiver): Promise<void> {
  const model = await startFakeOllama([], { fallback: textReply('ok') });
  // A HOME per build: on Node 20 the executable's code cache lives under it, and each build names
  // its own cache and removes the others' (one HOME for both would miss the cache at every run).
  const home = await temporaryHome();
  const baselineHome = await temporaryHome();
  const baseline = process.env.BENCH_BASELINE_CLI;
  const args = ['-p', 'hi', '--provider-url', model.url];
  const exporting = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url };
  const variants: ReadonlyArray<{ name: string; run: () => Promise<Figures> }> = [
    { name: 'this build, telemetry off', run: () => oneRun(home, CLI, args, {}) },
    ...(baseline === undefined
      ? []
      : [
          {
            name: `baseline (${baseline}), telemetry off`,
            run: () => oneRun(baselineHome, baseline, args, {}),
          },
        ]),
    { name: 'this build, exporting to loopback', run: () => oneRun(home, CLI, args, exporting) },
  ];
  try {
    await home.writeConfig({ mcpServers: {} });
    await baselineHome.writeConfig({ mcpServers: {} });
    for (const variant of variants) await variant.run(); // warm the file and code caches
    const cpu: number[][] = variants.map(() => []);
    const wall: number[][] = variants.map(() => []);
    for (let round = 0; round < REPEATS * 2; round++) {
      for (const [index, variant] of variants.entries()) {
        const figures = await variant.run();
        cpu[index]!.push(figures.cpu);
        wall[index]!.push(figures.wall);
      }
    }
    const lines = variants.map(
      (variant, index) =>
        `${variant.name}: ${median(cpu[index]!).toFixed(0)} ms CPU, ${median(wall[index]!).toFixed(0)} ms wall`,
    );
    const off = median(cpu[0]!);
    const against =
      baseline === undefined
        ? '(no BENCH_BASELINE_CLI: no baseline to compare with)'
        : `off vs baseline: ${(off - median(cpu[1]!)).toFixed(1)} ms CPU, ` +
          `${(median(wall[0]!) - median(wall[1]!)).toFixed(0)} ms wall`;
    const load = (await readFile('/proc/loadavg', 'utf8').catch(() => '? ? ?')).split(' ').slice(0, 3);
    console.log(
      `telemetry a. one-shot -p start, no server (medians of ${REPEATS * 2}, in turns; load average ${load.join(' ')})\n` +
        `  ${lines.join('\n  ')}\n  ${against}\n`,
    );
  } finally {
    await home.remove();
    await baselineHome.remove();
    await model.close();
  }
}

async function toolRoundCost(receiver: OtlpReceiver): Promise<void> {
  const model = await echoingModel();
  const home = await temporaryHome();
  const exporting = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url };
  try {
    await home.writeConfig({ mcpServers: { everything: EVERYTHING_SERVER } });
    const run = (rounds: number, env: Readonly<Record<string, string>>): Promise<number> => {
      model.setCalls(rounds);
      return cliCpuMs(home, model.url, rounds, env);
    };
    await run(1, {});
    await run(1, exporting);
    const off: number[] = [];
    const on: number[] = [];
    for (let quadruple = 0; quadruple < REPEATS; quadruple++) {
      off.push(((await run(ROUNDS, {})) - (await run(1, {}))) / (ROUNDS - 1));
      on.push(((await run(ROUNDS, exporting)) - (await run(1, exporting))) / (ROUNDS - 1));
    }
    const spans = receiver.spans.filter((span) => span.name === 'execute_tool everything__echo').length;
    const extra = median(on) - median(off);
    console.log(
      `telemetry b. host CPU per tool round, export on vs off (mcphost -p, everything__echo, ${ROUNDS} rounds vs 1; medians of ${REPEATS})\n` +
        `  off ${median(off).toFixed(2)} ms, on ${median(on).toFixed(2)} ms per round ` +
        `(${spans} execute_tool spans received)\n` +
        `  +${extra.toFixed(2)} ms (target ≤ +${TARGET_EXTRA_MS} ms: ${extra <= TARGET_EXTRA_MS ? 'meets' : 'MISSES'})\n`,
    );
  } finally {
    await home.remove();
    await model.close();
  }
}

export async function telemetryCost(): Promise<void> {
  const receiver = await startOtlpReceiver();
  try {
    await oneShotStart(receiver);
    await toolRoundCost(receiver);
  } finally {
    await receiver.close();
  }
}
