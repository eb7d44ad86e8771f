/**
 * Built-in servers in the chat, in a real terminal (tmux, the BUILT CLI, the fake Ollama): the
 * hint when no server is configured, and bash asking before it runs a command. Skipped, saying
 * why, only when tmux is not installed.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { textReply, toolCallReply } from '../fakes/ollama-server.js';
import { useChatTerminal } from '../support/chat-terminal.js';
import { tmuxAvailable, type TmuxTerminal } from '../support/tmux.js';
import { unwrapped } from '../support/untrusted.js';

const hasTmux = tmuxAvailable();
if (!hasTmux)
  console.warn('tmux is not installed: skipping the built-in terminal tests (apt-get install tmux)');

const QUESTION = 'Allow? [y] once  [t] always this tool  [s] always this server';

const fixture = useChatTerminal();
let work: string;

beforeEach(async () => {
  work = await fixture.temporaryFolder('mcphost-builtin-tty-');
});

function chat(args: readonly string[]): Promise<TmuxTerminal> {
  return fixture.startChat({
    args: ['--no-color', ...args],
    cwd: work,
    columns: 200,
    ready: 'mistral-small',
  });
}

describe.skipIf(!hasTmux)('built-in servers in the chat', () => {
  it('says how to add servers when none is configured', async () => {
    await fixture.startModel([]);
    const screen = await (await chat([])).waitFor('No MCP servers are configured');
    expect(screen).toContain('0 tools from 0 servers');
    expect(screen).toContain('Try `mcphost --builtin fs,todo`');
  });

  it('asks before a bash command, and runs it once allowed', async () => {
    const marker = join(work, 'made-by-bash');
    await fixture.startModel([], {
      fallback: (request) => {
        const last = request.messages.at(-1);
        return last?.role === 'tool'
          ? textReply(`model saw: ${unwrapped(last.content).replace(/\s+/g, ' ')}`)
          : toolCallReply(['bash__run_command', { command: `touch ${marker} && echo touched` }]);
      },
    });
    const tty = await chat(['--builtin', 'bash,todo']);
    expect(tty.capture()).not.toContain('No MCP servers are configured');
    tty.type('make the file');
    tty.keys('Enter');
    const asked = await tty.waitFor(QUESTION);
    expect(asked).toContain('bash__run_command');
    expect(existsSync(marker)).toBe(false);
    tty.type('y');
    tty.keys('Enter');
    await tty.waitFor('model saw: touched [exit code 0]');
    expect(existsSync(marker)).toBe(true);
  });
});
