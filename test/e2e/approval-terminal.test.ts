/**
 * The approval question in the chat, in a real terminal (tmux) with the BUILT CLI: an `ask` rule
 * stops a tool call until the user answers, and each answer does what it says.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { textReply, toolCallReply } from '../fakes/ollama-server.js';
import { EVERYTHING_SERVER } from '../support/cli.js';
import { useChatTerminal } from '../support/chat-terminal.js';
import { tmuxAvailable } from '../support/tmux.js';
import { unwrapped } from '../support/untrusted.js';

const hasTmux = tmuxAvailable();
if (!hasTmux)
  console.warn('tmux is not installed: skipping the terminal approval tests (apt-get install tmux)');

const QUESTION = 'Allow? [y] once  [t] always this tool  [s] always this server';

const fixture = useChatTerminal({
  config: {
    mcpServers: { everything: EVERYTHING_SERVER },
    approval: { default: 'allow', rules: [{ tool: 'everything__echo', decision: 'ask' }] },
  },
});

beforeEach(async () => {
  // Every prompt makes the model call echo; once it has a result, it repeats what the tool said.
  await fixture.startModel([], {
    fallback: (request) => {
      const last = request.messages.at(-1);
      return last?.role === 'tool'
        ? textReply(`model saw: ${unwrapped(last.content).replace(/\s+/g, ' ')}`)
        : toolCallReply(['everything__echo', { message: `echo of ${last?.content ?? ''}` }]);
    },
  });
});

describe.skipIf(!hasTmux)('approving tool calls in the chat', () => {
  it('denies with a reason, allows once, then always for the tool', async () => {
    const chat = await fixture.startChat({ args: ['--no-color'], columns: 200, ready: 'mistral-small' });

    chat.type('alpha');
    chat.keys('Enter');
    let screen = await chat.waitFor(QUESTION);
    expect(screen).toContain('everything__echo');
    expect(screen).toContain('echo of alpha');
    chat.type('n not today');
    chat.keys('Enter');
    screen = await chat.waitFor(/model saw: .*denied.*not today/);
    expect(screen).not.toContain('Echo: echo of alpha');

    chat.type('beta');
    chat.keys('Enter');
    await chat.waitFor((text) => text.split(QUESTION).length === 3);
    chat.type('y');
    chat.keys('Enter');
    await chat.waitFor('model saw: Echo: echo of beta');

    chat.type('gamma');
    chat.keys('Enter');
    await chat.waitFor((text) => text.split(QUESTION).length === 4);
    chat.type('t');
    chat.keys('Enter');
    await chat.waitFor('model saw: Echo: echo of gamma');

    // "Always this tool": the next call runs without a question.
    chat.type('delta');
    chat.keys('Enter');
    screen = await chat.waitFor('model saw: Echo: echo of delta');
    expect(screen.split(QUESTION)).toHaveLength(4);

    chat.keys('C-d');
    expect(await chat.waitForExit()).toBe(0);
  });

  it('always deny: the call is refused, and later calls of the tool are refused without a question', async () => {
    const chat = await fixture.startChat({ args: ['--no-color'], columns: 200, ready: 'mistral-small' });
    chat.type('alpha');
    chat.keys('Enter');
    await chat.waitFor(QUESTION);
    chat.type('x');
    chat.keys('Enter');
    await chat.waitFor(/model saw: .*denied/);

    chat.type('beta');
    chat.keys('Enter');
    const screen = await chat.waitFor(/model saw: .*denied every call to everything__echo for this session/);
    expect(screen.split(QUESTION)).toHaveLength(2);
    expect(screen).not.toContain('Echo: echo of');

    chat.keys('C-d');
    expect(await chat.waitForExit()).toBe(0);
  });
});
