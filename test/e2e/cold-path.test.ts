/**
 * What a run loads (issue 17). "Loaded" here means "ran": a module counts when any function of its
 * own ran in the built CLI, as V8's coverage records it (test/support/modules-run.ts). That record
 * holds whatever the executable's packaging (split ES modules, or one CommonJS bundle that a module
 * loader hook sees nothing inside of); a package or module whose code never ran costs only its
 * source text. Node's built-in modules are those it loaded (`process.moduleLoadList`). The timings
 * and memory these choices buy are measured by `npm run bench` (test/bench/cold-path.ts).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOllama, textReply, type FakeOllama } from '../fakes/ollama-server.js';
import { REPOSITORY, temporaryHome, type TemporaryHome } from '../support/cli.js';
import { modulesRunBy } from '../support/modules-run.js';
import { TINY_GGUF_SHAPE, writeTinyGguf } from '../fixtures/tiny-gguf.js';

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

/** Runs `mcphost ...args` and returns the packages (and our own modules) whose code ran. */
async function loadedBy(args: readonly string[]): Promise<Set<string>> {
  const { run, modules } = await modulesRunBy(args, home.path);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return new Set(modules);
}

describe('the cold path', () => {
  it('a one-shot with no server loads no MCP SDK, no other vendor SDK, no chat, no cosmiconfig', async () => {
    await home.writeConfig({ mcpServers: {} });
    const loaded = await loadedBy(['-p', 'hi', '--provider-url', ollama.url]);
    // The record holds the run's own code and the Ollama client: an absence below means "did not
    // run", not "not recorded".
    expect(loaded).toContain('src/cli/one-shot.js');
    expect(loaded).toContain('providers/ollama-http.js');
    // The `ollama` client, over our node:http transport: Node's fetch is undici, with http2, tls,
    // zlib and web streams, ~225 ms and ~40 MB on first use (providers/ollama-http.ts), and the
    // client's own `headers instanceof Headers` would load it too (src/cli/ollama-client-shims.ts).
    expect(loaded).toContain('ollama');
    // Nor Node's web streams: the client reads the streamed body through a reader made over the
    // chunks (providers/ollama-http.ts).
    expect(loaded).not.toContain('node-internal:internal/webstreams/readablestream');
    expect(loaded).toContain('node-internal:http');
    expect(loaded).not.toContain('node-internal:internal/deps/undici/undici');
    expect(loaded).not.toContain('node-internal:http2');
    for (const absent of [
      '@modelcontextprotocol/client',
      '@modelcontextprotocol/core',
      // The SDK's internals, as its own source maps name them.
      '@modelcontextprotocol/core-internal',
      '@anthropic-ai/sdk',
      '@google/genai',
      'openai',
      // The embedded model's provider and binding (llama.cpp) load only for a `local:` model.
      'node-llama-cpp',
      'providers/local/provider.js',
      'providers/local/binding.js',
      'cosmiconfig',
      // The skills' front-matter reader: only when a SKILL.md is read (~40 ms of CPU on Node 20).
      'yaml',
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
      (name) => name.startsWith('src/mcp/auth/') || name === 'src/cli/command-line/auth-commands.js',
    );
    expect(signInModules).toEqual(['src/mcp/auth/token-store.js']);
    // No chat module, but for the sanitizer the one-shot output shares with it (this plain answer
    // needs none of it: it may or may not run).
    const chatModules = [...loaded].filter(
      (name) => name.startsWith('src/cli/chat/') && name !== 'src/cli/chat/sanitize.js',
    );
    expect(chatModules).toEqual([]);
  });

  it('a one-shot with a local: model loads the embedded provider and node-llama-cpp (the control of the absences above)', async () => {
    await home.writeConfig({ mcpServers: {} });
    const model = await writeTinyGguf(join(home.path, 'tiny.gguf'), {
      ...TINY_GGUF_SHAPE,
      favouredByte: '"',
    });
    // The model's first token is `"`, a stop sequence: a clean stop, with nothing on stderr.
    const { run, modules } = await modulesRunBy(
      ['-m', `local:${model}`, '-p', 'hi', '--stop-sequences', '"'],
      home.path,
      { env: { MCPHOST_LOCAL_THREADS: '1' } },
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    for (const present of ['node-llama-cpp', 'providers/local/provider.js', 'providers/local/binding.js']) {
      expect(modules, present).toContain(present);
    }
  });

  it('--help runs only the command line: no zod, no node:crypto, no job format', async () => {
    const loaded = await loadedBy(['--help']);
    // The control: the parser ran (and the record holds the bundle's own code).
    expect(loaded).toContain('yargs');
    expect(loaded).toContain('src/cli/args.js');
    // `mcphost batch`'s `--var` check is parsed with the command line; it came from the job format
    // (src/batch/job.ts), whose schemas and node:crypto then loaded on every run (~5 ms on Node 20).
    expect(loaded).toContain('src/batch/var-arguments.js');
    for (const absent of ['zod', 'node-internal:crypto', 'src/batch/job.js', 'src/cli/run-command.js']) {
      expect(loaded, absent).not.toContain(absent);
    }
  });

  it('a one-shot with a server loads the MCP SDK', async () => {
    await home.writeConfig({
      mcpServers: { slow: { command: process.execPath, args: [SLOW_START], env: { STARTUP_DELAY_MS: '0' } } },
    });
    const loaded = await loadedBy(['-p', 'hi', '--provider-url', ollama.url]);
    expect(loaded).toContain('@modelcontextprotocol/client');
  });
});

describe('the bundle', () => {
  it('holds one copy of string-width, the package every run loads through yargs', async () => {
    // Each copy makes an Intl.Segmenter and its regular expressions as it loads (~10 ms of every
    // run on Node 20): package.json's `overrides` give yargs' cliui and wrap-ansi the one
    // string-width the project depends on, instead of their own nested string-width 7.
    const map = JSON.parse(await readFile(join(REPOSITORY, 'dist/bin/mcphost-bundle.cjs.map'), 'utf8')) as {
      sources: string[];
    };
    const copies = map.sources.filter((source) =>
      /node_modules\/(.*\/)?string-width\/index\.js$/.test(source),
    );
    expect(copies).toHaveLength(1);
  });

  it("holds zod's English messages only, not its other locales", async () => {
    // A bundled importer of zod's `z` namespace as a value (ext-apps' `import { z } from 'zod/v4'`)
    // puts all of zod in, ~50 locales with it (+360 KB), whose module code then ran at every start:
    // such a package stays outside the bundle (esbuild.config.mjs, UNBUNDLED).
    const map = JSON.parse(await readFile(join(REPOSITORY, 'dist/bin/mcphost-bundle.cjs.map'), 'utf8')) as {
      sources: string[];
    };
    const locales = map.sources.filter((source) => /node_modules\/zod\/v4\/locales\//.test(source));
    // (index.js stays listed: the English one is imported through it.)
    const others = locales.filter((source) => !/\/(en|index)\.js$/.test(source));
    expect(others).toEqual([]);
    // The control: the English messages every run's zod uses are there.
    expect(locales.some((source) => source.endsWith('/en.js'))).toBe(true);
  });
});
