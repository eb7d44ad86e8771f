/**
 * The executable asks Node ≥ 22.1 to keep the bundle's compiled code (`module.enableCompileCache`,
 * bin/mcphost.ts); Node 20 has no such function and runs through our own cache instead
 * (test/e2e/code-cache.test.ts). `npm run test:node24` runs the first case on Node 24; on Node 20
 * the second runs instead. Node's default folder is `$TMPDIR/node-compile-cache`;
 * NODE_COMPILE_CACHE is left unset, since it alone turns the cache on.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as nodeModule from 'node:module';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { runCli, temporaryHome, type TemporaryHome } from '../support/cli.js';

const hasCompileCache =
  typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === 'function';

let home: TemporaryHome;
let temporaryFolder: string;

beforeEach(async () => {
  home = await temporaryHome();
  temporaryFolder = await mkdtemp(join(tmpdir(), 'mcphost-compile-cache-'));
});

afterEach(async () => {
  await home.remove();
  await rm(temporaryFolder, { recursive: true, force: true });
});

/** Every file under a folder, recursively (Node keeps one folder per Node version). */
async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => entry.name);
}

it.runIf(hasCompileCache)(`keeps the bundle's compiled code on Node ${process.version}`, async () => {
  const env = { TMPDIR: temporaryFolder };
  const first = await runCli(['--version'], home.path, { env });
  expect(first.code).toBe(0);
  // The bundle's (the loader itself is read before it asks).
  expect((await filesUnder(join(temporaryFolder, 'node-compile-cache'))).length).toBe(1);
  const second = await runCli(['--version'], home.path, { env });
  expect(second.stdout).toBe(first.stdout);
});

it.runIf(!hasCompileCache)(
  `writes no Node compile cache on Node ${process.version} (it has none)`,
  async () => {
    const run = await runCli(['--version'], home.path, { env: { TMPDIR: temporaryFolder } });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(await filesUnder(temporaryFolder)).toEqual([]);
  },
);

it('NODE_DISABLE_COMPILE_CACHE=1 writes no cache', async () => {
  const run = await runCli(['--version'], home.path, {
    env: { TMPDIR: temporaryFolder, NODE_DISABLE_COMPILE_CACHE: '1' },
  });
  expect(run.code).toBe(0);
  expect(await filesUnder(temporaryFolder)).toEqual([]);
});
