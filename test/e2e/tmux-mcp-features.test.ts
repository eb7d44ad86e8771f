/**
 * Server offerings in the chat, in a real terminal (tmux, the BUILT CLI): `/prompts`,
 * `/resources`, a `/server:prompt` whose missing argument the chat asks for, and a form
 * elicitation answered field by field, a bad e-mail address refused as it is typed.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { textReply, toolCallReply } from '../fakes/ollama-server.js';
import { REPOSITORY, EVERYTHING_SERVER } from '../support/cli.js';
import { useChatTerminal } from '../support/chat-terminal.js';
import { tmuxAvailable, type TmuxTerminal } from '../support/tmux.js';
import { unwrapped } from '../support/untrusted.js';

const hasTmux = tmuxAvailable();
const OFFERINGS = {
  command: process.execPath,
  args: [join(REPOSITORY, 'test/fixtures/servers/offerings.mjs')],
};

const fixture = useChatTerminal({
  // Not a test of approval: the user allows every tool (the chat asks before any that does not
  // say it is read-only, as the elicitation triggers do).
  config: {
    mcpServers: { everything: EVERYTHING_SERVER, offerings: OFFERINGS },
    approval: { default: 'allow' },
  },
});

/** Types a line and presses Enter. */
function enter(chat: TmuxTerminal, text: string): void {
  if (text !== '') chat.type(text);
  chat.keys('Enter');
}

describe.skipIf(!hasTmux)('server offerings in the chat', () => {
  it('lists prompts and resources, and asks for a prompt argument that is missing', async () => {
    await fixture.startModel([
      (request) => textReply(`model got: ${unwrapped(request.messages.at(-1)?.content ?? '')}`),
    ]);
    const chat = await fixture.startChat();
    enter(chat, '/prompts');
    await chat.waitFor('takes name (required: Who to greet), mood');
    expect(chat.capture()).toContain('/everything:args-prompt');
    enter(chat, '/resources offerings');
    await chat.waitFor('@offerings:fixture://broken');
    enter(chat, '/help');
    await chat.waitFor('list prompts; run one with /server:prompt [args]');

    enter(chat, '/offerings:greet');
    await chat.waitFor('/offerings:greet needs name (Who to greet):');
    enter(chat, 'Ada');
    await chat.waitFor('model got: Say hello to Ada');
  });

  it('asks a form elicitation field by field and sends the checked answer', async () => {
    await fixture.startModel([
      toolCallReply(['everything__trigger-elicitation-request', {}]),
      (request) => textReply(`tool said: ${unwrapped(request.messages.at(-1)?.content ?? '')}`),
    ]);
    const chat = await fixture.startChat();
    enter(chat, 'ask me things');
    await chat.waitFor('Server "everything" asks for input: Please provide inputs for the following fields:');
    await chat.waitFor('Answer? [y] fill in  [n] decline  [c] cancel:');
    enter(chat, 'y');
    await chat.waitFor('name "String" — Your full, legal name (text, required):');
    enter(chat, 'Ada Lovelace');
    await chat.waitFor('check "Boolean"');
    enter(chat, 'y');
    await chat.waitFor('firstLine');
    enter(chat, '');
    await chat.waitFor('email "String with email format"');
    enter(chat, 'not-an-address');
    await chat.waitFor('must match format "email"');
    enter(chat, 'ada@example.com');
    for (const next of [
      'homepage',
      'birthdate',
      'integer',
      'number',
      'untitledSingleSelectEnum',
      'untitledMultipleSelectEnum',
      'titledSingleSelectEnum',
      'titledMultipleSelectEnum',
      'legacyTitledEnum',
    ]) {
      await chat.waitFor(`${next} "`);
      enter(chat, next === 'integer' ? '7' : '');
    }
    const screen = await chat.waitFor(/tool said:[\s\S]*Favorite Integer: 7/);
    expect(screen).toContain('Name: Ada Lovelace');
    expect(screen).toContain('Email: ada@example.com');
    expect(screen).toContain('Agreed to terms: true');
  });
});
