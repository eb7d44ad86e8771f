/**
 * Skills in the chat, in a real terminal (tmux, the BUILT CLI): `/skills` lists a server's skills
 * and the user's own, and the model loads one through the `skill` tool without the chat asking
 * (the tool only reads skills).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { textReply, toolCallReply } from '../fakes/ollama-server.js';
import { REPOSITORY } from '../support/cli.js';
import { useChatTerminal } from '../support/chat-terminal.js';
import { tmuxAvailable, type TmuxTerminal } from '../support/tmux.js';
import { unwrapped } from '../support/untrusted.js';

const hasTmux = tmuxAvailable();

const fixture = useChatTerminal({
  config: {
    mcpServers: {
      docs: {
        command: process.execPath,
        args: [join(REPOSITORY, 'test/fixtures/servers/skills-server.mjs')],
      },
    },
  },
});

function enter(chat: TmuxTerminal, text: string): void {
  chat.type(text);
  chat.keys('Enter');
}

describe.skipIf(!hasTmux)('skills in the chat', () => {
  it('lists them with /skills, and the model loads one without a question', async () => {
    const folder = join(fixture.home.path, '.config', 'mcphost', 'skills', 'haiku');
    await mkdir(folder, { recursive: true });
    await writeFile(
      join(folder, 'SKILL.md'),
      '---\nname: haiku\ndescription: Answers in a haiku\n---\nAnswer in three lines: CHERRY-BLOSSOM-5.\n',
    );
    await fixture.startModel([
      toolCallReply(['skill', { name: 'haiku' }]),
      (request) =>
        textReply(`loaded: ${unwrapped(request.messages.at(-1)?.content ?? '').split('\n')[2] ?? ''}`),
    ]);
    const chat = await fixture.startChat();
    enter(chat, '/skills');
    await chat.waitFor('Answers in a haiku');
    const listing = chat.capture();
    expect(listing).toContain('docs:pdf-processing');
    expect(listing).toContain('server "docs"');
    expect(listing).toContain('Extract, fill, and assemble PDF documents');
    expect(listing).toContain(`your skills (${folder})`);

    enter(chat, 'write me a poem');
    await chat.waitFor('loaded: Answer in three lines: CHERRY-BLOSSOM-5.');
    expect(chat.capture()).not.toContain('Allow');
  });
});
