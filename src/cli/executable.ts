/**
 * The executable's body: wire the real process into the CLI and exit with its code. Nothing else.
 * `bin/mcphost.ts` loads it from the bundle (`dist/bin/mcphost-bundle.cjs`, esbuild.config.mjs)
 * and calls it: a function, so that loading the bundle runs nothing.
 */
import { homedir } from 'node:os';
import type { CliIO } from './io.js';
import { main } from './main.js';
import { packageVersion } from '../util/version.js';

/** 128 + SIGPIPE, as a Unix tool whose reader went away ends. */
const SIGPIPE_EXIT_CODE = 141;

export async function runExecutable(): Promise<void> {
  // The reader went away (`mcphost -p … | head -1`): stop quietly, as Unix tools do on SIGPIPE
  // (which Node ignores). The exit hook of the MCP pool still ends every server.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      process.exit(SIGPIPE_EXIT_CODE);
    });
  }

  const io: CliIO = {
    // Made on first use: Node builds `process.stdin` when it is first read, and for a file or
    // /dev/null that loads its file streams, promises and readline (~5 ms), which `--help`, `mcp
    // list` or a `-p` run with its prompt given never need.
    get stdin() {
      return process.stdin;
    },
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    homeDir: homedir(),
    cwd: process.cwd(),
  };
  const code = await main(process.argv.slice(2), io, process, packageVersion());
  process.exitCode = code;
  // Let pending output drain, but do not wait forever on a handle someone left open.
  setTimeout(() => process.exit(code), 1_000).unref();
}
