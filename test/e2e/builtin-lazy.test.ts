/**
 * The server SDK is loaded only when a built-in server is configured: `mcphost --help` and a `-p`
 * run without built-in servers never load `@modelcontextprotocol/server`. The built CLI runs under a
 * loader hook that records every ES module it loads; a run with `--builtin` is the control that
 * shows the record would contain the SDK if it were loaded.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { textReply } from '../fakes/ollama-server.js';
import { CLI, REPOSITORY, startCli } from '../support/cli.js';
import { useCliFixture } from '../support/cli-fixture.js';

const RECORDER = join(REPOSITORY, 'test/fixtures/import-recorder/register.mjs');
/** The server SDK's own files (not `server-everything` and the like, whose folders differ). */
const SERVER_SDK = '/node_modules/@modelcontextprotocol/server/';

const fixture = useCliFixture();

/** Runs the built CLI under the recorder; returns its exit code and every module URL it loaded. */
async function modulesLoadedBy(
  args: readonly string[],
): Promise<{ code: number | null; stdout: string; urls: string[] }> {
  const record = join(fixture.home.path, 'imports.txt');
  const running = startCli(args, fixture.home.path, {
    command: [process.execPath, '--import', RECORDER, CLI],
    env: { IMPORT_LOG: record },
  });
  running.child.stdin.end('');
  const run = await running.done;
  const urls = (await readFile(record, 'utf8')).split('\n').filter((line) => line !== '');
  await rm(record, { force: true });
  return { code: run.code, stdout: run.stdout, urls };
}

const serverSdk = (urls: readonly string[]) => urls.filter((url) => url.includes(SERVER_SDK));

describe('the server SDK stays unloaded without built-in servers', () => {
  it('mcphost --help does not load it', async () => {
    const { code, urls } = await modulesLoadedBy(['--help']);
    expect(code).toBe(0);
    // The recorder saw the CLI itself, so an empty SDK list means "not loaded", not "not recorded".
    expect(urls.some((url) => url.endsWith('/dist/bin/mcphost.js'))).toBe(true);
    expect(serverSdk(urls)).toEqual([]);
  });

  it('a -p run without built-in servers does not load it; one with --builtin does', async () => {
    const ollama = await fixture.startModel([textReply('plain answer'), textReply('todo answer')]);
    const common = ['-m', 'ollama:qwen2.5:3b', '--provider-url', ollama.url];

    const plain = await modulesLoadedBy(['-p', 'hello', ...common]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain('plain answer');
    // Recorded: the CLI, and the run's own code it imported on demand (the MCP client SDK is not
    // loaded either when no server is configured, so it cannot serve as the witness here).
    expect(plain.urls.some((url) => url.endsWith('/dist/bin/mcphost.js'))).toBe(true);
    expect(plain.urls.some((url) => /\/dist\/bin\/chunks\/run-command-\w+\.js$/.test(url))).toBe(true);
    expect(serverSdk(plain.urls)).toEqual([]);

    const builtin = await modulesLoadedBy(['-p', 'hello', '--builtin', 'todo', ...common]);
    expect(builtin.code).toBe(0);
    expect(builtin.stdout).toContain('todo answer');
    expect(serverSdk(builtin.urls).length).toBeGreaterThan(0);
  });
});
