/**
 * A server that cannot start is reported whatever the number of servers (issue 26). The lone
 * failing server is the case that matters: with no other child process alive, a start that waited
 * on an unreferenced timer let Node run out of work, and `-p` ended silently with exit code 0.
 * That cannot show inside vitest (its own handles keep the loop alive), so every case here runs
 * the BUILT CLI as a user does: a throw-away HOME, one server in `.mcp.json`, the fake Ollama.
 *
 * The rule checked (docs/scripting.md, "Exit codes"): a chat or `-p` run goes on without the
 * failed server, so the exit code is the model's outcome; `mcp list` exits 5 when a server failed.
 */
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { textReply } from '../fakes/ollama-server.js';
import { runCli } from '../support/cli.js';
import { useCliFixture } from '../support/cli-fixture.js';
import { unusedPort } from '../support/loopback.js';
import type { JsonResult, StreamEvent } from '../../src/cli/output/schema.js';

const fixture = useCliFixture();

interface FailureKind {
  readonly name: string;
  /** The server's `.mcp.json` entry; `home` is this test's HOME. */
  readonly entry: (home: string) => Promise<Record<string, unknown>>;
  /** The cause, as the warning and the JSON `error` say it. */
  readonly cause: (home: string) => string;
  /** The stderr lines that come with it. */
  readonly stderr?: readonly string[];
}

/** Where npx keeps a package it ran. */
const NPX_COPY = '/home/someone/.npm/_npx/a3241bba59c344f5';
/** Node's own line when npx's copy of a package lacks a dependency (seen after a cut-short install). */
const MISSING_PACKAGE_LINE = `Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'zod' imported from ${NPX_COPY}/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js`;

const KINDS: readonly FailureKind[] = [
  {
    name: 'no such command (ENOENT)',
    entry: async () => ({ command: 'no-such-cmd' }),
    cause: () => 'no such command "no-such-cmd" (is it installed and on PATH?)',
  },
  {
    name: 'not executable (EACCES)',
    entry: async (home) => {
      const script = join(home, 'server.sh');
      await writeFile(script, '#!/bin/sh\nexit 0\n');
      await chmod(script, 0o644);
      return { command: script };
    },
    cause: (home) => `"${join(home, 'server.sh')}" is not executable (permission denied)`,
  },
  {
    name: 'exits at once',
    entry: async () => ({ command: 'sh', args: ['-c', 'echo boom >&2; exit 3'] }),
    cause: () => 'exited with code 3 before answering "initialize"',
    stderr: ['boom'],
  },
  {
    name: 'never answers initialize',
    entry: async () => ({ command: 'sleep', args: ['60'], initTimeout: 1500 }),
    cause: () => 'did not answer "initialize" within 1500 ms',
  },
  // Behind npx (the README's servers): what npx itself gets wrong on a first run.
  {
    name: "npx's copy of the package cut short",
    entry: async (home) => ({
      command: await fakeNpx(home, `echo "${MISSING_PACKAGE_LINE}" >&2; exit 1`),
      args: ['-y', '@modelcontextprotocol/server-filesystem'],
    }),
    cause: () =>
      `exited with code 1 before answering "initialize"; npx's copy of the package in ${NPX_COPY} is incomplete (an earlier install was cut short?): delete that folder and start again`,
    stderr: [MISSING_PACKAGE_LINE],
  },
  {
    name: 'npx still downloading',
    entry: async (home) => ({
      command: await fakeNpx(home, 'exec sleep 60'),
      args: ['-y', '@modelcontextprotocol/server-memory'],
      initTimeout: 1500,
    }),
    cause: () =>
      'did not answer "initialize" within 1500 ms; npx may still have been downloading the package: run the command once by hand, or raise the server\'s "initTimeout" (ms)',
  },
];

