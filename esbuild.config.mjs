/* global process, URL */
// Bundles the executable's body (src/cli/executable.ts) into one CommonJS file,
// `dist/bin/mcphost-bundle.cjs`, after `tsc`. `dist/bin/mcphost.js` (bin/mcphost.ts) requires it.
//
// Why bundled: Node 20's ESM loader pays about a millisecond per module to resolve, read, link and
// compile it, and a one-shot `mcphost -p` loaded ~260 of them: ~100 of our own, 95 of zod's (zod/mini
// is no smaller) and ~35 of yargs and its helpers. zod is imported as `import * as z from 'zod'`
// everywhere (eslint holds that): esbuild then keeps only what is used, 210 KB, where `import { z }`
// kept all of zod, 782 KB with every locale, ~20 ms more to compile on every run.
// Why one CommonJS file: `require` of one file starts nothing more (Node's ES module loader costs
// ~6 ms to start on Node 20), and Node ≥ 22.1 keeps its compiled code (bin/mcphost.ts). The file
// holds code a run may never evaluate (the chat, the MCP SDK…): what is lazy in the source stays
// lazy (esbuild wraps each lazily imported module in a function run on first import), and V8 only
// pre-parses what it does not run. Measured against the earlier ESM chunks (docs/benchmarks.md).
//
// What is bundled: our own code, and the dependencies every run needs (BUNDLED, with what they
// import). The MCP client SDK is bundled too, though only runs with servers evaluate it: unbundled,
// it loaded its own full copy of zod (~95 modules) beside the bundle's tree-shaken one; bundled, both
// share one. Everything else stays an ordinary `require` of node_modules, made only when a run needs
// it (the vendor SDKs, the server SDK of the built-in servers, the chat's markdown…).
// The library (`dist/src/index.js`) is not bundled: a program that imports mcphost gets tsc's modules.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** Packages bundled into the executable: on the path of every run (or every run with servers). */
const BUNDLED = new Set([
  'zod',
  'yargs',
  'yargs-parser',
  'p-retry',
  'jsonc-parser',
  '@modelcontextprotocol/client',
  // Small (one module), on every Ollama run, and bundled so its `Headers` can be shimmed (below).
  'ollama',
]);

/**
 * providers/local/binding.ts holds the one `import('node-llama-cpp')`, which must stay a real
 * `import()`: the bundle requires tsc's ES module of it (Node ≥ 20.19 requires ES modules without
 * top-level await) instead of bundling it, where `import()` would become `require()`.
 */
const localBinding = {
  name: 'local-binding-outside',
  setup(bundler) {
    bundler.onResolve({ filter: /^\.\/binding\.js$/ }, (args) =>
      /providers\/local\/(runtime|runtime-source|model-files)\.ts$/.test(args.importer)
        ? { external: true, path: '../providers/local/binding.js' }
        : undefined,
    );
  },
};

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
function packageName(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/**
 * Whether a package has a CommonJS entry (`type` not `module`, or a `require` export). One without
 * (chalk, wrap-ansi, yocto-spinner, marked, open) is bundled: the bundle would `require()` it as an
 * ES module, which Node ≥ 20.19 allows, but esbuild's interop then takes the module's namespace for
 * its default export (`yoctoSpinner` was `{ default: … }`, not the function).
 */
function hasCommonJsEntry(name) {
  let answer = commonJsEntries.get(name);
  if (answer === undefined) {
    const manifest = JSON.parse(readFileSync(`node_modules/${name}/package.json`, 'utf8'));
    answer = manifest.type !== 'module' || JSON.stringify(manifest.exports ?? {}).includes('"require"');
    commonJsEntries.set(name, answer);
  }
  return answer;
}
/** hasCommonJsEntry's answers: esbuild asks once per import, the manifest is read once. */
const commonJsEntries = new Map();

/**
 * ES-only packages left outside all the same: each is imported by a path few runs take, and bundled
 * it costs every run. ext-apps (MCP Apps, loaded when an app opens) imports `{ z }` from zod, the
 * namespace as a value, which puts all of zod into the bundle with every locale (+360 KB) and runs
 * the locales' module code at every start, apps or not (docs/benchmarks.md has the figures).
 * Outside, it is `require`d when an app opens (Node ≥ 20.19 requires ES modules), and it loads zod
 * and the MCP core from node_modules beside the bundle's copies; the export we use (AppBridge) is a
 * named one, so esbuild's default-export interop (hasCommonJsEntry's concern) does not arise.
 */
const UNBUNDLED = new Set(['@modelcontextprotocol/ext-apps']);

/** A bare import from our own code is external unless its package is in BUNDLED or ES-only (and not UNBUNDLED). */
const keepDependenciesExternal = {
  name: 'keep-dependencies-external',
  setup(bundler) {
    bundler.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:')) return { external: true };
      const fromOurCode = !args.importer.includes('/node_modules/');
      const name = packageName(args.path);
      if (fromOurCode && !BUNDLED.has(name) && (hasCommonJsEntry(name) || UNBUNDLED.has(name))) {
        return { external: true };
      }
      return undefined;
    });
  },
};

