/**
 * The llama.cpp runtime (node-llama-cpp, the packages it needs, and the prebuilt binary for this
 * machine), fetched from the npm registry on first use instead of installed with mcphost.
 *
 * Why: as a dependency, node-llama-cpp brings the prebuilt binaries of every GPU of the platform
 * (npm installs optional dependencies by os and cpu, not by hardware, and a package cannot stop
 * that for its consumers: `overrides` apply to the root project only): 680 MB of an 891 MB global
 * install on a Linux x64 machine without a GPU. Fetched here, only what runs on this machine comes.
 *
 * - From the registry npm uses (`npm_config_registry`, else registry.npmjs.org), as npm does:
 *   the package's metadata (the abbreviated packument) gives the tarball's address and integrity.
 * - Verified: that integrity must be the one pinned in runtime-lock.ts, and the tarball's SHA-512
 *   must match it; a package that fails is not kept, and the error says which and why.
 * - Kept: each package is unpacked beside its place and renamed into it only when whole, so a
 *   second run finds every package and asks the network nothing (it works offline).
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { extract } from 'tar';
import { AbortedError, ProviderError } from '../../src/core/errors.js';
import type { LockedPackage } from './runtime-lock.js';

/** The registry asked when npm's own setting is not in the environment. */
export const DEFAULT_NPM_REGISTRY = 'https://registry.npmjs.org/';

/** How many packages are fetched at once. */
const PARALLEL_FETCHES = 8;

/** Progress of a runtime fetch, in the shape the model downloads report (model-files.ts). */
export interface RuntimeFetchProgress {
  readonly model: string;
  readonly fileName: string;
  readonly downloadedBytes: number;
  readonly totalBytes?: number;
}

/** Options of {@link ensureRuntimePackages}. */
export interface EnsureRuntimeOptions {
  /** The folder that holds `node_modules` (created if missing). */
  readonly folder: string;
  /** The packages that must be there; the missing ones are fetched. */
  readonly packages: readonly LockedPackage[];
  /** The registry's base URL. */
  readonly registry: string;
  readonly fetch?: typeof fetch;
  readonly onProgress?: (progress: RuntimeFetchProgress) => void;
  readonly signal?: AbortSignal;
}

/** The package's name, from its place under node_modules. */
export function packageName(path: string): string {
  return path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
}

/** The registry from the environment (npm's setting), else {@link DEFAULT_NPM_REGISTRY}. */
export function npmRegistry(env: Readonly<Record<string, string | undefined>>): string {
  const configured = env.npm_config_registry ?? env.NPM_CONFIG_REGISTRY;
  return configured === undefined || configured.trim() === '' ? DEFAULT_NPM_REGISTRY : configured.trim();
}

/** The packages of `packages` not yet in `folder` (a package is there when its package.json is). */
export async function missingPackages(
  folder: string,
  packages: readonly LockedPackage[],
): Promise<LockedPackage[]> {
  const present = await Promise.all(
    packages.map(([path]) =>
      stat(join(folder, path, 'package.json')).then(
        () => true,
        () => false,
      ),
    ),
  );
  return packages.filter((_, index) => present[index] !== true);
}

/**
 * Fetches the packages missing from `folder`; none missing: no request at all.
 * @throws ProviderError naming the package and the registry; AbortedError when `signal` stops it.
 */
export async function ensureRuntimePackages(options: EnsureRuntimeOptions): Promise<void> {
  const missing = await missingPackages(options.folder, options.packages);
  if (missing.length === 0) return;
  const fetchFunction = options.fetch ?? fetch;
  const staging = join(options.folder, '.partial', randomUUID());
  await mkdir(staging, { recursive: true });
  let downloadedBytes = 0;
  const report = (fileName: string): void =>
    options.onProgress?.({ model: 'llama.cpp runtime', fileName, downloadedBytes });
  try {
    const unpacked = new Map<string, string>();
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let locked = missing[next++]; locked !== undefined; locked = missing[next++]) {
        const bytes = await fetchVerified(locked, options.registry, fetchFunction, options.signal);
        downloadedBytes += bytes.byteLength;
        report(`${packageName(locked[0])}@${locked[1]}`);
        const into = join(staging, String(unpacked.size));
        unpacked.set(locked[0], into);
        await mkdir(into, { recursive: true });
        await pipeline(Readable.from([bytes]), extract({ cwd: into, strip: 1 }));
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL_FETCHES, missing.length) }, worker));
    // Parents before the packages nested in them (node_modules/a before node_modules/a/node_modules/b).
    const ordered = [...unpacked].sort(([a], [b]) => a.split('/').length - b.split('/').length);
    for (const [path, from] of ordered) {
      const target = join(options.folder, path);
      await mkdir(dirname(target), { recursive: true });
      await rename(from, target);
    }
  } catch (error) {
    if (options.signal?.aborted === true) throw new AbortedError('runtime download stopped');
    throw error;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** The package's tarball, checked against its pinned integrity. */
async function fetchVerified(
  locked: LockedPackage,
  registry: string,
  fetchFunction: typeof fetch,
  signal: AbortSignal | undefined,
): Promise<Buffer> {
  const [path, version, integrity] = locked;
  const name = packageName(path);
  const base = registry.endsWith('/') ? registry : `${registry}/`;
  const where = `${name}@${version} from ${base}`;
  const get = async (url: string, accept: string): Promise<Response> => {
    let response: Response;
    try {
      response = await fetchFunction(url, { headers: { accept }, ...(signal ? { signal } : {}) });
    } catch (error) {
      if (signal?.aborted === true) throw error;
      const cause = (error as Error & { cause?: Error }).cause?.message ?? (error as Error).message;
      throw new ProviderError(
        'local',
        `cannot fetch the llama.cpp runtime: ${base} is unreachable (${cause})`,
        {
          retryable: false,
          cause: error,
        },
      );
    }
    if (!response.ok) {
      throw new ProviderError('local', `cannot fetch ${where}: ${url} answered HTTP ${response.status}`, {
        retryable: false,
      });
    }
    return response;
  };
  // The abbreviated metadata npm itself asks for: the tarball's address (a mirror may keep them
  // elsewhere) and the integrity the registry publishes for this version.
  const packument = (await (
    await get(`${base}${name.replace('/', '%2f')}`, 'application/vnd.npm.install-v1+json')
  ).json()) as { versions?: Record<string, { dist?: { tarball?: string; integrity?: string } }> };
  const dist = packument.versions?.[version]?.dist;
  if (dist?.tarball === undefined) {
    throw new ProviderError('local', `cannot fetch ${where}: the registry has no version ${version}`, {
      retryable: false,
    });
  }
  if (dist.integrity !== integrity) {
    throw new ProviderError(
      'local',
      `refused ${where}: the registry's integrity (${dist.integrity ?? 'none'}) is not the one mcphost pins (${integrity})`,
      { retryable: false },
    );
  }
  const bytes = Buffer.from(await (await get(dist.tarball, 'application/octet-stream')).arrayBuffer());
  const digest = `sha512-${createHash('sha512').update(bytes).digest('base64')}`;
  if (digest !== integrity) {
    throw new ProviderError(
      'local',
      `refused ${where}: its tarball's SHA-512 does not match its integrity; nothing was kept`,
      { retryable: false },
    );
  }
  return bytes;
}
