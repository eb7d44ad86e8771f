/**
 * Tasks in the chat, in a real terminal (tmux, the BUILT CLI): while a tool call runs as a task,
 * `/tasks` lists it (answered during the turn, when tasks run), and Ctrl-C cancels it with
 * `tasks/cancel` on the server.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { textReply, toolCallReply } from '../fakes/ollama-server.js';
import { REPOSITORY } from '../support/cli.js';
import { useChatTerminal } from '../support/chat-terminal.js';
import { tmuxAvailable, type TmuxTerminal } from '../support/tmux.js';

const hasTmux = tmuxAvailable();
const fixture = useChatTerminal({});
let stateDir: string;

beforeEach(async () => {
  stateDir = await fixture.temporaryFolder('mcphost-tmux-tasks-');
  await fixture.home.writeConfig({
    mcpServers: {
      jobs: {
        command: process.execPath,
        args: [join(REPOSITORY, 'test/fixtures/servers/tasks-server.mjs')],
        env: { TASKS_STATE_DIR: stateDir },
      },
    },
  });
});

function enter(chat: TmuxTerminal, text: string): void {
  chat.type(text);
  chat.keys('Enter');
}

const cancels = () => {
  const file = join(stateDir, 'cancels.log');
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
    : [];
};

describe.skipIf(!hasTmux)('tasks in the chat', () => {
  it('/tasks lists a task while it runs; Ctrl-C cancels it on the server', async () => {
    await fixture.startModel([toolCallReply(['jobs__endless_job', {}])], {
      fallback: textReply('all stopped'),
    });
    const chat = await fixture.startChat();
    enter(chat, 'start the endless job');
    await chat.waitFor('still going');
    enter(chat, '/tasks');
    await chat.waitFor('Tasks running (1):');
    const screen = chat.capture();
    expect(screen).toMatch(/jobs\/endless_job {2}working {2}task [0-9a-f-]{36}, \d+ s/);
    const taskId = /task ([0-9a-f-]{36}),/.exec(screen)?.[1];
    expect(taskId).toBeDefined();
    chat.keys('C-c');
    await expect.poll(cancels, { timeout: 10_000 }).toContain(taskId);
    // Between turns there is nothing running any more.
    enter(chat, '/tasks');
    await chat.waitFor('No tasks running.');
  });
});
