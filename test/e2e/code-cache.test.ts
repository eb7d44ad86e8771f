/**
 * The executable's own code cache (src/cli/code-cache.ts), used on Node < 22.1 only: these run on
 * Node 20 (`npm test`); on Node 24 (`npm run test:node24`) the last case checks that it is not used
 * there (test/e2e/compile-cache.test.ts checks Node's cache).
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import * as nodeModule from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { textReply } from '../fakes/ollama-server.js';
import { runCli } from '../support/cli.js';
import { useCliFixture } from '../support/cli-fixture.js';

const nodeHasCompileCache =
  typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === 'function';
/** Node's switch for the loader's line about the cache (`MCPHOST <pid>: code cache: …`). */
const told = { NODE_DEBUG: 'mcphost' };

describe.skipIf(nodeHasCompileCache)(`the code cache on Node ${process.version}`, () => {
  const fixture = useCliFixture();
  const cacheFolder = (): string => join(fixture.home.path, '.cache', 'mcphost', 'code-cache');

  it('a second --help uses the cache the first wrote, and prints the same', async () => {
    const first = await runCli(['--help'], fixture.home.path, { env: told });
    const second = await runCli(['--help'], fixture.home.path, { env: told });
    expect(first.code).toBe(0);
    expect(second.code).toBe(0);
    expect(first.stderr).toMatch(
      /^MCPHOST \d+: code cache: missing, written \(\d+ KB\) .*\/code-cache\/help-/m,
    );
    expect(second.stderr).toMatch(/^MCPHOST \d+: code cache: used .*\/code-cache\/help-/m);
    expect(second.stdout).toBe(first.stdout);
    expect(first.stdout).toContain('mcphost');
  });

  it('a -p answer is the same with its cache as without, and has a cache of its own kind', async () => {
    const ollama = await fixture.startModel([textReply('first answer'), textReply('second answer')]);
    const args = ['-p', 'hi', '-m', 'ollama:qwen2.5:3b', '--provider-url', ollama.url];
    const first = await runCli(args, fixture.home.path, { env: told });
    const second = await runCli(args, fixture.home.path, { env: told });
    expect(first.stdout).toBe('first answer\n');
    expect(second.stdout).toBe('second answer\n');
    expect(first.stderr).toMatch(/code cache: missing, written .*\/prompt-/);
    expect(second.stderr).toMatch(/code cache: used .*\/prompt-/);
    await runCli(['--version'], fixture.home.path);
    expect((await readdir(cacheFolder())).map((name) => name.split('-')[0]).sort()).toEqual([
      'help',
      'prompt',
    ]);
  });

  it('a run stopped by a usage error writes no cache; the next run of its kind does', async () => {
    // The cache is written only when missing: one written by a run that stopped at its flags would
    // hold little of its kind's code for every later run.
    const stopped = await runCli(['mcp', 'list', '--colr'], fixture.home.path, { env: told });
    expect(stopped.code).toBe(2);
    expect(stopped.stderr).toMatch(/code cache: missing, not written: the run ended with a usage error/);
    await expect(readdir(join(fixture.home.path, '.cache'))).rejects.toThrow(/ENOENT/);
    const listed = await runCli(['mcp', 'list'], fixture.home.path, { env: told });
    expect(listed.code).toBe(0);
    expect(listed.stderr).toMatch(/code cache: missing, written \(\d+ KB\) .*\/code-cache\/mcp-/);
  });

  it("removes an older build's cache of the same kind only", async () => {
    await runCli(['--version'], fixture.home.path);
    const [current] = await readdir(cacheFolder());
    const older = ['help-v20.0.0-x64-1-1.bin', 'prompt-v20.0.0-x64-1-1.bin'];
    for (const name of older) await writeFile(join(cacheFolder(), name), 'old');
    // A damaged cache of this build: V8 refuses it, the run goes on and writes it again.
    await writeFile(join(cacheFolder(), current!), 'damaged');
    const run = await runCli(['--version'], fixture.home.path, { env: told });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/code cache: refused by V8, written/);
    expect((await readdir(cacheFolder())).sort()).toEqual([current, older[1]].sort());
    expect((await readFile(join(cacheFolder(), current!))).length).toBeGreaterThan(1000);
  });

  it('runs as well where the cache cannot be written, and says so only when asked', async () => {
    const notAFolder = join(fixture.home.path, 'not-a-folder');
    await writeFile(notAFolder, '');
    const quiet = await runCli(['--help'], fixture.home.path, { env: { XDG_CACHE_HOME: notAFolder } });
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe('');
    const asked = await runCli(['--help'], fixture.home.path, {
      env: { XDG_CACHE_HOME: notAFolder, ...told },
    });
    expect(asked.stdout).toBe(quiet.stdout);
    expect(asked.stderr).toMatch(/code cache: missing, not written: ENOTDIR/);
  });

  it('NODE_DISABLE_COMPILE_CACHE=1 turns it off', async () => {
    const run = await runCli(['--version'], fixture.home.path, {
      env: { NODE_DISABLE_COMPILE_CACHE: '1', ...told },
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/code cache: off/);
    await expect(readdir(join(fixture.home.path, '.cache'))).rejects.toThrow(/ENOENT/);
  });

  it('--debug runs without it, so that stack traces name our TypeScript', async () => {
    await fixture.home.writeConfig({ mcpServers: { a: { command: 5 } } });
    const run = await runCli(['-p', 'hi', '--debug'], fixture.home.path);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/at \w+ \(.*\/config\/problems\.ts:\d+:\d+\)/);
    await expect(readdir(join(fixture.home.path, '.cache'))).rejects.toThrow(/ENOENT/);
  });
});

describe.runIf(nodeHasCompileCache)(`Node ${process.version} has its own compile cache`, () => {
  const fixture = useCliFixture();

  it('and the executable writes none of ours', async () => {
    const run = await runCli(['--help'], fixture.home.path, { env: told });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    await expect(readdir(join(fixture.home.path, '.cache'))).rejects.toThrow(/ENOENT/);
  });
});
