/* global process */
// Preloaded (`node --import`) into a process whose own peak resident memory is wanted: at exit it
// writes getrusage(RUSAGE_SELF)'s ru_maxrss (kB) and CPU time (µs) to $PEAK_RSS_FILE as JSON. RUSAGE_SELF counts this process
// only, not the MCP servers it spawns (an outside `/usr/bin/time` would fold waited-for children in).
import { writeFileSync } from 'node:fs';

const file = process.env.PEAK_RSS_FILE;
if (file !== undefined) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    writeFileSync(
      file,
      JSON.stringify({ maxRss: usage.maxRSS, cpu: usage.userCPUTime + usage.systemCPUTime }),
    );
  });
}
