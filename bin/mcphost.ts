#!/usr/bin/env node
// The executable: load the bundle (src/cli/executable.ts, bundled by esbuild.config.mjs) and run it.
// esbuild makes this file CommonJS too (Node's ES module loader alone costs ~6 ms to start).
import * as nodeModule from 'node:module';
import { fileURLToPath } from 'node:url';

// Node ≥ 22.1 keeps the bytecode V8 compiled for the bundle on disk and reuses it on the next run
// (in $NODE_COMPILE_CACHE, else the system's temporary folder; NODE_DISABLE_COMPILE_CACHE=1 turns
// it off). Node 20 has no such function and compiles on every run (docs/design.md, "The start path").
// Called here, in the executable only: a library must not change how its embedder's Node caches.
const { enableCompileCache } = nodeModule as { enableCompileCache?: () => unknown };
enableCompileCache?.();

const BUNDLE = fileURLToPath(new URL('mcphost-bundle.cjs', import.meta.url));
// The bundle is minified: with --debug, stack traces are mapped back to our TypeScript through its
// source map, which Node reads (a 5 MB file) only when told to before the bundle loads.
if (process.argv.includes('--debug')) process.setSourceMapsEnabled(true);
const { runExecutable } = nodeModule.createRequire(BUNDLE)(BUNDLE) as { runExecutable?: unknown };
if (typeof runExecutable !== 'function')
  throw new Error(`no runExecutable in ${BUNDLE}: rebuild (npm run build)`);
// A failure inside is the CLI's to report; one that escapes it ends the process as a crash should.
void (runExecutable as () => Promise<void>)();
