/**
 * The sandbox as a user meets it on the command line: `--sandbox` where no bwrap is on PATH stops
 * the run before anything starts, with one line saying why (so does a server entry's `sandbox`);
 * with bwrap, every stdio server and bash run sandboxed, and the audit log says so per call.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOllama, textReply, toolCallReply, type FakeOllama } from '../fakes/ollama-server.js';
import { REPOSITORY, runCli, temporaryHome, type TemporaryHome } from '../support/cli.js';
import { requireSandboxSupport } from '../support/sandbox.js';

requireSandboxSupport();

const familyServer = join(REPOSITORY, 'test/fixtures/servers/family-server.mjs');

let home: TemporaryHome;
let ollama: FakeOllama;
/** An empty folder, to be a PATH on which there is no bwrap. */
let noBwrap: string;

beforeEach(async () => {
  home = await temporaryHome();
  noBwrap = await mkdtemp(join(tmpdir(), 'mcphost-no-bwrap-'));
});
afterEach(async () => {
  await ollama.close();
  await home.remove();
  await rm(noBwrap, { recursive: true, force: true });
});

describe('a sandbox that cannot be made', () => {
  beforeEach(async () => {
    ollama = await startFakeOllama([textReply('never asked')]);
  });

  it('--sandbox with no bwrap on PATH fails the run at once, saying so', async () => {
    await home.writeConfig({ mcpServers: { family: { command: process.execPath, args: [familyServer] } } });
    const run = await runCli(['-p', 'hi', '--sandbox', '--provider-url', ollama.url], home.path, {
      env: { PATH: noBwrap },
    });
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(
      'mcphost: --sandbox: cannot make a sandbox: bwrap (bubblewrap) is not on PATH: install it (Debian, Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)',
    );
    expect(ollama.chatRequests).toHaveLength(0);
  });

  it("a server entry's sandbox with no bwrap on PATH names the entry", async () => {
    const config = await home.writeConfig({
      mcpServers: { family: { command: process.execPath, args: [familyServer], sandbox: {} } },
    });
    const run = await runCli(['-p', 'hi', '--provider-url', ollama.url], home.path, {
      env: { PATH: noBwrap },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `mcphost: ${config}: mcpServers.family.sandbox: cannot make a sandbox: bwrap (bubblewrap) is not on PATH`,
    );
    expect(ollama.chatRequests).toHaveLength(0);
  });

  it('an unknown key in a sandbox is a config error naming it', async () => {
    const config = await home.writeConfig({
      mcpServers: { family: { command: process.execPath, args: [familyServer], sandbox: { netwrok: true } } },
    });
    const run = await runCli(['-p', 'hi', '--provider-url', ollama.url], home.path);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${config}: mcpServers.family.sandbox: Unrecognized key: "netwrok"`);
  });
});

describe('--sandbox with bwrap', () => {
  it('runs every stdio server and bash sandboxed, and each audit line says so', async () => {
    await home.writeConfig({ mcpServers: { family: { command: process.execPath, args: [familyServer] } } });
    ollama = await startFakeOllama([
      toolCallReply(
        ['family__sleep', { ms: 1 }],
        ['bash__run_command', { command: 'touch /usr/x; echo done' }],
      ),
      textReply('finished'),
    ]);
    const audit = join(home.path, 'audit.jsonl');
    const args = [
      '-p',
      'go',
      '--provider-url',
      ollama.url,
      '--builtin',
      'bash',
      '--approve-all',
      '--audit-log',
      audit,
    ];

    const sandboxed = await runCli([...args, '--sandbox'], home.path);
    expect(sandboxed.code, sandboxed.stderr).toBe(0);
    const lines = (await readFile(audit, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { server: string; serverIdentity?: { sandboxed?: boolean } });
    expect(lines.map((line) => [line.server, line.serverIdentity?.sandboxed]).sort()).toEqual([
      ['bash', true],
      ['family', true],
    ]);
    // What bash answered, as the model got it: its file system was read-only.
    const toolMessage = JSON.stringify(ollama.chatRequests[1]?.messages.at(-1));
    expect(toolMessage).toContain('Read-only file system');
  });

  it('without it, the audit line says a local server ran unsandboxed', async () => {
    await home.writeConfig({ mcpServers: { family: { command: process.execPath, args: [familyServer] } } });
    ollama = await startFakeOllama([toolCallReply(['family__sleep', { ms: 1 }]), textReply('finished')]);
    const audit = join(home.path, 'audit.jsonl');
    const run = await runCli(['-p', 'go', '--provider-url', ollama.url, '--audit-log', audit], home.path);
    expect(run.code, run.stderr).toBe(0);
    const [line] = (await readFile(audit, 'utf8')).trim().split('\n');
    expect(JSON.parse(line ?? '{}')).toMatchObject({
      server: 'family',
      serverIdentity: { sandboxed: false },
    });
  });
});
