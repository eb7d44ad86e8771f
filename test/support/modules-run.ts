/**
 * Which modules a run of the built CLI ran, whatever the executable's packaging (ES modules split
 * into chunks, or one CommonJS file compiled through `vm.Script`): V8's own record of the functions
 * that ran (`NODE_V8_COVERAGE`, written at exit, also on `process.exit`), not a module loader hook,
 * which sees neither a bundle's insides nor `require()`. A module ran if any function whose source
 * lies in it ran. A bundled file (ours, with a linked source map) stands for the sources its
 * functions map back to; a file of node_modules names its package. A module esbuild hoisted to a
 * bundle's top level runs no function of its own as it loads: only its functions that ran count.
 * Node's built-in modules come from `process.moduleLoadList` at exit (record-internal-modules.mjs).
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { Module } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SourceMapConsumer, type RawSourceMap } from 'source-map-js';
import { CLI, REPOSITORY, startCli, type CliRun } from './cli.js';

/** What CommonJS's wrapper puts before a module's text: `(function (exports, require, …) { `. */
const WRAPPER_PREFIX = Module.wrap('\0').split('\0')[0]!;

const RECORD_INTERNAL_MODULES = join(REPOSITORY, 'test/support/record-internal-modules.mjs');

export interface ModulesRunOptions {
  /** The executable to run with node; default `dist/bin/mcphost.js`. */
  readonly executable?: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly stdin?: string;
}

export interface ModulesRun {
  readonly run: CliRun;
  /** Packages (`zod`), our modules (`src/cli/chat/sanitize.js`) and `node-internal:NAME`s. */
  readonly modules: ReadonlySet<string>;
}

/**
 * A module's name: a package (`@modelcontextprotocol/client`), or one of ours (`src/cli/main.js`).
 * The innermost package: a package's own source map may name what it bundled (ajv, in the MCP SDK).
 */
export function moduleName(path: string): string {
  const dependency = /.*node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path);
  if (dependency !== null) return dependency[1]!;
  return relative(REPOSITORY, path)
    .replace(/^dist\//, '')
    .replace(/\.ts$/, '.js');
}

