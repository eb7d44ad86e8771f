/**
 * The one `import('node-llama-cpp')`. It lives in a module of its own because the executable is a
 * CommonJS bundle run through `vm.Script`, where `import()` has no loader and `require()` cannot
 * load node-llama-cpp (its graph has top-level await). esbuild leaves this file out of the bundle
 * (esbuild.config.mjs) and requires tsc's ES module of it instead, whose `import()` is a real one.
 */
import type * as NodeLlamaCpp from 'node-llama-cpp';

export function importNodeLlamaCpp(): Promise<typeof NodeLlamaCpp> {
  return import('node-llama-cpp');
}
