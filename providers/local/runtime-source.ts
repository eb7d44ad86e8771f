/**
 * Where node-llama-cpp comes from, and which prebuilt llama.cpp binary runs:
 *
 * 1. node-llama-cpp installed beside mcphost (a source checkout, or a user who installed it, e.g.
 *    for a GPU of their own): used as it is;
 * 2. else the runtime in mcphost's cache (`<cache>/runtime/node-llama-cpp-VERSION`), fetched from
 *    the npm registry on first use (runtime-fetch.ts): node-llama-cpp, its packages, the CPU binary
 *    for this platform, and the CUDA or Vulkan binary when node-llama-cpp finds that GPU here.
 *
 * Why a cache and not the install: see runtime-fetch.ts (680 of 891 MB were GPU binaries).
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as NodeLlamaCpp from 'node-llama-cpp';
import { importNodeLlamaCpp, importNodeLlamaCppFrom, isNodeLlamaCppInstalled } from './binding.js';
import {
  ensureRuntimePackages,
  missingPackages,
  npmRegistry,
  packageName,
  type EnsureRuntimeOptions,
  type RuntimeFetchProgress,
} from './runtime-fetch.js';
import { RUNTIME_PACKAGES, RUNTIME_PLATFORM_PACKAGES, type LockedPackage } from './runtime-lock.js';
import { mcphostFolder } from '../../src/util/user-folders.js';
import { definedProperties } from '../../src/util/defined-properties.js';

type Binding = typeof NodeLlamaCpp;

/** The GPU kinds a prebuilt binary package exists for. */
export type RuntimeGpu = 'cuda' | 'vulkan' | 'metal';

/** Where the binding was found, for `mcphost models` to say. */
export type RuntimeSource =
  | { readonly kind: 'installed' }
  | { readonly kind: 'fetched'; readonly folder: string; readonly gpus: readonly RuntimeGpu[] };

/** Options of {@link ensureRuntime} and {@link loadRuntime}. */
export interface PrepareRuntimeOptions {
  readonly homeDir: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly fetch?: typeof fetch;
  readonly onProgress?: (progress: RuntimeFetchProgress) => void;
  readonly signal?: AbortSignal;
  /** Try node-llama-cpp installed beside mcphost first (default true; tests of the fetch say false). */
  readonly preferInstalled?: boolean;
}

/** The cache folder of the fetched runtime. */
export function runtimeFolder(homeDir: string, env: Readonly<Record<string, string | undefined>>): string {
  return join(mcphostFolder('cache', homeDir, env), 'runtime', `node-llama-cpp-${nodeLlamaCppVersion()}`);
}

function nodeLlamaCppVersion(): string {
  return RUNTIME_PACKAGES.find(([path]) => path === 'node_modules/node-llama-cpp')?.[1] ?? 'unknown';
}

/** node-llama-cpp's name for the platform in its binary packages (`linux`, `mac`, `win`). */
function platformName(): string {
  return process.platform === 'darwin' ? 'mac' : process.platform === 'win32' ? 'win' : process.platform;
}

/** node-llama-cpp's name for the architecture (`arm` is `armv7l`). */
function archName(): string {
  return process.arch === 'arm' ? 'armv7l' : process.arch;
}

/**
 * The binary packages for this machine: the CPU one (`linux-x64`; on a Mac with Apple silicon the
 * Metal one, which is its only build), and for each GPU given, its package (CUDA's with its
 * `-ext` companion) where one exists for the platform.
 */
export function binaryPackages(gpus: readonly RuntimeGpu[]): LockedPackage[] {
  const base = `@node-llama-cpp/${platformName()}-${archName()}`;
  const wanted = [platformName() === 'mac' && archName() === 'arm64' ? `${base}-metal` : base];
  for (const gpu of gpus) {
    if (gpu === 'cuda') wanted.push(`${base}-cuda`, `${base}-cuda-ext`);
    if (gpu === 'vulkan') wanted.push(`${base}-vulkan`);
  }
  return RUNTIME_PLATFORM_PACKAGES.filter(([path]) => wanted.includes(packageName(path)));
}

let source: RuntimeSource | undefined;
let loaded: Promise<Binding> | undefined;

/** How the binding was found in this process, once it has been loaded. */
export function runtimeSource(): RuntimeSource | undefined {
  return source;
}

