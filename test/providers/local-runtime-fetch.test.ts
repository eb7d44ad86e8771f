/**
 * The llama.cpp runtime fetched on first use (providers/local/runtime-fetch.ts) against a loopback
 * server answering as the npm registry does: packument, then tarball, checked against the pinned
 * integrity; a tampered tarball or a registry publishing another integrity is refused and nothing
 * of it kept; a second run finds every package and asks nothing (the registry is gone by then).
 */
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/core/errors.js';
import { ensureRuntimePackages, type RuntimeFetchProgress } from '../../providers/local/runtime-fetch.js';
import type { LockedPackage } from '../../providers/local/runtime-lock.js';
import { binaryPackages } from '../../providers/local/runtime-source.js';
import { startFakeNpmRegistry, type FakeNpmRegistry } from '../fakes/npm-registry-server.js';
import { unusedPort } from '../support/loopback.js';

let folder: string;
let registry: FakeNpmRegistry | undefined;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'mcphost-runtime-'));
});
afterEach(async () => {
  await registry?.close();
  registry = undefined;
  await rm(folder, { recursive: true, force: true });
});

const exists = (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false,
  );

function lockOf(
  fake: FakeNpmRegistry,
  rows: ReadonlyArray<[path: string, name: string, version: string]>,
): LockedPackage[] {
  return rows.map(([path, name, version]) => [path, version, fake.integrity.get(name)!] as const);
}

describe('the runtime fetched from the npm registry', () => {
  it('fetches each package (packument, then tarball), verified, into its place; a nested one too', async () => {
    registry = await startFakeNpmRegistry([
      { name: 'tiny-runtime', version: '1.0.0', files: { 'index.js': 'export const ok = true;\n' } },
      { name: '@node-llama-cpp/fake-x64', version: '3.21.1', files: { 'bins/x/llama-addon.node': 'binary' } },
      { name: 'nested-dependency', version: '2.0.0' },
    ]);
    const packages = lockOf(registry, [
      ['node_modules/tiny-runtime', 'tiny-runtime', '1.0.0'],
      ['node_modules/@node-llama-cpp/fake-x64', '@node-llama-cpp/fake-x64', '3.21.1'],
      ['node_modules/tiny-runtime/node_modules/nested-dependency', 'nested-dependency', '2.0.0'],
    ]);
    const progress: RuntimeFetchProgress[] = [];
    await ensureRuntimePackages({
      folder,
      packages,
      registry: registry.url,
      onProgress: (event) => progress.push(event),
    });
    expect(await readFile(join(folder, 'node_modules/tiny-runtime/index.js'), 'utf8')).toContain('ok = true');
    expect(
      await readFile(join(folder, 'node_modules/@node-llama-cpp/fake-x64/bins/x/llama-addon.node'), 'utf8'),
    ).toBe('binary');
    expect(
      JSON.parse(
        await readFile(
          join(folder, 'node_modules/tiny-runtime/node_modules/nested-dependency/package.json'),
          'utf8',
        ),
      ),
    ).toMatchObject({ version: '2.0.0' });
    expect(registry.requests).toContain('/@node-llama-cpp%2ffake-x64');
    expect(registry.requests).toContain('/@node-llama-cpp/fake-x64/-/fake-x64-3.21.1.tgz');
    expect(registry.requests).toHaveLength(6);
    expect(progress.map((event) => event.fileName).sort()).toEqual([
      '@node-llama-cpp/fake-x64@3.21.1',
      'nested-dependency@2.0.0',
      'tiny-runtime@1.0.0',
    ]);
    expect(progress.at(-1)?.downloadedBytes).toBeGreaterThan(0);
    expect(await readdir(join(folder, '.partial'))).toEqual([]);

    // Offline: the registry is gone, and the second run needs nothing from it.
    const seen = registry.requests.length;
    await registry.close();
    registry = undefined;
    await ensureRuntimePackages({ folder, packages, registry: `http://127.0.0.1:${await unusedPort()}` });
    expect(seen).toBe(6);
  });

  it('refuses a tampered tarball, keeps nothing of it, and says which package and why', async () => {
    registry = await startFakeNpmRegistry([
      { name: 'good-one', version: '1.0.0' },
      { name: 'bad-one', version: '1.0.0', tamper: true },
    ]);
    const packages = lockOf(registry, [
      ['node_modules/good-one', 'good-one', '1.0.0'],
      ['node_modules/bad-one', 'bad-one', '1.0.0'],
    ]);
    const failure = await ensureRuntimePackages({ folder, packages, registry: registry.url }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ProviderError);
    expect((failure as Error).message).toBe(
      `refused bad-one@1.0.0 from ${registry.url}/: its tarball's SHA-512 does not match its integrity; nothing was kept`,
    );
    expect(await exists(join(folder, 'node_modules/bad-one'))).toBe(false);
    expect(await readdir(join(folder, '.partial'))).toEqual([]);
  });

  it("refuses a package whose registry integrity is not mcphost's pin", async () => {
    registry = await startFakeNpmRegistry([{ name: 'pinned', version: '1.0.0' }]);
    const pin = 'sha512-' + Buffer.alloc(64, 7).toString('base64');
    const failure = await ensureRuntimePackages({
      folder,
      packages: [['node_modules/pinned', '1.0.0', pin]],
      registry: registry.url,
    }).catch((error: unknown) => error);
    expect((failure as Error).message).toContain(
      `refused pinned@1.0.0 from ${registry.url}/: the registry's integrity (sha512-`,
    );
    expect((failure as Error).message).toContain(`is not the one mcphost pins (${pin})`);
    expect(registry.requests).toEqual(['/pinned']);
    expect(await exists(join(folder, 'node_modules/pinned'))).toBe(false);
  });

  it('fails in one line naming the registry when nothing answers', async () => {
    const address = `http://127.0.0.1:${await unusedPort()}`;
    const failure = await ensureRuntimePackages({
      folder,
      packages: [['node_modules/x', '1.0.0', 'sha512-x']],
      registry: address,
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ProviderError);
    expect((failure as Error).message).toMatch(
      new RegExp(`^cannot fetch the llama.cpp runtime: ${address}/ is unreachable \\(.*ECONNREFUSED`),
    );
  });
});

describe('the binary packages for this machine', () => {
  it('are the CPU one without a GPU, and CUDA (with its -ext) or Vulkan with one', () => {
    if (process.platform !== 'linux' || process.arch !== 'x64') return;
    const names = (gpus: Parameters<typeof binaryPackages>[0]): string[] =>
      binaryPackages(gpus).map(([path]) => path.replace('node_modules/', ''));
    expect(names([])).toEqual(['@node-llama-cpp/linux-x64']);
    expect(names(['cuda'])).toEqual([
      '@node-llama-cpp/linux-x64',
      '@node-llama-cpp/linux-x64-cuda',
      '@node-llama-cpp/linux-x64-cuda-ext',
    ]);
    expect(names(['vulkan'])).toEqual(['@node-llama-cpp/linux-x64', '@node-llama-cpp/linux-x64-vulkan']);
  });
});
