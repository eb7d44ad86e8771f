/**
 * Sampling, roots and URL elicitation in the chat, in a real terminal (tmux, the BUILT CLI): the
 * user reviews a server's model request and then the model's answer before it goes back; `/roots`
 * lists the folders and `/roots add DIR` reaches a running server-filesystem; a URL the user agrees
 * to open is printed when there is no browser (no DISPLAY in the terminal's environment).
 */
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textReply, toolCallReply } from '../fakes/ollama-server.js';
import { REPOSITORY, npmServerConfig } from '../support/cli.js';
import { useChatTerminal } from '../support/chat-terminal.js';
import { tmuxAvailable, type TmuxTerminal } from '../support/tmux.js';
import { unwrapped } from '../support/untrusted.js';

const hasTmux = tmuxAvailable();
const fixtureServer = (name: string) => ({
  command: process.execPath,
  args: [join(REPOSITORY, `test/fixtures/servers/${name}.mjs`)],
});

const fixture = useChatTerminal();
let folders: string;

beforeAll(async () => {
  // server-filesystem reports real paths: /tmp may be a link.
  folders = await realpath(await mkdtemp(join(tmpdir(), 'mcphost-tmux-roots-')));
});
afterAll(async () => {
  await rm(folders, { recursive: true, force: true });
});

/** A chat on `config`, in a terminal whose environment has no DISPLAY (so no browser). */
async function startChat(config: object, ...flags: string[]): Promise<TmuxTerminal> {
  // Not a test of approval: the user allows every tool (the chat asks before any that does not
  // say it is read-only, as the sampling and elicitation triggers do).
  await fixture.home.writeConfig({ ...config, approval: { default: 'allow' } });
  return fixture.startChat({ args: flags });
}

function enter(chat: TmuxTerminal, text: string): void {
  if (text !== '') chat.type(text);
  chat.keys('Enter');
}

/** The model's last input: the tool's answer, without the untrusted-content wrapper. */
const toolSaid = (request: { messages: ReadonlyArray<{ content?: string }> }) =>
  textReply(`tool said: ${unwrapped(request.messages.at(-1)?.content ?? '')}`);

/**
 * Whether the screen shows `text`, whitespace aside: the chat renders replies as Markdown (lines
 * join) and wraps them to the terminal's width, which depends on the folder's length.
 */
const said = (text: string) => (screen: string) => screen.replace(/\s+/g, ' ').includes(text);

describe.skipIf(!hasTmux)('sampling, roots and URL elicitation in the chat', () => {
  it("shows a server's sampling request, then the model's answer before it goes back", async () => {
    const ollama = await fixture.startModel([
      toolCallReply(['sampler__sample', { prompt: 'name a colour', maxTokens: 30 }]),
      textReply('teal'),
      toolSaid,
    ]);
    const chat = await startChat({ mcpServers: { sampler: fixtureServer('sampler') } });
    enter(chat, 'Try sampling.');
    await chat.waitFor('Send it to the model? [y] yes  [n] no (n REASON tells the server why):');
    const request = chat.capture();
    expect(request).toContain(
      'Server "sampler" asks to use the model (sampling). Nothing of it enters the conversation.',
    );
    expect(request).toContain('  system:     You are the sampler fixture.');
    expect(request).toContain('  user        name a colour');
    expect(request).toContain('  max tokens: 30');
    // Nothing is sent before the user says so: only the conversation's first call so far.
    expect(ollama.chatRequests).toHaveLength(1);
    enter(chat, 'y');

    await chat.waitFor('Return this answer to the server? [y] yes  [n] no:');
    expect(chat.capture()).toContain(
      `The model answered server "sampler"'s request (mistral-small):\n  teal`,
    );
    // The answer is on screen and the server still waits for it: the tool has not returned.
    expect(ollama.chatRequests).toHaveLength(2);
    enter(chat, 'y');
    await chat.waitFor('tool said: result: {"model":"mistral-small"');
    expect(chat.capture()).toContain('"text":"teal"');
  });

  it('tells the server the reason when the user refuses the request', async () => {
    const ollama = await fixture.startModel([toolCallReply(['sampler__sample', { prompt: 'hi' }]), toolSaid]);
    const chat = await startChat({ mcpServers: { sampler: fixtureServer('sampler') } });
    enter(chat, 'Try sampling.');
    await chat.waitFor('Send it to the model?');
    enter(chat, 'n not today');
    await chat.waitFor(/tool said: error: -1 .*not today/);
    // The refused request never reached the model.
    expect(ollama.chatRequests).toHaveLength(2);
  });

  it('lists the roots, and /roots add reaches a running server-filesystem', async () => {
    const first = join(folders, 'first');
    const added = join(folders, 'added');
    await Promise.all([mkdir(first), mkdir(added)]);
    await fixture.startModel([
      toolCallReply(['files__list_allowed_directories', {}]),
      toolSaid,
      toolCallReply(['files__list_allowed_directories', {}]),
      toolSaid,
    ]);
    const chat = await startChat({ mcpServers: { files: npmServerConfig('filesystem') } }, '--root', first);
    enter(chat, '/roots');
    await chat.waitFor(`Roots (the folders servers may work in):\n  ${first}`);
    enter(chat, 'Where may you work?');
    await chat.waitFor(said(`tool said: Allowed directories: ${first} `));
    expect(chat.capture()).not.toContain(added);

    enter(chat, `/roots add ${added}`);
    await chat.waitFor(`Roots (the folders servers may work in):\n  ${first}\n  ${added}`);
    enter(chat, 'And now?');
    await chat.waitFor(said(`tool said: Allowed directories: ${first} ${added} `));
  });

  it('prints the URL of a URL elicitation the user agrees to when there is no browser', async () => {
    const url = 'https://login.example.com/device';
    await fixture.startModel([toolCallReply(['offerings__open-url', { url }]), toolSaid]);
    const chat = await startChat({ mcpServers: { offerings: fixtureServer('offerings') } });
    enter(chat, 'sign in');
    await chat.waitFor('Open it in your browser? [y] yes  [n] no:');
    expect(chat.capture()).toContain(
      `Server "offerings" asks you to open a page: Sign in please\n  url:  ${url}\n  host: login.example.com`,
    );
    enter(chat, 'y');
    await chat.waitFor('No browser here: open the URL above yourself.');
    await chat.waitFor('tool said: answer: {"action":"accept"}');
  });
});
