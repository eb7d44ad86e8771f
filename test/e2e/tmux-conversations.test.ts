/**
 * The chat's own conversation features in a real terminal (tmux, the BUILT CLI, the loopback fake
 * Ollama): `/resume`. Skipped, saying why, only when tmux is not installed.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { textReply } from '../fakes/ollama-server.js';
import { runCli } from '../support/cli.js';
import { useChatTerminal } from '../support/chat-terminal.js';
import { tmuxAvailable, type TmuxTerminal } from '../support/tmux.js';

const hasTmux = tmuxAvailable();
if (!hasTmux) console.warn('tmux is not installed: skipping the terminal tests (apt-get install tmux)');

const fixture = useChatTerminal({ config: { mcpServers: {} } });
let project: string;

beforeEach(async () => {
  project = join(fixture.home.path, 'project');
  await mkdir(project);
  await fixture.startModel([], { fallback: textReply('an answer') });
});

function startChat(args: readonly string[] = []): Promise<TmuxTerminal> {
  return fixture.startChat({ args, cwd: project });
}

/** `mcphost ...args --provider-url URL` to completion, in the project folder. */
function mcphost(...args: string[]) {
  return runCli([...args, '--provider-url', fixture.model.url], fixture.home.path, { cwd: project });
}

/** The text of the messages of the fake's last request, role by role. */
/** The conversation of the model's last request; the system message (mcphost's own clause) left out. */
function lastConversation(): string[] {
  return (fixture.model.chatRequests.at(-1)?.messages ?? [])
    .filter((message) => message.role !== 'system')
    .map((message) => `${message.role}: ${message.content}`);
}

describe.skipIf(!hasTmux)('/resume in the chat', () => {
  it("lists this folder's conversations, takes the chosen one up, says so, and goes on saving in it", async () => {
    // Two saved conversations of this folder, the older first.
    expect((await mcphost('-p', 'tell me about otters')).code).toBe(0);
    expect((await mcphost('-p', 'the newest question')).code).toBe(0);

    const chat = await startChat();
    chat.type('/resume');
    chat.keys('Enter');
    const listed = await chat.waitFor('resume which (1-2, Enter for none)?');
    // Newest first, with size and first prompt, as `--resume` lists them.
    expect(listed).toMatch(/ 1\. \d{4}-\d\d-\d\d \d\d:\d\d {2}2 messages, \d+ B\s+the newest question/);
    expect(listed).toMatch(/ 2\. .*2 messages, .*tell me about otters/);
    chat.type('2');
    chat.keys('Enter');
    const taken = await chat.waitFor('model: an answer');
    expect(taken).toMatch(/continuing [\w-]+: 2 messages\n\s+you: tell me about otters\n\s+model: an answer/);

    chat.type('and sea otters?');
    chat.keys('Enter');
    await chat.waitFor(/an answer[\s\S]*an answer[\s\S]*›/);
    expect(lastConversation()).toEqual([
      'user: tell me about otters',
      'assistant: an answer',
      'user: and sea otters?',
    ]);
    chat.keys('C-d');
    expect(await chat.waitForExit()).toBe(0);

    // The turn went on in the conversation taken up: -c (the latest) now continues it, 4 messages.
    const continued = await mcphost('-c', '-p', 'one more');
    expect(continued.stderr).toMatch(/continuing [\w-]+: 4 messages\n\s+you: and sea otters\?/);
  });

  it('/resume N takes one up at once; a wrong number says what to give', async () => {
    expect((await mcphost('-p', 'only question')).code).toBe(0);
    const chat = await startChat(['--no-session-persistence']);
    chat.type('/resume 5');
    chat.keys('Enter');
    await chat.waitFor('Could not resume: there is no conversation 5: give 1-1 or an id');
    chat.type('/resume 1');
    chat.keys('Enter');
    await chat.waitFor(/continuing [\w-]+: 2 messages/);
    chat.type('/history');
    chat.keys('Enter');
    await chat.waitFor('only question');
    chat.keys('C-d');
    expect(await chat.waitForExit()).toBe(0);
  });
});
