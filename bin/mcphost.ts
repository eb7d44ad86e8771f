#!/usr/bin/env node
// The executable: load the bundle (src/cli/executable.ts, bundled by esbuild.config.mjs) and run it.
// esbuild makes this file CommonJS too (Node's ES module loader alone costs ~6 ms to start).
import * as nodeModule from 'node:module';
import { homedir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { requireThroughCodeCache } from '../src/cli/code-cache.js';

// The young generation stays at its first size instead of doubling up to 16 MB per semi-space. A
// host with servers reads their output in many short-lived Buffers; with the default growth they
// linger between scavenges: peak RSS with 8 servers 97 -> 80 MB on Node 20, 108 -> 84 MB on Node 24
// (docs/design.md, "The start path"). Node's own option for this, --max-semi-space-size, works
// only on its command line, which `#!/usr/bin/env node` cannot carry; this one is read each time
// the space would grow, so setting it here, before the bundle allocates, works. In the executable
// only: a library must not change its embedder's V8 settings. Before any code cache is read (V8
// refuses a cache made under other flags).
setFlagsFromString('--semi-space-growth-factor=1');

const BUNDLE = fileURLToPath(new URL('mcphost-bundle.cjs', import.meta.url));
const argv = process.argv.slice(2);
// Node ≥ 22.1 keeps the bytecode V8 compiled for the bundle on disk and reuses it on the next run
// (in $NODE_COMPILE_CACHE, else the system's temporary folder; NODE_DISABLE_COMPILE_CACHE=1 turns
// it off). Called here, in the executable only: a library must not change how its embedder's Node
// caches. Node 20 has no such function: there the bundle runs through our own code cache, which the
// one-shot needs to come near its target on Node 20 (docs/design.md, "The start path").
const { enableCompileCache } = nodeModule as { enableCompileCache?: () => unknown };
enableCompileCache?.();
// The bundle is minified: with --debug, stack traces are mapped back to our TypeScript through its
// source map, which Node reads (a 5 MB file) only when told to before the bundle loads, and only
// for code its own loader compiles (so not through the code cache's vm.Script).
const debug = argv.includes('--debug');
if (debug) process.setSourceMapsEnabled(true);
const exports =
  enableCompileCache === undefined && !debug
    ? requireThroughCodeCache({ bundlePath: BUNDLE, argv, env: process.env, homeDir: homedir() })
    : (nodeModule.createRequire(BUNDLE)(BUNDLE) as unknown);
const { runExecutable } = exports as { runExecutable?: unknown };
if (typeof runExecutable !== 'function')
  throw new Error(`no runExecutable in ${BUNDLE}: rebuild (npm run build)`);
// A failure inside is the CLI's to report; one that escapes it ends the process as a crash should.
void (runExecutable as () => Promise<void>)();
