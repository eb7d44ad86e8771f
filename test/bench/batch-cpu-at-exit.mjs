/* global process */
// Preloaded (`node --import`) into the `mcphost batch` process the batch bench measures: at exit,
// writes the process's own CPU time (user + system, ms) to $BENCH_CPU_FILE. Its servers are
// other processes and are not counted.
import { writeFileSync } from 'node:fs';

process.on('exit', () => {
  const { user, system } = process.cpuUsage();
  writeFileSync(
    String(process.env.BENCH_CPU_FILE),
    JSON.stringify({ userMs: user / 1000, systemMs: system / 1000 }),
  );
});
