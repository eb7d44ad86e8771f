/**
 * `@path` in the chat, in a real terminal (tmux, the BUILT CLI): Tab completes a file name, the
 * model receives the file, and a missing file fails the turn in one line with nothing sent.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { textReply } from '../fakes/ollama-server.js';
import { useChatTerminal } from '../support/chat-terminal.js';
import { tmuxAvailable } from '../support/tmux.js';

const hasTmux = tmuxAvailable();

const fixture = useChatTerminal();
let work: string;

beforeEach(async () => {
  work = await fixture.temporaryFolder('mcphost-work-');
  await mkdir(join(work, 'docs'));
  await writeFile(join(work, 'docs', 'plan-for-today.md'), 'step one: water the plants\n');
});

describe.skipIf(!hasTmux)('@path in the chat', () => {
  it('completes a path with Tab and sends the file; a missing one is refused before sending', async () => {
    const ollama = await fixture.startModel([
      (request) => {
        const user = request.messages.filter((message) => message.role === 'user').at(-1);
        return textReply(`model got: ${user?.content.split('\n').join(' / ') ?? ''}`);
      },
    ]);
    const chat = await fixture.startChat({ cwd: work });
    chat.type('read @./do');
    chat.keys('Tab');
    await chat.waitFor('read @./docs/');
    chat.type('pl');
    chat.keys('Tab');
    await chat.waitFor('read @./docs/plan-for-today.md');
    chat.keys('Enter');
    // The chat wraps the reply to the terminal's width: compare with the line breaks as spaces.
    await chat.waitFor((screen) => screen.replace(/\s+/g, ' ').includes('step one: water the plants'));
    expect(chat.capture()).toContain('model got: read @./docs/plan-for-today.md');

    chat.type('and @./docs/gone.md');
    chat.keys('Enter');
    await chat.waitFor('@./docs/gone.md: no such file');
    // Only the first turn reached the model.
    expect(ollama.chatRequests).toHaveLength(1);
  });
});