/** A stand-in for npx in the HOME (`bin/npx`), running `script`. */
async function fakeNpx(home: string, script: string): Promise<string> {
  const folder = join(home, 'bin');
  await mkdir(folder, { recursive: true });
  const path = join(folder, 'npx');
  await writeFile(path, `#!/bin/sh\n${script}\n`);
  await chmod(path, 0o755);
  return path;
}

/** Writes the HOME's config with the lone server `typo`. */
async function configure(kind: FailureKind): Promise<void> {
  await fixture.home.writeConfig({ mcpServers: { typo: await kind.entry(fixture.home.path) } });
}

function warningOf(kind: FailureKind): string {
  const line = `mcphost: server "typo" failed to start: ${kind.cause(fixture.home.path)}`;
  return kind.stderr === undefined
    ? line
    : `${line}\n  last stderr lines:\n${kind.stderr.map((text) => `    ${text}`).join('\n')}`;
}

function jsonServer(kind: FailureKind): Record<string, unknown> {
  return {
    name: 'typo',
    state: 'failed',
    tools: 0,
    error: `failed to start: ${kind.cause(fixture.home.path)}`,
    ...(kind.stderr === undefined ? {} : { stderr: kind.stderr }),
  };
}

describe.each(KINDS)('a lone server that cannot start: $name', (kind) => {
  beforeEach(async () => {
    await configure(kind);
    await fixture.startModel([], { fallback: () => textReply('answered without tools') });
  });

  it('-p (text) says so on stderr, and the run goes on to the model', async () => {
    const run = await runCli(['-p', 'hi', '--provider-url', fixture.model.url], fixture.home.path);
    expect(run.stderr).toContain(warningOf(kind));
    expect(run.stdout).toBe('answered without tools\n');
    expect(run.code).toBe(0);
    expect(fixture.model.chatRequests).toHaveLength(1);
  });

  it('--output-format json carries the server and its cause in the result object', async () => {
    const run = await runCli(
      ['-p', 'hi', '--output-format', 'json', '--provider-url', fixture.model.url],
      fixture.home.path,
    );
    expect(run.stderr).toContain(warningOf(kind));
    const result = JSON.parse(run.stdout) as JsonResult;
    expect(result).toMatchObject({ ok: true, exitCode: 0, text: 'answered without tools' });
    expect(result.servers).toEqual([jsonServer(kind)]);
    expect(run.code).toBe(0);
  });

  it('--output-format stream-json carries it in the start event and the result', async () => {
    const run = await runCli(
      ['-p', 'hi', '--output-format', 'stream-json', '--provider-url', fixture.model.url],
      fixture.home.path,
    );
    expect(run.stderr).toContain(warningOf(kind));
    const events = run.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as StreamEvent);
    expect(events[0]).toMatchObject({ type: 'start', servers: [jsonServer(kind)], tools: 0 });
    expect(events.at(-1)).toMatchObject({ type: 'result', ok: true, servers: [jsonServer(kind)] });
    expect(run.code).toBe(0);
  });

  it('mcp list shows it failed, with why, and exits 5', async () => {
    const list = await runCli(['mcp', 'list'], fixture.home.path);
    expect(list.stdout).toContain(`✗ failed: failed to start: ${kind.cause(fixture.home.path)}`);
    expect(list.code).toBe(5);
  });
});

describe('the newcomer smoke: a mistyped server command and no model server', () => {
  it('says both failures and exits with the provider code', async () => {
    await configure(KINDS[0]!);
    const port = await unusedPort();
    const run = await runCli(['-m', 'ollama:x', '-p', 'hi'], fixture.home.path, {
      env: { OLLAMA_HOST: `http://127.0.0.1:${port}` },
    });
    expect(run.stderr.trimEnd().split('\n')).toEqual([
      warningOf(KINDS[0]!),
      `mcphost: cannot reach Ollama at http://127.0.0.1:${port} — is \`ollama serve\` running?`,
    ]);
    expect(run.code).toBe(3);
  });
});
