/**
 * The trust question for a project config, in a real terminal (tmux) with the BUILT CLI: what it
 * shows, and that a yes starts the file's servers (and is remembered) while a no starts nothing.
 */
import { access, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOllama, type FakeOllama } from '../fakes/ollama-server.js';
import { REPOSITORY, temporaryHome, type TemporaryHome } from '../support/cli.js';
import { startChatTerminal } from '../support/chat-terminal.js';
import { tmuxAvailable, type TmuxTerminal } from '../support/tmux.js';

const hasTmux = tmuxAvailable();
if (!hasTmux) console.warn('tmux is not installed: skipping the terminal trust tests (apt-get install tmux)');

let home: TemporaryHome;
let project: string;
let ollama: FakeOllama | undefined;
let terminal: TmuxTerminal | undefined;

beforeEach(async () => {
  home = await temporaryHome();
  project = await mkdtemp(join(tmpdir(), 'mcphost-trust-project-'));
});
afterEach(async () => {
  await terminal?.close();
  terminal = undefined;
  await ollama?.close();
  ollama = undefined;
  await home.remove();
  await rm(project, { recursive: true, force: true });
});

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** A project config whose one server leaves a marker file when it is started. */
async function writeProject(): Promise<{ config: string; marker: string }> {
  const marker = join(project, 'marker');
  const server = join(REPOSITORY, 'test/fixtures/servers/good-server.mjs');
  const config = join(project, '.mcp.json');
  await writeFile(
    config,
    JSON.stringify({
      mcpServers: {
        tools: {
          command: 'sh',
          args: ['-c', `echo started > '${marker}'; exec '${process.execPath}' '${server}'`],
        },
      },
      hooks: { Stop: [{ hooks: [{ type: 'command', command: 'true' }] }] },
    }),
  );
  return { config, marker };
}

async function startChat(): Promise<TmuxTerminal> {
  ollama = await startFakeOllama([]);
  terminal = await startChatTerminal({
    home: home.path,
    providerUrl: ollama.url,
    cwd: project,
    columns: 160,
  });
  return terminal;
}

describe.skipIf(!hasTmux)('the trust question in the chat', () => {
  it('lists what the file would start; yes starts it and is remembered', async () => {
    const { config, marker } = await writeProject();
    const chat = await startChat();
    const screen = await chat.waitFor('Trust this file and start them? [y/N]');
    expect(screen).toContain(`This folder has a project config that you have not trusted yet: ${config}`);
    expect(screen).toContain(`server "tools": sh -c 'echo started > '\\''${marker}'\\''; exec`);
    expect(screen).toContain('hook Stop: true');
    // Nothing has been started while the question is open.
    expect(await exists(marker)).toBe(false);
    chat.type('y');
    chat.keys('Enter');
    await chat.waitFor(/mistral-small/);
    expect(await readFile(marker, 'utf8')).toBe('started\n');
    const store = await readFile(join(home.path, '.local/state/mcphost/trusted-configs.json'), 'utf8');
    expect(store).toContain(config);
    chat.keys('C-d');
    await chat.waitForExit();
  });

  it('no: nothing from the file is started, and the chat goes on without it', async () => {
    const { config, marker } = await writeProject();
    const chat = await startChat();
    await chat.waitFor('Trust this file and start them? [y/N]');
    chat.type('n');
    chat.keys('Enter');
    const screen = await chat.waitFor(/mistral-small/);
    expect(screen).toContain(`${config}: not used (you did not trust it)`);
    expect(await exists(marker)).toBe(false);
    expect(await exists(join(home.path, '.local/state/mcphost/trusted-configs.json'))).toBe(false);
    chat.keys('C-d');
    await chat.waitForExit();
  });

  it('Ctrl-C: mcphost stops (exit 130) and nothing is started', async () => {
    const { marker } = await writeProject();
    const chat = await startChat();
    await chat.waitFor('Trust this file and start them? [y/N]');
    chat.keys('C-c');
    expect(await chat.waitForExit()).toBe(130);
    expect(await exists(marker)).toBe(false);
  });
});