function fetchOptions(options: PrepareRuntimeOptions): Omit<EnsureRuntimeOptions, 'packages'> {
  return {
    folder: runtimeFolder(options.homeDir, options.env),
    registry: npmRegistry(options.env),
    ...definedProperties({ fetch: options.fetch, onProgress: options.onProgress, signal: options.signal }),
  };
}

/**
 * Makes sure a runtime is there before the first answer, fetching it (with progress) when neither
 * node-llama-cpp is installed nor the cache holds it. Loads no module unless it fetched: creating a
 * provider stays cheap, and the binding loads on the first call ({@link loadRuntime}).
 */
export async function ensureRuntime(options: PrepareRuntimeOptions): Promise<void> {
  if (options.preferInstalled !== false && isNodeLlamaCppInstalled()) return;
  const fetching = fetchOptions(options);
  const missing = await missingPackages(fetching.folder, [...RUNTIME_PACKAGES, ...binaryPackages([])]);
  if (missing.length === 0) return;
  // The first run: the GPU binaries are chosen with node-llama-cpp's own look at the machine.
  await loadRuntime(options);
}

/**
 * The binding: node-llama-cpp installed beside mcphost, else the runtime in the cache (what is
 * missing fetched first). Once per process; a failure is not kept.
 */
export function loadRuntime(options: PrepareRuntimeOptions): Promise<Binding> {
  loaded ??= load(options);
  loaded.catch(() => {
    loaded = undefined;
  });
  return loaded;
}

async function load(options: PrepareRuntimeOptions): Promise<Binding> {
  if (options.preferInstalled !== false && isNodeLlamaCppInstalled()) {
    const binding = await importNodeLlamaCpp();
    source = { kind: 'installed' };
    return binding;
  }
  const fetching = fetchOptions(options);
  const cpuFirst = [...RUNTIME_PACKAGES, ...binaryPackages([])];
  const firstRun = (await missingPackages(fetching.folder, cpuFirst)).length > 0;
  await ensureRuntimePackages({ ...fetching, packages: cpuFirst });
  const entry = join(fetching.folder, 'node_modules', 'node-llama-cpp', 'dist', 'index.js');
  const binding = await importNodeLlamaCppFrom(pathToFileURL(entry).href);
  // node-llama-cpp's own look at the machine (CUDA and Vulkan libraries, drivers), not ours.
  const gpus = (await binding.getLlamaGpuTypes('supported')).filter(
    (gpu): gpu is RuntimeGpu => gpu === 'cuda' || gpu === 'vulkan',
  );
  // Fetched on the first run only: a later run uses what is there and asks the network nothing.
  if (firstRun) await ensureRuntimePackages({ ...fetching, packages: binaryPackages(gpus) });
  source = { kind: 'fetched', folder: fetching.folder, gpus };
  return binding;
}

/**
 * One line for `mcphost models list`: which llama.cpp runtime runs the local models, and why.
 * Loads no module: what is installed or fetched says it.
 */
export async function describeRuntime(
  homeDir: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<string> {
  if (isNodeLlamaCppInstalled()) {
    return 'llama.cpp runtime: node-llama-cpp installed beside mcphost; it runs on the GPU whose prebuilt binary is installed and loads (CUDA, Vulkan, Metal), else on the CPU';
  }
  const folder = runtimeFolder(homeDir, env);
  const candidates = binaryPackages(['cuda', 'vulkan']);
  const missing = new Set((await missingPackages(folder, candidates)).map(([path]) => path));
  const present = candidates.filter(([path]) => !missing.has(path)).map(([path]) => packageName(path));
  if (present.length === 0 || (await missingPackages(folder, RUNTIME_PACKAGES)).length > 0) {
    return `llama.cpp runtime: not fetched yet; the first local run fetches node-llama-cpp ${nodeLlamaCppVersion()} and the binary for this machine from ${npmRegistry(env)} (~30 MB without a GPU)`;
  }
  const gpus = [
    ...(present.some((name) => name.endsWith('-cuda')) ? ['CUDA'] : []),
    ...(present.some((name) => name.endsWith('-vulkan')) ? ['Vulkan'] : []),
  ];
  const why =
    gpus.length === 0
      ? 'on the CPU: node-llama-cpp found no CUDA or Vulkan GPU here when the runtime was fetched'
      : `on ${gpus.join(' or ')} (found here when the runtime was fetched), else on the CPU`;
  return `llama.cpp runtime: ${present.join(', ')} in ${folder}; runs ${why}`;
}
