/**
 * Runs the executable's bundle (one CommonJS file) with a V8 code cache: the bytecode of every
 * function the last run of the same kind compiled, kept in `$XDG_CACHE_HOME/mcphost/code-cache/`
 * (else `~/.cache/…`), so a run skips compiling what it runs.
 *
 * Why: compiling is most of what a short run does beyond Node's own start. Measured on the
 * development machine (interleaved, medians): a one-shot `-p` answer 188 → 122 ms, `--help` 76 →
 * 58 ms (docs/benchmarks.md, "The code cache"). Node 22's `module.enableCompileCache` does this
 * for ES modules, but only for the functions compiled while a module loads, not those compiled
 * later as the run goes: it bought ~4% there. Node 20 has nothing for ES modules; `vm.Script` takes
 * and makes a cache for a script, and `createCachedData()` after the run holds every function
 * compiled so far. So the executable is one CommonJS file and this is its loader: a few lines,
 * where a package such as v8-compile-cache would patch Node's module loader for every file and
 * break `import()`.
 *
 * A cache is per kind of run (`--help`, `-p`, the chat, `mcp …`…): each compiles different code,
 * and a cache made by one kind would hold little of what another runs. A run whose cache was
 * missing or refused by V8 writes one at exit, atomically; a run that used one writes nothing.
 * The file's name holds what V8 would check and more (Node's version, the bundle's size and time),
 * so a new build or Node gets a new file, and the old one of that kind is removed. Everything here
 * fails quietly (a read-only HOME runs as without a cache); `NODE_DEBUG=mcphost` tells what
 * happened.
 * `NODE_DISABLE_COMPILE_CACHE=1` (Node's own switch for its compile cache) turns it off.
 */
import { isAscii } from 'node:buffer';
import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire, Module } from 'node:module';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';
import { mcphostFolder } from '../util/user-folders.js';

/** What became of the cache for this run. */
export type CodeCacheState =
  | { readonly kind: 'off' }
  | { readonly kind: 'used'; readonly file: string }
  | { readonly kind: 'missing'; readonly file: string }
  | { readonly kind: 'refused'; readonly file: string };

/** What the bundle's run wrote at the end, or why not. */
export type CodeCacheSaving =
  | { readonly kind: 'not needed' }
  | { readonly kind: 'written'; readonly file: string; readonly bytes: number }
  | { readonly kind: 'failed'; readonly file: string; readonly reason: string };

export interface LoadedBundle {
  /** The bundle's `module.exports`. */
  readonly exports: unknown;
  readonly cache: CodeCacheState;
  /** Writes the cache when this run had none it could use; call it once, at the end of the run. */
  save(): CodeCacheSaving;
}

export interface CodeCacheOptions {
  /** The CommonJS bundle to run. */
  readonly bundlePath: string;
  /** The command line, without `node` and the script: it names the kind of run. */
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly homeDir: string;
}

const COMMANDS = new Set(['mcp', 'auth', 'completion', 'script']);

/**
 * Which cache a command line uses. A guess made before the real parse (yargs, inside the bundle):
 * a wrong one costs some speed, never a wrong result.
 */
export function runKindOf(argv: readonly string[]): string {
  if (argv.some((word) => word === '-h' || word === '--help' || word === '-v' || word === '--version')) {
    return 'help';
  }
  const first = argv[0];
  if (first !== undefined && COMMANDS.has(first)) return first;
  const prompting = argv.some((word) => word === '-p' || word === '--prompt' || word.startsWith('--prompt='));
  return prompting ? 'prompt' : 'chat';
}

/** `$XDG_CACHE_HOME/mcphost/code-cache`, else `~/.cache/mcphost/code-cache`. */
export function codeCacheFolder(homeDir: string, env: Readonly<Record<string, string | undefined>>): string {
  return join(mcphostFolder('cache', homeDir, env), 'code-cache');
}

export function loadThroughCodeCache(options: CodeCacheOptions): LoadedBundle {
  const descriptor = openSync(options.bundlePath, 'r');
  let source: string;
  let stamp: string;
  try {
    const stat = fstatSync(descriptor);
    stamp = `${stat.size}-${Math.trunc(stat.mtimeMs)}`;
    const bytes = readFileSync(descriptor);
    // The build keeps the bundle ASCII (esbuild.config.mjs), and ASCII read as latin1 is the same
    // text made without UTF-8 decoding: ~1.5 ms less for the 1.1 MB. Anything else is read as UTF-8.
    source = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
  } finally {
    closeSync(descriptor);
  }
  const off =
    options.env.NODE_DISABLE_COMPILE_CACHE !== undefined && options.env.NODE_DISABLE_COMPILE_CACHE !== '';
  const folder = codeCacheFolder(options.homeDir, options.env);
  const kind = runKindOf(options.argv);
  const file = join(folder, `${kind}-${process.version}-${process.arch}-${stamp}.bin`);
  const cachedData = off ? undefined : readIfThere(file);
  const script = new Script(Module.wrap(source), {
    filename: options.bundlePath,
    cachedData,
  });
  const cache: CodeCacheState = off
    ? { kind: 'off' }
    : cachedData === undefined
      ? { kind: 'missing', file }
      : script.cachedDataRejected === true
        ? { kind: 'refused', file }
        : { kind: 'used', file };

  const module = { exports: {} as unknown };
  const wrapper = script.runInThisContext() as (
    exports: unknown,
    require: NodeJS.Require,
    module: { exports: unknown },
    filename: string,
    dirname: string,
  ) => void;
  wrapper(
    module.exports,
    createRequire(options.bundlePath),
    module,
    options.bundlePath,
    dirname(options.bundlePath),
  );

  return {
    exports: module.exports,
    cache,
    save: () =>
      cache.kind === 'missing' || cache.kind === 'refused'
        ? write(file, kind, script)
        : { kind: 'not needed' },
  };
}

function readIfThere(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/**
 * Writes the cache (to a temporary file, then renamed) and removes older ones of the same kind.
 * Not `writeFileAtomic` (src/util/atomic-file.ts): this runs in an `exit` listener, where only
 * synchronous work happens, and a cache needs no fsync (a torn file is refused by V8 and rewritten).
 */
function write(file: string, kind: string, script: Script): CodeCacheSaving {
  const folder = dirname(file);
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    const data = script.createCachedData();
    mkdirSync(folder, { recursive: true });
    writeFileSync(temporary, data);
    renameSync(temporary, file);
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      if (path !== file && name.startsWith(`${kind}-`) && name.endsWith('.bin'))
        rmSync(path, { force: true });
    }
    return { kind: 'written', file, bytes: data.length };
  } catch (error) {
    removeQuietly(temporary);
    return { kind: 'failed', file, reason: error instanceof Error ? error.message : String(error) };
  }
}

function removeQuietly(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // Nothing was there to remove (its folder could not be made).
  }
}

/** The line for what the cache did (bin/mcphost.ts logs it under `NODE_DEBUG=mcphost`). */
export function describeCodeCache(cache: CodeCacheState, saving: CodeCacheSaving): string {
  const what =
    saving.kind === 'written'
      ? `written (${Math.round(saving.bytes / 1024)} KB)`
      : saving.kind === 'failed'
        ? `not written: ${saving.reason}`
        : cache.kind;
  return cache.kind === 'off'
    ? 'code cache: off (NODE_DISABLE_COMPILE_CACHE)'
    : `code cache: ${cache.kind === 'refused' ? 'refused by V8, ' : ''}${what} ${cache.file}`;
}
