#!/usr/bin/env node
// The executable: run the bundle (src/cli/executable.ts, bundled by esbuild.config.mjs) through the
// code cache. esbuild makes this file CommonJS too (Node's ES module loader alone costs ~6 ms to
// start), with code-cache.ts and Node's own modules only, so it costs next to nothing.
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { debuglog } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { describeCodeCache, loadThroughCodeCache } from '../src/cli/code-cache.js';

// Two V8 settings for a short-lived host that mostly waits on the network, set in the executable
// only (a library must not change its embedder's V8 flags), before anything is allocated or
// compiled: V8 refuses a code cache made under other flags, so they come before the bundle.
// - Node's fetch (undici) compiles its HTTP parser, llhttp, from WebAssembly on first use, and V8's
//   optimizing tier for it costs ~28 MB of peak memory; the baseline tier (Liftoff) parses a model's
//   stream just as well at our sizes.
// - The young generation stays at its first size instead of doubling up to 16 MB per semi-space:
//   ~7 MB less peak, for a few more (cheap) scavenges. (--max-semi-space-size has no effect once the
//   heap exists; the growth factor is read each time the space would grow.)
setFlagsFromString('--liftoff-only');
setFlagsFromString('--semi-space-growth-factor=1');

const BUNDLE = fileURLToPath(new URL('mcphost-bundle.cjs', import.meta.url));
const argv = process.argv.slice(2);
// `NODE_DEBUG=mcphost` tells what the code cache did (Node's own switch for such lines).
const log = debuglog('mcphost');
let exports: unknown;
if (argv.includes('--debug')) {
  // The bundle is minified: with --debug, stack traces are mapped back to our TypeScript through its
  // source map, which Node reads only for code its module loader compiles, not through vm.Script.
  process.setSourceMapsEnabled(true);
  log('code cache: not used with --debug');
  exports = createRequire(BUNDLE)(BUNDLE);
} else {
  const bundle = loadThroughCodeCache({ bundlePath: BUNDLE, argv, env: process.env, homeDir: homedir() });
  process.once('exit', () => {
    log(describeCodeCache(bundle.cache, bundle.save()));
  });
  exports = bundle.exports;
}
const { runExecutable } = exports as { runExecutable?: unknown };
if (typeof runExecutable !== 'function')
  throw new Error(`no runExecutable in ${BUNDLE}: rebuild (npm run build)`);
// A failure inside is the CLI's to report; one that escapes it ends the process as a crash should.
void (runExecutable as () => Promise<void>)();
