/* global process */
// Preloaded (`node --import`) into a process whose own peak resident memory is wanted: at exit it
// writes its peak RSS (kB) and CPU time (µs) to $PEAK_RSS_FILE as JSON. The peak is /proc's VmHWM:
// the high-water mark of this process image alone. getrusage's ru_maxrss is not: Linux carries it
// over exec from the forked copy of the parent, so a child of a large bench process reported the
// parent's size (125.1 MB for `node -e 0` under a full Node 24 run). Neither counts the MCP servers
// the process spawns. ru_maxrss is the fallback where /proc is missing.
import { readFileSync, writeFileSync } from 'node:fs';

function peakKb() {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (match !== null) return Number(match[1]);
  } catch {
    // not Linux
  }
  return process.resourceUsage().maxRSS;
}

const file = process.env.PEAK_RSS_FILE;
if (file !== undefined) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    writeFileSync(file, JSON.stringify({ maxRss: peakKb(), cpu: usage.userCPUTime + usage.systemCPUTime }));
  });
}
