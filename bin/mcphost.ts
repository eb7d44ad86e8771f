#!/usr/bin/env node
// The executable: wire the real process into the CLI and exit with its code. Nothing else.
import { homedir } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { main } from '../src/cli/main.js';
import { packageVersion } from '../src/version.js';

// Two V8 settings for a short-lived host that mostly waits on the network, set in the executable
// only (a library must not change its embedder's V8 flags), before anything is allocated or fetched:
// - Node's fetch (undici) compiles its HTTP parser, llhttp, from WebAssembly on first use, and V8's
//   optimizing tier for it costs ~28 MB of peak memory; the baseline tier (Liftoff) parses a model's
//   stream just as well at our sizes.
// - The young generation stays at its first size instead of doubling up to 16 MB per semi-space:
//   ~7 MB less peak, for a few more (cheap) scavenges. (--max-semi-space-size has no effect once the
//   heap exists; the growth factor is read each time the space would grow.)
setFlagsFromString('--liftoff-only');
setFlagsFromString('--semi-space-growth-factor=1');

// The executable is minified (esbuild.config.mjs): with --debug, stack traces are mapped back to
// our TypeScript through the bundle's source maps, as the unbundled modules' traces read.
if (process.argv.includes('--debug')) process.setSourceMapsEnabled(true);

// The reader went away (`mcphost -p … | head -1`): stop quietly, as Unix tools do on SIGPIPE
// (which Node ignores), with 128 + SIGPIPE. The exit hook of the MCP pool still ends every server.
const SIGPIPE_EXIT_CODE = 141;
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(SIGPIPE_EXIT_CODE);
  });
}

const code = await main(
  process.argv.slice(2),
  {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    homeDir: homedir(),
    cwd: process.cwd(),
  },
  process,
  packageVersion(),
);
process.exitCode = code;
// Let pending output drain, but do not wait forever on a handle someone left open.
setTimeout(() => process.exit(code), 1_000).unref();
