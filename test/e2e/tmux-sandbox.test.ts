/**
 * The sandbox in the chat, in a real terminal (tmux) with the built CLI: under `--sandbox` the
 * approval question for a `bash` command says it runs sandboxed, and the command meets a
 * read-only file system; without it, the question says it runs with the user's rights.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { textReply, toolCallReply } from '../fakes/ollama-server.js';
import { useChatTerminal } from '../support/chat-terminal.js';
import { requireSandboxSupport } from '../support/sandbox.js';
import { tmuxAvailable } from '../support/tmux.js';
import { unwrapped } from '../support/untrusted.js';

const hasTmux = tmuxAvailable();
if (!hasTmux)
  console.warn('tmux is not installed: skipping the terminal sandbox tests (apt-get install tmux)');
requireSandboxSupport();

const QUESTION = 'Allow? [y] once';

const fixture = useChatTerminal({ config: { mcpServers: {} } });

beforeEach(async () => {
  await fixture.startModel([], {
    fallback: (request) => {
      const last = request.messages.at(-1);
      return last?.role === 'tool'
        ? textReply(`model saw: ${unwrapped(last.content).replace(/\s+/g, ' ')}`)
        : toolCallReply(['bash__run_command', { command: 'touch /usr/mcphost-x; echo tried' }]);
    },
  });
});

describe.skipIf(!hasTmux)('the sandbox in the chat', () => {
  it('the approval question says bash runs sandboxed, and it does', async () => {
    const chat = await fixture.startChat({
      args: ['--no-color', '--builtin', 'bash', '--sandbox'],
      columns: 200,
      ready: 'mistral-small',
    });
    chat.type('touch something');
    chat.keys('Enter');
    const screen = await chat.waitFor(QUESTION);
    expect(screen).toContain('  sandbox:   yes');
    chat.type('y');
    chat.keys('Enter');
    await chat.waitFor(/model saw: .*Read-only file system.*tried/);
    chat.keys('C-d');
    expect(await chat.waitForExit()).toBe(0);
  });

  it('without --sandbox, it says bash runs with your full rights', async () => {
    const chat = await fixture.startChat({
      args: ['--no-color', '--builtin', 'bash'],
      columns: 200,
      ready: 'mistral-small',
    });
    chat.type('touch something');
    chat.keys('Enter');
    const screen = await chat.waitFor(QUESTION);
    expect(screen).toContain('  sandbox:   no (it runs with your full rights)');
    chat.type('n');
    chat.keys('Enter');
    chat.keys('Enter');
    await chat.waitFor(/model saw: .*denied/);
    chat.keys('C-d');
    expect(await chat.waitForExit()).toBe(0);
  });
});
