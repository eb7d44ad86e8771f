/**
 * "Always allow" answers kept per project folder, in a real terminal (tmux, the BUILT CLI, the
 * loopback fake Ollama, server-everything): `tk`/`sk` at an approval question is kept for the
 * folder and lifts the question in the next chat there; `/permissions` lists and removes it; `t`
 * and `s` last for their chat only. Skipped, saying why, only when tmux is not installed.
 */
import { mkdir, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { textReply, toolCallReply } from '../fakes/ollama-server.js';
import { EVERYTHING_SERVER } from '../support/cli.js';
import { useChatTerminal } from '../support/chat-terminal.js';
import { tmuxAvailable, type TmuxTerminal } from '../support/tmux.js';
import { unwrapped } from '../support/untrusted.js';

const hasTmux = tmuxAvailable();
if (!hasTmux)
  console.warn('tmux is not installed: skipping the kept-permission terminal tests (apt-get install tmux)');

const QUESTION = 'Allow? [y] once  [t] always this tool  [s] always this server';

const fixture = useChatTerminal({
  config: {
    mcpServers: { everything: EVERYTHING_SERVER },
    approval: {
      default: 'allow',
      rules: [
        { tool: 'everything__echo', decision: 'ask' },
        { tool: 'everything__get-sum', decision: 'ask' },
      ],
    },
  },
});
let project: string;

beforeEach(async () => {
  project = join(fixture.home.path, 'project');
  await mkdir(project);
  // A prompt "sum …" makes the model call get-sum, any other echo; with a result, it repeats it.
  await fixture.startModel([], {
    fallback: (request) => {
      const last = request.messages.at(-1);
      if (last?.role === 'tool')
        return textReply(`model saw: ${unwrapped(last.content).replace(/\s+/g, ' ')}`);
      const prompt = last?.content ?? '';
      return prompt.startsWith('sum')
        ? toolCallReply(['everything__get-sum', { a: 2, b: prompt.length }])
        : toolCallReply(['everything__echo', { message: `echo of ${prompt}` }]);
    },
  });
});

/** A new chat in the project folder (the last one closed first), at its first prompt. */
function startChat(): Promise<TmuxTerminal> {
  return fixture.startChat({ args: ['--no-color'], cwd: project, columns: 200 });
}

function enter(chat: TmuxTerminal, text: string): void {
  chat.type(text);
  chat.keys('Enter');
}

function questions(screen: string): number {
  return screen.split(QUESTION).length - 1;
}

/** Ends the chat with Ctrl-D; it must exit cleanly (the kept answer is on disk by then). */
async function quit(chat: TmuxTerminal): Promise<void> {
  chat.keys('C-d');
  expect(await chat.waitForExit()).toBe(0);
}

// Three chats each (a few seconds apiece): more time than one run's default.
describe.skipIf(!hasTmux)('kept permissions in the chat', () => {
  it('keeps tk for the folder: the next chat runs the tool unasked; /permissions lists and removes it', async () => {
    let chat = await startChat();
    enter(chat, 'alpha');
    await chat.waitFor(QUESTION);
    enter(chat, 'tk');
    await chat.waitFor('model saw: Echo: echo of alpha');
    await quit(chat);

    chat = await startChat();
    enter(chat, 'beta');
    let screen = await chat.waitFor('model saw: Echo: echo of beta');
    expect(questions(screen)).toBe(0);
    // Only that tool was kept: another tool of the server still asks.
    enter(chat, 'sum it');
    await chat.waitFor(QUESTION);
    enter(chat, 'n not now');
    await chat.waitFor(/model saw: .*not now/);

    enter(chat, '/permissions');
    screen = await chat.waitFor('Remove with /permissions remove N');
    expect(screen).toContain(`Kept for ${await realpath(project)}`);
    expect(screen).toMatch(/ 1\. echo of everything {2}kept \d{4}-\d\d-\d\d \d\d:\d\d\n/);
    expect(screen).not.toMatch(/ 2\. /);

    enter(chat, '/permissions remove 1');
    await chat.waitFor(`Removed 1 kept permission for ${await realpath(project)}.`);
    enter(chat, '/permissions');
    await chat.waitFor('No "always allow" answer is kept for');

    // Removed: the next call asks again, in this chat and in the next one.
    enter(chat, 'gamma');
    await chat.waitFor((text) => questions(text) === 2);
    enter(chat, 'y');
    await chat.waitFor('model saw: Echo: echo of gamma');
    await quit(chat);

    chat = await startChat();
    enter(chat, 'delta');
    await chat.waitFor(QUESTION);
    enter(chat, 'n no');
    screen = await chat.waitFor(/model saw: .*denied/);
    expect(screen).not.toContain('Echo: echo of delta');
    await quit(chat);
  }, 60_000);

  it('s lasts for its chat only; sk keeps every tool of the server, and remove all takes it back', async () => {
    let chat = await startChat();
    enter(chat, 'alpha');
    await chat.waitFor(QUESTION);
    enter(chat, 's');
    await chat.waitFor('model saw: Echo: echo of alpha');
    // For the rest of this chat, every tool of the server runs unasked…
    enter(chat, 'sum it');
    let screen = await chat.waitFor('model saw: The sum of 2 and 6 is 8.');
    expect(questions(screen)).toBe(1);
    enter(chat, '/permissions');
    await chat.waitFor('No "always allow" answer is kept for');
    await quit(chat);

    // …but not in the next chat.
    chat = await startChat();
    enter(chat, 'beta');
    await chat.waitFor(QUESTION);
    enter(chat, 'sk');
    await chat.waitFor('model saw: Echo: echo of beta');
    await quit(chat);

    chat = await startChat();
    enter(chat, 'sum it up');
    screen = await chat.waitFor('model saw: The sum of 2 and 9 is 11.');
    expect(questions(screen)).toBe(0);
    enter(chat, '/permissions');
    screen = await chat.waitFor('Remove with /permissions remove N');
    expect(screen).toMatch(/ 1\. every tool of everything {2}kept /);

    enter(chat, '/permissions remove all');
    await chat.waitFor('Removed 1 kept permission for');
    await quit(chat);

    // Removed from the store too: the next chat asks again.
    chat = await startChat();
    enter(chat, 'gamma');
    await chat.waitFor(QUESTION);
    enter(chat, 'y');
    await chat.waitFor('model saw: Echo: echo of gamma');
    await quit(chat);
  }, 60_000);
});
