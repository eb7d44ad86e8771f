/* global process */
// The batch bench's measured process: runBatch from the built package over N jobs, then its own
// CPU time (user + system) and wall time as one JSON line on stdout. Run by test/bench/batch.ts.
import { performance } from 'node:perf_hooks';
import { runBatch } from '../../dist/src/index.js';

const [url, everything, jobCount, concurrency, home] = process.argv.slice(2);
const jobs = Array.from({ length: Number(jobCount) }, (_, index) => ({ prompt: `job ${index + 1}` }));
const cpuBefore = process.cpuUsage();
const started = performance.now();
let ok = 0;
let toolCalls = 0;
for await (const result of runBatch(jobs, {
  concurrency: Number(concurrency),
  runner: {
    model: 'ollama:mistral-small',
    providerUrl: url,
    env: {},
    homeDir: home,
    projectDir: home,
    mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'] } },
  },
})) {
  if (result.status === 'ok') ok += 1;
  toolCalls += result.toolCalls.length;
}
const cpu = process.cpuUsage(cpuBefore);
process.stdout.write(
  `${JSON.stringify({ ok, toolCalls, cpuMs: (cpu.user + cpu.system) / 1000, wallMs: performance.now() - started })}\n`,
);
