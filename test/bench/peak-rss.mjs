/* global process */
// Preloaded (`node --import`) into a process whose own peak resident memory is wanted: at exit it
// writes getrusage(RUSAGE_SELF).ru_maxrss (kB) to $PEAK_RSS_FILE. RUSAGE_SELF counts this process
// only, not the MCP servers it spawns (an outside `/usr/bin/time` would fold waited-for children in).
import { writeFileSync } from 'node:fs';

const file = process.env.PEAK_RSS_FILE;
if (file !== undefined) {
  process.on('exit', () => writeFileSync(file, String(process.resourceUsage().maxRSS)));
}
