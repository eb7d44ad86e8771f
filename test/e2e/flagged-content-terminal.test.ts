/**
 * The `ask` injection policy in the chat, in a real terminal (tmux) with the BUILT CLI: a fixture
 * server returns an injection hidden in Unicode tag characters; before the model sees it, the chat
 * shows the server, the tool, what was found and an excerpt with the hidden text made visible, and
 * each answer — show, redact, withhold — gives the model what it says.
 */
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { textReply, toolCallReply } from '../fakes/ollama-server.js';
import { REPOSITORY } from '../support/cli.js';
import { useChatTerminal } from '../support/chat-terminal.js';
import { tmuxAvailable } from '../support/tmux.js';

const hasTmux = tmuxAvailable();
if (!hasTmux) console.warn('tmux is not installed: skipping the flagged-content terminal test');

const QUESTION = 'Give it to the model? [s] show it  [r] redact the flagged parts  [w] withhold it';

const fixture = useChatTerminal({
  config: {
    mcpServers: {
      corpus: {
        command: process.execPath,
        args: [join(REPOSITORY, 'test/fixtures/servers/injection-corpus-server.mjs')],
      },
    },
    // Not a test of approval: the user allows every tool (the chat asks before any that does not
    // say it is read-only).
    approval: { default: 'allow' },
  },
});

beforeEach(async () => {
  // Every prompt makes the model read the same page; then it repeats what the tool said.
  await fixture.startModel([], {
    fallback: (request) => {
      const last = request.messages.at(-1);
      return last?.role === 'tool'
        ? textReply(`model saw: ${last.content.replace(/\s+/g, ' ')}`)
        : toolCallReply(['corpus__page', { id: 'rehberger-ascii-smuggling' }]);
    },
  });
});

describe.skipIf(!hasTmux)('flagged tool output under the ask policy, in the chat', () => {
  it('shows where it came from and why, and does what each answer says', async () => {
    const chat = await fixture.startChat({
      args: ['--no-color', '--injection-policy', 'ask'],
      columns: 200,
      rows: 60,
      ready: 'mistral-small',
    });

    chat.type('weather one');
    chat.keys('Enter');
    let screen = await chat.waitFor(QUESTION);
    expect(screen).toContain('from:      corpus__page');
    expect(screen).toContain('server:    corpus');
    expect(screen).toContain('hides text in Unicode tag characters');
    // The excerpt: the visible text, and the hidden tag characters spelled out.
    expect(screen).toMatch(/│ Here is the weather report for Seattle/);
    expect(screen).toMatch(/⟦hidden: .*Ignore/);
    // Nothing reached the model while the question is open.
    expect(fixture.model.requests.filter((request) => request.path === '/api/chat')).toHaveLength(1);
    chat.type('s');
    chat.keys('Enter');
    screen = await chat.waitFor(/model saw: .*weather report for Seattle.*⟦hidden: /);

    chat.type('weather two');
    chat.keys('Enter');
    await chat.waitFor((text) => text.split(QUESTION).length === 3);
    chat.type('r');
    chat.keys('Enter');
    screen = await chat.waitFor(/model saw: .*\[removed by mcphost: hidden-unicode\]/);

    chat.type('weather three');
    chat.keys('Enter');
    await chat.waitFor((text) => text.split(QUESTION).length === 4);
    chat.type('w');
    chat.keys('Enter');
    screen = await chat.waitFor(
      /model saw: .*withheld because it looks like a prompt injection.*the user chose not to show it/,
    );
    expect(screen).toMatch(/possible prompt injection in the result of corpus__page \(withheld\)/);

    chat.keys('C-d');
    expect(await chat.waitForExit()).toBe(0);
  });
});
