/**
 * The trust question for a project config, in a real terminal (tmux) with the BUILT CLI: what it
 * shows, and that a yes starts the file's servers (and is remembered) while a no starts nothing.
 */
import { access, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { REPOSITORY } from '../support/cli.js';
import { useChatTerminal } from '../support/chat-terminal.js';
import { tmuxAvailable, type TmuxTerminal } from '../support/tmux.js';

const hasTmux = tmuxAvailable();
if (!hasTmux) console.warn('tmux is not installed: skipping the terminal trust tests (apt-get install tmux)');

const fixture = useChatTerminal();
let project: string;

beforeEach(async () => {
  project = await fixture.temporaryFolder('mcphost-trust-project-');
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

/** The chat in the project folder; the test waits for what it needs (the trust question first). */
async function startChat(): Promise<TmuxTerminal> {
  await fixture.startModel([]);
  return fixture.startChat({ cwd: project, columns: 160, ready: false });
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
    const store = await readFile(
      join(fixture.home.path, '.local/state/mcphost/trusted-configs.json'),
      'utf8',
    );
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
    expect(await exists(join(fixture.home.path, '.local/state/mcphost/trusted-configs.json'))).toBe(false);
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
