/**
 * A VS Code config's password input asked in a real terminal (tmux) before the chat starts: the
 * description shows, what is typed does not, and the server gets the value (server-everything's
 * environment, read by the fake model through its tool). Skipped only when tmux is not installed.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { textReply, toolCallReply } from '../fakes/ollama-server.js';
import { EVERYTHING_SERVER } from '../support/cli.js';
import { PROMPT, useChatTerminal } from '../support/chat-terminal.js';
import { tmuxAvailable } from '../support/tmux.js';
import { unwrapped } from '../support/untrusted.js';

const hasTmux = tmuxAvailable();
if (!hasTmux) console.warn('tmux is not installed: skipping the terminal tests (apt-get install tmux)');

const fixture = useChatTerminal();
const SECRET = 'hunter2-very-secret';

describe.skipIf(!hasTmux)("a VS Code config's inputs in the chat", () => {
  it('asks for a password input without echoing it, and gives it to the server', async () => {
    const file = join(fixture.home.path, '.config', 'Code', 'User', 'mcp.json');
    await mkdir(dirname(file), { recursive: true });
    await writeFile(
      file,
      JSON.stringify({
        inputs: [{ type: 'promptString', id: 'api-token', description: 'Your API token', password: true }],
        servers: {
          everything: { type: 'stdio', ...EVERYTHING_SERVER, env: { API_TOKEN: '${input:api-token}' } },
        },
      }),
    );
    await fixture.startModel([toolCallReply(['everything__get-env', {}]), textReply('got it')]);
    const chat = await fixture.startChat({ args: ['--approve-all'], ready: 'Your API token:' });
    expect(chat.capture()).toContain(`${file} asks for input "api-token" (hidden as you type)`);
    chat.type(SECRET);
    chat.keys('Enter');
    await chat.waitFor(PROMPT);
    // The scrollback included: the typed password never reached the screen.
    expect(chat.capture()).not.toContain(SECRET);
    chat.type('show the env');
    chat.keys('Enter');
    await chat.waitFor('got it');
    const request = fixture.model.chatRequests[1];
    const result = (request?.messages ?? []).filter((message) => message.role === 'tool').at(-1);
    expect(unwrapped(result?.content ?? '')).toContain(`"API_TOKEN": "${SECRET}"`);
  });
});
