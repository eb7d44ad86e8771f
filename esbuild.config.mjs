/* global process, URL */
// Bundles the executable (`dist/bin/mcphost.js`, emitted by tsc) into a few files, after `tsc`.
//
// Why: Node 20's ESM loader pays about a millisecond per module to resolve, read, link and compile
// it, and a one-shot `mcphost -p` loaded ~260 of them: ~100 of our own, 95 of zod's (zod/mini is no
// smaller) and ~35 of yargs and its helpers. Bundled, that start costs about half as much (issue 17;
// `npm run bench` prints the ratios). Node 20 has no module compile cache (22.1 has), so this is the
// lever there is. zod is imported as `import * as z from 'zod'` everywhere (eslint holds that):
// esbuild then keeps only what is used, 210 KB, where `import { z }` kept all of zod, 782 KB with
// every locale, ~20 ms more to compile on every run.
//
// What is bundled: our own code, and the dependencies every run needs (BUNDLED, with what they
// import). The MCP client SDK is bundled too, though only runs with servers load it (it is a lazy
// chunk like any lazy import): unbundled, it loaded its own full copy of zod (~95 modules) beside the
// bundle's tree-shaken one; bundled, both share one. Measured with eight servers: host peak RSS
// 74.8 → 69.5 MB, CPU 550 → 430 ms. Everything else stays an ordinary import of node_modules,
// loaded only when a run needs it (the vendor SDKs, the server SDK of the built-in servers, the
// chat's markdown…). Lazy `import()`s become their own chunks (`dist/bin/chunks/`), so what is lazy
// stays lazy.
// The library (`dist/src/index.js`) is not bundled: a program that imports mcphost gets tsc's modules.
//
// `dist/bundle-meta.json` (esbuild's metafile; not packed) tells which sources each output holds:
// the cold-path tests read it to map what a run loaded back to our modules and packages.
import { build } from 'esbuild';
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** Packages bundled into the executable: on the path of every run (or every run with servers). */
const BUNDLED = new Set([
  'zod',
  'yargs',
  'yargs-parser',
  'p-retry',
  'jsonc-parser',
  '@modelcontextprotocol/client',
]);

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
function packageName(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** A bare import from our own code is external unless its package is in BUNDLED. */
const keepDependenciesExternal = {
  name: 'keep-dependencies-external',
  setup(bundler) {
    bundler.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:')) return { external: true };
      const fromOurCode = !args.importer.includes('/node_modules/');
      if (fromOurCode && !BUNDLED.has(packageName(args.path))) return { external: true };
      return undefined;
    });
  },
};

/**
 * `string-width` (ours, and yargs' through cliui and wrap-ansi) is measured through
 * src/cli/text-width.ts, which skips its costly start for plain text: see there.
 */
const measureTextCheaply = {
  name: 'measure-text-cheaply',
  setup(bundler) {
    bundler.onResolve({ filter: /^string-width$/ }, () => ({
      path: fileURLToPath(new URL('src/cli/text-width.ts', import.meta.url)),
    }));
  },
};

const result = await build({
  // From the TypeScript (tsc has checked and emitted it already): bundling tsc's output would
  // bundle an earlier bundle when run twice.
  entryPoints: ['bin/mcphost.ts'],
  tsconfig: 'tsconfig.build.json',
  outdir: 'dist/bin',
  chunkNames: 'chunks/[name]-[hash]',
  allowOverwrite: true,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  // ESM builds first: jsonc-parser's `main` is a UMD build whose dynamic require cannot be bundled.
  mainFields: ['module', 'main'],
  target: 'node20',
  // Error classes are told apart by name in places (and names show in --debug output): keep them.
  keepNames: true,
  // Minified: V8 reads, pre-parses and keeps in memory the source text of every module a run loads
  // (~900 KB on a one-shot, 225 KB for --help), and minified it is less than half that size.
  // Stack traces stay readable: the executable maps them through the source maps with --debug.
  minify: true,
  // Maps back to the TypeScript (through tsc's maps), as the unbundled modules have.
  sourcemap: 'linked',
  metafile: true,
  plugins: [measureTextCheaply, keepDependenciesExternal],
  logLevel: 'warning',
});
await writeFile('dist/bundle-meta.json', JSON.stringify(result.metafile));
if (result.errors.length > 0) process.exitCode = 1;
else
  process.stdout.write(`bundled dist/bin/mcphost.js: ${Object.keys(result.metafile.outputs).length} files\n`);
