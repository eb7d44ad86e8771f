/**
 * The executable's code cache (src/cli/code-cache.ts). Each load runs in a process of its own, as
 * each run of mcphost does: inside one process V8's own compilation cache would answer a second
 * load before the cache file is even looked at, and hide whether it was used.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { textReply } from '../fakes/ollama-server.js';
import { REPOSITORY, runCli } from '../support/cli.js';
import { useCliFixture } from '../support/cli-fixture.js';

const CODE_CACHE = pathToFileURL(join(REPOSITORY, 'dist/src/cli/code-cache.js')).href;

/** What one load in a fresh process saw and did. */
interface ProbeResult {
  readonly cache: { kind: string; file?: string };
  readonly answer: number;
  readonly folder: string;
  readonly quote: string;
  readonly saving: { kind: string; reason?: string };
}

describe('the code cache, load by load', () => {
  let folder: string;
  let home: string;
  let bundlePath: string;
  let probePath: string;

  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'mcphost-code-cache-'));
    home = join(folder, 'home');
    await mkdir(home);
    bundlePath = join(folder, 'bundle.cjs');
    // A bundle that uses what the real one needs from its wrapper: require (relative to itself),
    // module.exports and __dirname, with a function compiled only when called.
    await writeFile(join(folder, 'helper.cjs'), 'module.exports = { twice: (n) => 2 * n };\n');
    await writeBundle('');
    probePath = join(folder, 'probe.mjs');
    await writeFile(
      probePath,
      `import { homedir } from 'node:os';\n` +
        `import { loadThroughCodeCache } from ${JSON.stringify(CODE_CACHE)};\n` +
        `const loaded = loadThroughCodeCache({ bundlePath: ${JSON.stringify(bundlePath)}, ` +
        `argv: JSON.parse(process.env.PROBE_ARGV), env: process.env, homeDir: homedir() });\n` +
        `const answer = loaded.exports.answer();\n` +
        `const saving = loaded.save();\n` +
        `console.log(JSON.stringify({ cache: loaded.cache, answer, folder: loaded.exports.folder, quote: loaded.exports.quote, saving }));\n`,
    );
  });

  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  async function writeBundle(extra: string): Promise<void> {
    await writeFile(
      bundlePath,
      `const { twice } = require('./helper.cjs');\n` +
        `function answer() { return twice(21); }\n` +
        `module.exports = { answer, folder: __dirname, quote: /don['’]t/u.source };\n${extra}`,
    );
  }

  function load(env: Record<string, string> = {}, argv: readonly string[] = ['--help']): ProbeResult {
    const run = spawnSync(process.execPath, [probePath], {
      env: { PATH: process.env.PATH, HOME: home, PROBE_ARGV: JSON.stringify(argv), ...env },
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    return JSON.parse(run.stdout) as ProbeResult;
  }

  const cacheFolder = (): string => join(home, '.cache', 'mcphost', 'code-cache');
  const cacheFiles = async (): Promise<string[]> => (await readdir(cacheFolder())).sort();

  it('is written by a run that had none, and used by the next run of that kind', async () => {
    const first = load();
    expect(first.cache.kind).toBe('missing');
    expect(first.answer).toBe(42);
    expect(first.folder).toBe(folder);
    // The bundle is read as UTF-8: esbuild leaves characters such as ’ as they are in regexes.
    expect(first.quote).toBe("don['’]t");
    expect(first.saving.kind).toBe('written');
    const files = await cacheFiles();
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(new RegExp(`^help-${process.version}-${process.arch}-\\d+-\\d+\\.bin$`));

    const second = load();
    expect(second.cache).toEqual({ kind: 'used', file: join(cacheFolder(), files[0]!) });
    expect(second.answer).toBe(42);
    expect(second.saving).toEqual({ kind: 'not needed' });

    // Another kind of run has a cache of its own.
    expect(load({}, ['-p', 'hi']).cache.kind).toBe('missing');
    expect(await cacheFiles()).toHaveLength(2);
  });

  it('follows $XDG_CACHE_HOME', async () => {
    const cacheHome = join(folder, 'xdg');
    expect(load({ XDG_CACHE_HOME: cacheHome }).saving.kind).toBe('written');
    expect(await readdir(join(cacheHome, 'mcphost', 'code-cache'))).toHaveLength(1);
  });

  it('starts again for a new build, and removes the old cache of that kind only', async () => {
    load();
    load({}, ['-p', 'x']);
    const before = await cacheFiles();
    await writeBundle('// rebuilt\n');
    const rebuilt = load();
    expect(rebuilt.cache.kind).toBe('missing');
    expect(rebuilt.answer).toBe(42);
    expect(rebuilt.saving.kind).toBe('written');
    const after = await cacheFiles();
    expect(after).toHaveLength(2);
    const prompt = (names: string[]) => names.filter((name) => name.startsWith('prompt-'));
    const help = (names: string[]) => names.filter((name) => name.startsWith('help-'));
    expect(prompt(after)).toEqual(prompt(before));
    expect(help(after)).toHaveLength(1);
    expect(help(after)).not.toEqual(help(before));
  });

  it('rewrites a cache V8 refuses (a damaged file), and the run goes on without it', async () => {
    load();
    const [name] = await cacheFiles();
    const file = join(cacheFolder(), name!);
    const data = await readFile(file);
    data.fill(7, 0, 64);
    await writeFile(file, data);

    const damaged = load();
    expect(damaged.cache).toEqual({ kind: 'refused', file });
    expect(damaged.answer).toBe(42);
    expect(damaged.saving.kind).toBe('written');
    expect(load().cache.kind).toBe('used');
  });

  it('is off with NODE_DISABLE_COMPILE_CACHE, and writes nothing', async () => {
    const run = load({ NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(run.cache).toEqual({ kind: 'off' });
    expect(run.answer).toBe(42);
    expect(run.saving).toEqual({ kind: 'not needed' });
    await expect(readdir(join(home, '.cache'))).rejects.toThrow(/ENOENT/);
  });

  it('says why it could not write, without failing the run', async () => {
    const notAFolder = join(folder, 'file');
    await writeFile(notAFolder, '');
    const run = load({ XDG_CACHE_HOME: notAFolder });
    expect(run.answer).toBe(42);
    expect(run.saving.kind).toBe('failed');
    expect(run.saving.reason).toMatch(/ENOTDIR|EEXIST/);
  });
});

describe('the code cache of mcphost itself', () => {
  const fixture = useCliFixture();
  /** Node's switch for the loader's line about the cache (`MCPHOST <pid>: code cache: …`). */
  const told = { NODE_DEBUG: 'mcphost' };

  it('a second --help uses the cache the first wrote, and prints the same', async () => {
    const first = await runCli(['--help'], fixture.home.path, { env: told });
    const second = await runCli(['--help'], fixture.home.path, { env: told });
    expect(first.code).toBe(0);
    expect(second.code).toBe(0);
    expect(first.stderr).toMatch(
      /^MCPHOST \d+: code cache: written \(\d+ KB\) .*\/\.cache\/mcphost\/code-cache\/help-/m,
    );
    expect(second.stderr).toMatch(/^MCPHOST \d+: code cache: used .*\/\.cache\/mcphost\/code-cache\/help-/m);
    expect(second.stdout).toBe(first.stdout);
    expect(first.stdout).toContain('mcphost');
  });

  it('a -p answer is the same with its cache as without', async () => {
    const ollama = await fixture.startModel([textReply('first answer'), textReply('second answer')]);
    const args = ['-p', 'hi', '-m', 'ollama:qwen2.5:3b', '--provider-url', ollama.url];
    const first = await runCli(args, fixture.home.path, { env: told });
    const second = await runCli(args, fixture.home.path, { env: told });
    expect(first.stdout).toBe('first answer\n');
    expect(second.stdout).toBe('second answer\n');
    expect(first.stderr).toMatch(/code cache: written .*\/prompt-/);
    expect(second.stderr).toMatch(/code cache: used .*\/prompt-/);
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
    expect(asked.code).toBe(0);
    expect(asked.stdout).toBe(quiet.stdout);
    expect(asked.stderr).toMatch(/code cache: not written: ENOTDIR/);
  });

  it('--debug runs without it, so that stack traces name our TypeScript', async () => {
    await fixture.home.writeConfig({ mcpServers: { a: { command: 5 } } });
    const run = await runCli(['-p', 'hi', '--debug'], fixture.home.path, { env: told });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/code cache: not used with --debug/);
    expect(run.stderr).toMatch(/at \w+ \(.*\/config\/problems\.ts:\d+:\d+\)/);
    await expect(readdir(join(fixture.home.path, '.cache'))).rejects.toThrow(/ENOENT/);
  });
});
