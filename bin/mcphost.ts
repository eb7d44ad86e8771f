#!/usr/bin/env node
// The executable: wire the real process into the CLI and exit with its code. Nothing else.
import { homedir } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { main } from '../src/cli/main.js';
import { packageVersion } from '../src/version.js';

// Node's fetch (undici) compiles its HTTP parser, llhttp, from WebAssembly on first use, and V8's
// optimizing tier for that costs about 28 MB of peak memory and tens of ms of CPU: a third of the
// host's peak. The baseline tier (Liftoff) parses a model's stream just as well at our sizes. Set in
// the executable only, before any fetch: a library must not change its embedder's V8 flags.
setFlagsFromString('--liftoff-only');

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
