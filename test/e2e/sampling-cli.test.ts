/**
 * `mcphost -p` with sampling and roots, as a user runs it: the built CLI, the real
 * server-everything and server-filesystem, the v2-SDK sampler fixture, and the fake Ollama.
 * Sampling is sent only under an `approval.sampling` allow rule of the home config (nobody can be
 * asked in `-p`), and stderr says which server asked and what was answered. `--root DIR` replaces
 * the working directory as the folder servers may use, and a missing folder stops the run.
 */
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOllama, textReply, toolCallReply, type FakeOllama } from '../fakes/ollama-server.js';
import {
  EVERYTHING_SERVER,
  REPOSITORY,
  npmServerConfig,
  runCli,
  temporaryHome,
  type TemporaryHome,
} from '../support/cli.js';
import { unwrapped } from '../support/untrusted.js';

const SAMPLER = { command: process.execPath, args: [join(REPOSITORY, 'test/fixtures/servers/sampler.mjs')] };

let ollama: FakeOllama | undefined;
const homes: TemporaryHome[] = [];
let folders: string;

beforeAll(async () => {
  // server-filesystem reports real paths: /tmp may be a link.
  folders = await realpath(await mkdtemp(join(tmpdir(), 'mcphost-roots-cli-')));
});
afterEach(async () => {
  await ollama?.close();
  ollama = undefined;
  await Promise.all(homes.splice(0).map((home) => home.remove()));
});
afterAll(async () => {
  await rm(folders, { recursive: true, force: true });
});

async function homeWith(config: unknown): Promise<TemporaryHome> {
  const home = await temporaryHome();
  homes.push(home);
  await home.writeConfig(config);
  return home;
}

function mcphost(home: TemporaryHome, prompt: string, ...flags: string[]) {
  if (ollama === undefined) throw new Error('start the fake first');
  return runCli(
    ['-m', 'ollama:mistral-small', '--provider-url', ollama.url, '-p', prompt, ...flags],
    home.path,
  );
}

/** The model's last input: the tool's answer, without the untrusted-content wrapper. */
const toolSaid = (request: { messages: ReadonlyArray<{ content?: string }> }) =>
  textReply(`tool said: ${unwrapped(request.messages.at(-1)?.content ?? '')}`);

describe('mcphost -p with sampling', () => {
  it("sends server-everything's request to the model under an allow rule and returns the answer", async () => {
    const home = await homeWith({
      mcpServers: { everything: EVERYTHING_SERVER },
      approval: { sampling: [{ server: 'everything', decision: 'allow' }] },
    });
    ollama = await startFakeOllama([
      toolCallReply(['everything__trigger-sampling-request', { prompt: 'name a colour', maxTokens: 40 }]),
      textReply('teal'),
      toolSaid,
    ]);
    const run = await mcphost(home, 'Try sampling.');
    expect(run.code).toBe(0);
    // The second model call is the server's own request, apart from the conversation.
    expect(ollama.chatRequests[1]?.messages).toEqual([
      { role: 'system', content: 'You are a helpful test server.' },
      { role: 'user', content: 'Resource trigger-sampling-request context: name a colour' },
    ]);
    expect(ollama.chatRequests[1]?.tools ?? []).toEqual([]);
    // The model's answer went back to the server, which put it in the tool result.
    expect(run.stdout).toContain('"text": "teal"');
    expect(run.stderr).toContain(
      `server "everything" asked to use the model (sampling) — sent (the sampling rule server "everything" → allow in ${join(home.path, '.mcp.json')})`,
    );
  });

  it('declines without a rule, tells the server, and says so on stderr', async () => {
    const home = await homeWith({ mcpServers: { sampler: SAMPLER } });
    ollama = await startFakeOllama([toolCallReply(['sampler__sample', { prompt: 'hi' }]), toolSaid]);
    const run = await mcphost(home, 'Try sampling.');
    expect(run.code).toBe(0);
    // Only the conversation's two calls: the server's request never reached the model.
    expect(ollama.chatRequests).toHaveLength(2);
    expect(run.stdout).toContain(
      'error: -1 mcphost declined the sampling request: no sampling rule allows it for this server, and no one can be asked here',
    );
    expect(run.stderr).toContain(
      'server "sampler" asked to use the model (sampling) — declined (no sampling rule allows it for this server, and no one can be asked here)',
    );
  });
});

describe('mcphost -p --root', () => {
  it('stops with a one-line error naming --root when the folder is missing (exit 2)', async () => {
    const home = await homeWith({ mcpServers: { sampler: SAMPLER } });
    ollama = await startFakeOllama([]);
    const missing = join(folders, 'nope');
    const run = await mcphost(home, 'hi', '--root', missing);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`mcphost: --root: "${missing}" is not a directory\n`);
    expect(ollama.chatRequests).toHaveLength(0);
  });

  it('is what server-filesystem, started without folders, may list', async () => {
    const chosen = join(folders, 'chosen');
    await mkdir(chosen);
    const home = await homeWith({ mcpServers: { files: npmServerConfig('filesystem') } });
    ollama = await startFakeOllama([toolCallReply(['files__list_allowed_directories', {}]), toolSaid]);
    const run = await mcphost(home, 'Where may you work?', '--root', chosen);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Allowed directories:\n${chosen}`);
    // Not the working directory (the HOME), which --root replaced.
    expect(run.stdout).not.toContain(home.path);
  });
});