/**
 * The `ollama` client (bundled, for this) touches two globals that load undici, Node's fetch: its
 * `import 'whatwg-fetch'` (a browser polyfill that reads the global `fetch` as it loads) and its
 * `headers instanceof Headers` on every request. In the executable's bundle its module gets
 * src/cli/ollama-client-shims.ts for both. The one module replacement kept on the start path:
 * docs/design.md ("The start path") has why, and its figures.
 */
const OLLAMA_CLIENT = /\/node_modules\/ollama\/dist\/browser\.mjs$/;
const OLLAMA_SHIMS = fileURLToPath(new URL('src/cli/ollama-client-shims.ts', import.meta.url));
const shimOllamaClient = {
  name: 'shim-ollama-client',
  setup(bundler) {
    bundler.onResolve({ filter: /^whatwg-fetch$/ }, (args) =>
      /\/node_modules\/ollama\//.test(args.importer) ? { path: OLLAMA_SHIMS } : undefined,
    );
    bundler.onLoad({ filter: OLLAMA_CLIENT }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      return {
        contents: `import { Headers } from ${JSON.stringify(OLLAMA_SHIMS)};\n${source}`,
        loader: 'js',
      };
    });
  },
};

/** Settings both files share: CommonJS for Node 20, `import.meta.url` kept meaning the file. */
const COMMON_JS = {
  tsconfig: 'tsconfig.build.json',
  bundle: true,
  allowOverwrite: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  define: { 'import.meta.url': '__importMetaUrl' },
  banner: { js: 'var __importMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
  logLevel: 'warning',
};

// The executable itself (`bin`), a few lines that load the bundle. It overwrites tsc's ES module of
// bin/mcphost.ts; `dist/bin/package.json` makes `.js` there CommonJS, so the `bin` keeps its name.
const loader = await build({
  ...COMMON_JS,
  entryPoints: ['bin/mcphost.ts'],
  outfile: 'dist/bin/mcphost.js',
  sourcemap: 'linked',
});
await writeFile('dist/bin/package.json', `${JSON.stringify({ type: 'commonjs' })}\n`);

const result = await build({
  ...COMMON_JS,
  // From the TypeScript (tsc has checked and emitted it already): bundling tsc's output would
  // bundle an earlier bundle when run twice.
  entryPoints: ['src/cli/executable.ts'],
  outfile: 'dist/bin/mcphost-bundle.cjs',
  // ESM builds first: jsonc-parser's `main` is a UMD build whose dynamic require cannot be bundled.
  mainFields: ['module', 'main'],
  // `import()` of a package left outside becomes `require()`: Node ≥ 20.19 (our floor) requires ES
  // modules too, and a run that loads a vendor SDK then does not start the ES module loader as well.
  supported: { 'dynamic-import': false },
  // Error classes are told apart by name in places (and names show in --debug output): keep them.
  keepNames: true,
  // Minified: V8 reads, pre-parses and keeps in memory the source text of the bundle, and minified
  // it is less than half that size. Stack traces stay readable: the executable maps them through
  // the source map with --debug.
  minify: true,
  // Maps back to the TypeScript (through tsc's maps), as the unbundled modules have.
  sourcemap: 'linked',
  plugins: [localBinding, shimOllamaClient, keepDependenciesExternal],
});
if (result.errors.length + loader.errors.length > 0) process.exitCode = 1;
else process.stdout.write('bundled dist/bin/mcphost-bundle.cjs\n');
