/**
 * Node 20 only (bin/mcphost.ts): runs the executable's bundle through a V8 code cache, the bytecode
 * of every function the last run of the same kind compiled, kept in
 * `$XDG_CACHE_HOME/mcphost/code-cache/` (else `~/.cache/…`). Node ≥ 22.1 has the standard
 * `module.enableCompileCache()` instead, and this file is not used there.
 *
 * Why it is kept on Node 20: compiling the 1.1 MB bundle is the largest cost of a short run there,
 * and without a cache the one-shot misses issue 27's target (2.5 × the exchange floor) by far
 * (docs/design.md, "The start path", has the figures). Node 20 caches compiled code only for a
 * script (`vm.Script`), not through its module loader, so this is a loader: a few lines, where a
 * package such as v8-compile-cache patches Node's module loader for every file.
 *
 * One cache per kind of run (`--help`, `-p`, the chat, `mcp …`): `createCachedData()` after the run
 * holds the functions that run compiled, and each kind runs different code. A run whose cache was
 * missing or refused by V8 writes one at exit, unless a usage error stopped it early; the file's
 * name holds Node's version and the bundle's size and time, so a new build or Node starts a new one
 * and the old one of that kind is removed. Everything fails quietly (a read-only HOME runs without a cache); `NODE_DEBUG=mcphost`
 * says what happened; `NODE_DISABLE_COMPILE_CACHE=1` (Node's switch for its own cache) turns it off.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import { dirname, join } from 'node:path';
import { debuglog } from 'node:util';
import { Script } from 'node:vm';
import { mcphostFolder } from '../util/user-folders.js';

export interface CodeCacheOptions {
  /** The CommonJS bundle to run. */
  readonly bundlePath: string;
  /** The command line, without `node` and the script: it names the kind of run. */
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly homeDir: string;
}

const COMMANDS = new Set(['mcp', 'auth', 'completion', 'script', 'models', 'batch', 'jobs', 'worker']);

/**
 * ExitCode.usage (src/cli/exit-codes.ts, not imported: this file is the loader's, outside the
 * bundle): a bad flag or config file, the run stopped before its work.
 */
const USAGE_EXIT_CODE = 2;

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

/** Runs the bundle and returns its `module.exports`. */
export function requireThroughCodeCache(options: CodeCacheOptions): unknown {
  const log = debuglog('mcphost');
  const { bundlePath, env } = options;
  if (env.NODE_DISABLE_COMPILE_CACHE !== undefined && env.NODE_DISABLE_COMPILE_CACHE !== '') {
    log('code cache: off (NODE_DISABLE_COMPILE_CACHE)');
    return createRequire(bundlePath)(bundlePath);
  }
  const kind = runKindOf(options.argv);
  const stat = statSync(bundlePath);
  const file = join(
    mcphostFolder('cache', options.homeDir, env),
    'code-cache',
    `${kind}-${process.version}-${process.arch}-${stat.size}-${Math.trunc(stat.mtimeMs)}.bin`,
  );
  const cachedData = readIfThere(file);
  const script = new Script(Module.wrap(readFileSync(bundlePath, 'utf8')), {
    filename: bundlePath,
    ...(cachedData === undefined ? {} : { cachedData }),
  });
  if (cachedData !== undefined && script.cachedDataRejected !== true) {
    log(`code cache: used ${file}`);
  } else {
    process.once('exit', (code) => {
      const why = cachedData === undefined ? 'missing' : 'refused by V8';
      // A run stopped by a bad flag or config compiled little of its kind's code: its cache would
      // stay that thin for every later run (a cache is only written when missing or refused), so
      // the next run writes it instead.
      if (code === USAGE_EXIT_CODE) log(`code cache: ${why}, not written: the run ended with a usage error`);
      else log(`code cache: ${why}, ${write(file, kind, script)}`);
    });
  }
  const module = { exports: {} as unknown };
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper(module.exports, createRequire(bundlePath), module, bundlePath, dirname(bundlePath));
  return module.exports;
}

function readIfThere(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/**
 * Writes the cache (a temporary file, then renamed) and removes older ones of the same kind; says
 * what happened. Not `writeFileAtomic` (src/util/atomic-file.ts): this runs in an `exit` listener,
 * where only synchronous work happens, and a torn cache needs no fsync (V8 refuses it, it is rewritten).
 */
function write(file: string, kind: string, script: Script): string {
  const folder = dirname(file);
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    const data = script.createCachedData();
    mkdirSync(folder, { recursive: true });
    writeFileSync(temporary, data);
    renameSync(temporary, file);
    for (const name of readdirSync(folder)) {
      if (name !== file.slice(folder.length + 1) && name.startsWith(`${kind}-`) && name.endsWith('.bin'))
        rmSync(join(folder, name), { force: true });
    }
    return `written (${Math.round(data.length / 1024)} KB) ${file}`;
  } catch (error) {
    try {
      rmSync(temporary, { force: true });
    } catch {
      // Its folder could not be made: nothing was written.
    }
    return `not written: ${error instanceof Error ? error.message : String(error)}`;
  }
}