/** Runs `mcphost ...args` with `home` as HOME; returns the run and the modules it ran. */
export async function modulesRunBy(
  args: readonly string[],
  home: string,
  options: ModulesRunOptions = {},
): Promise<ModulesRun> {
  const coverage = await mkdtemp(join(tmpdir(), 'mcphost-coverage-'));
  try {
    const internalLog = join(coverage, 'internal-modules.txt');
    const running = startCli(args, home, {
      command: [process.execPath, '--import', RECORD_INTERNAL_MODULES, options.executable ?? CLI],
      env: { ...options.env, NODE_V8_COVERAGE: coverage, INTERNAL_MODULES_LOG: internalLog },
    });
    running.child.stdin.end(options.stdin ?? '');
    const run = await running.done;
    const modules = new Set(await modulesInCoverage(coverage, running.child.pid!));
    const internal = await readFile(internalLog, 'utf8');
    for (const line of internal.split('\n')) if (line !== '') modules.add(line);
    return { run, modules };
  } finally {
    // The CLI's servers inherit NODE_V8_COVERAGE and may still be writing their own files.
    await rm(coverage, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
  }
}

interface ScriptCoverage {
  readonly url: string;
  readonly functions: ReadonlyArray<{
    readonly ranges: ReadonlyArray<{ startOffset: number; endOffset: number; count: number }>;
  }>;
}

/** The modules of the scripts process `pid` ran (its coverage files; its servers write others). */
async function modulesInCoverage(folder: string, pid: number): Promise<string[]> {
  const files = (await readdir(folder)).filter((name) => name.startsWith(`coverage-${pid}-`));
  if (files.length === 0) throw new Error(`modulesRunBy: no V8 coverage of process ${pid} in ${folder}`);
  const names: string[] = [];
  for (const file of files) {
    const { result } = JSON.parse(await readFile(join(folder, file), 'utf8')) as { result: ScriptCoverage[] };
    for (const script of result) {
      // node: built-ins: see record-internal-modules.mjs (which is no module of the run either).
      if (!script.url.startsWith('file:') || script.url.endsWith(RECORD_INTERNAL_MODULES)) continue;
      names.push(...(await modulesOfScript(fileURLToPath(script.url), script)));
    }
  }
  return names;
}

/** Executed functions' ranges, in offsets of the script V8 compiled. */
function executedRanges(script: ScriptCoverage): Array<{ start: number; end: number }> {
  return script.functions.flatMap(({ ranges: [whole] }) =>
    whole !== undefined && whole.count > 0 ? [{ start: whole.startOffset, end: whole.endOffset }] : [],
  );
}

async function modulesOfScript(path: string, script: ScriptCoverage): Promise<string[]> {
  const executed = executedRanges(script);
  if (executed.length === 0) return [];
  const source = await readFile(path, 'utf8');
  const mapUrl = /\n\/\/# sourceMappingURL=(\S+)\s*$/.exec(source)?.[1];
  const bundled = mapUrl !== undefined && !path.includes('/node_modules/');
  if (!bundled) {
    if (relative(REPOSITORY, path).startsWith('dist/bin/')) {
      throw new Error(`modulesRunBy: ${path} is part of the executable but links no source map`);
    }
    return [moduleName(path)];
  }
  const sources = await SourceIndex.load(source, resolve(dirname(path), decodeURIComponent(mapUrl)));
  // The script V8 compiled may be the file inside CommonJS's wrapper (`vm.Script(Module.wrap(…))`).
  const scriptLength = Math.max(...executed.map((range) => range.end));
  const shift = scriptLength === source.length ? 0 : WRAPPER_PREFIX.length;
  if (scriptLength !== source.length && scriptLength !== Module.wrap(source).length) {
    throw new Error(`modulesRunBy: V8 ran ${path} as ${scriptLength} characters, not its ${source.length}`);
  }
  return executed.flatMap(({ start, end }) => {
    const [from, to] = [start - shift, end - shift];
    // The script itself, or the CommonJS wrapper around the whole file: no module's own function.
    if (from <= 0 && to >= source.length) return [];
    const original = sources.sourceWithin(from, to);
    return original === undefined ? [] : [moduleName(original)];
  });
}

/** A bundled file's source map as a list of (offset in the file, original source), by offset. */
class SourceIndex {
  readonly #offsets: number[];
  readonly #sources: string[];

  private constructor(offsets: number[], sources: string[]) {
    this.#offsets = offsets;
    this.#sources = sources;
  }

  static async load(source: string, mapPath: string): Promise<SourceIndex> {
    const raw = JSON.parse(await readFile(mapPath, 'utf8')) as RawSourceMap;
    const lineStarts = [0];
    for (let at = source.indexOf('\n'); at !== -1; at = source.indexOf('\n', at + 1)) lineStarts.push(at + 1);
    const offsets: number[] = [];
    const sources: string[] = [];
    new SourceMapConsumer(raw).eachMapping((mapping) => {
      if (mapping.source === null) return; // generated code of esbuild's own (its runtime helpers)
      offsets.push(lineStarts[mapping.generatedLine - 1]! + mapping.generatedColumn);
      sources.push(resolve(dirname(mapPath), mapping.source)); // (sourceRoot applied already)
    });
    return new SourceIndex(offsets, sources);
  }

  /**
   * The original source of the first mapped code at or after `start`, if before `end`: a function's
   * own first token (its name, `function`, its parameters). The nearest mapping before it could be
   * the previous module's last statement; none within it means code esbuild made (its helpers).
   */
  sourceWithin(start: number, end: number): string | undefined {
    let [low, high] = [0, this.#offsets.length];
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.#offsets[middle]! < start) low = middle + 1;
      else high = middle;
    }
    return low < this.#offsets.length && this.#offsets[low]! < end ? this.#sources[low] : undefined;
  }
}
