/**
 * What a run loads (issue 17): the built CLI under a loader hook that records every module. The
 * timings and memory these choices buy are measured by `npm run bench` (test/bench/cold-path.ts).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOllama, textReply, type FakeOllama } from '../fakes/ollama-server.js';
import { CLI, REPOSITORY, startCli, temporaryHome, type TemporaryHome } from '../support/cli.js';

const RECORDER = join(REPOSITORY, 'test/fixtures/import-recorder/register.mjs');
const SLOW_START = join(REPOSITORY, 'test/fixtures/servers/slow-start.mjs');

let ollama: FakeOllama;
let home: TemporaryHome;

beforeEach(async () => {
  ollama = await startFakeOllama([], { fallback: textReply('ok') });
  home = await temporaryHome();
});

afterEach(async () => {
  await home.remove();
  await ollama.close();
});

/** A loaded module's name: a package (`zod`), or one of our modules (`src/cli/chat/sanitize.js`). */
function moduleName(path: string): string {
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path);
  if (dependency !== null) return dependency[1]!;
  return path.replace(/^(?:.*\/)?dist\//, '').replace(/\.ts$/, '.js');
}

/**
 * What each file of the bundled executable holds (esbuild's metafile, written by the build): the
 * executable is bundled (esbuild.config.mjs), so a loaded `dist/bin/chunks/…` file stands for the
 * modules and packages bundled into it.
 */
async function bundleContents(): Promise<Map<string, string[]>> {
  const meta = JSON.parse(await readFile(join(REPOSITORY, 'dist/bundle-meta.json'), 'utf8')) as {
    outputs: Record<string, { inputs: Record<string, unknown> }>;
  };
  return new Map(
    Object.entries(meta.outputs).map(([output, { inputs }]) => [output, Object.keys(inputs).map(moduleName)]),
  );
}

/** Runs `mcphost ...args` and returns the packages (and our own modules) it loaded. */
async function loadedBy(args: readonly string[]): Promise<Set<string>> {
  const log = join(home.path, 'imports.log');
  const running = startCli(args, home.path, {
    command: [process.execPath, '--import', RECORDER, CLI],
    env: { IMPORT_LOG: log },
  });
  running.child.stdin.end();
  const run = await running.done;
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  const bundle = await bundleContents();
  const urls = (await readFile(log, 'utf8')).trim().split('\n');
  return new Set(
    urls.flatMap((url) => {
      const bundled = /\/(dist\/bin\/.+)$/.exec(url);
      const contents = bundled === null ? undefined : bundle.get(bundled[1]!);
      return contents ?? [moduleName(url)];
    }),
  );
}

describe('the cold path', () => {
  it('a one-shot with no server loads no MCP SDK, no other vendor SDK, no chat, no cosmiconfig', async () => {
    await home.writeConfig({ mcpServers: {} });
    const loaded = await loadedBy(['-p', 'hi', '--provider-url', ollama.url]);
    expect(loaded).toContain('providers/ollama-http.js');
    // Node's fetch: undici, with http2, tls, zlib and web streams, ~120 ms and ~15 MB on first use
    // (providers/ollama-http.ts); the Ollama exchange goes over node:http instead.
    expect(loaded).toContain('node-internal:http');
    expect(loaded).not.toContain('node-internal:internal/deps/undici/undici');
    expect(loaded).not.toContain('node-internal:http2');
    for (const absent of [
      '@modelcontextprotocol/client',
      '@modelcontextprotocol/core',
      '@anthropic-ai/sdk',
      '@google/genai',
      'openai',
      'cosmiconfig',
      'marked',
      'marked-terminal',
      'chalk',
      'yocto-spinner',
    ]) {
      expect(loaded, absent).not.toContain(absent);
    }
    // No sign-in code: the auth commands are only parsed (their tree), never loaded. The token
    // store's class is made up front (it reads nothing until a server asks).
    const signInModules = [...loaded].filter(
      (name) => name.startsWith('src/mcp/auth/') || name === 'src/cli/auth-commands.js',
    );
    expect(signInModules).toEqual(['src/mcp/auth/token-store.js']);
    // The chat's own modules, but for the sanitizer the one-shot output shares with it.
    const chatModules = [...loaded].filter((name) => name.startsWith('src/cli/chat/'));
    expect(chatModules).toEqual(['src/cli/chat/sanitize.js']);
  });

  it('a one-shot with a server loads the MCP SDK', async () => {
    await home.writeConfig({
      mcpServers: { slow: { command: process.execPath, args: [SLOW_START], env: { STARTUP_DELAY_MS: '0' } } },
    });
    const loaded = await loadedBy(['-p', 'hi', '--provider-url', ollama.url]);
    expect(loaded).toContain('@modelcontextprotocol/client');
  });
});
