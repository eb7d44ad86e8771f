/**
 * A subagent's tool call asking for approval in the chat, in a real terminal (tmux) with the BUILT
 * CLI: the question names the agent, the answer reaches the child, the child's call shows indented
 * under the agent call, and its file is written (server-filesystem from npm).
 */
import { mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { textReply, toolCallReply, type FakeChatRequest } from '../fakes/ollama-server.js';
import { npmServerConfig } from '../support/cli.js';
import { useChatTerminal } from '../support/chat-terminal.js';
import { tmuxAvailable } from '../support/tmux.js';
import { unwrapped } from '../support/untrusted.js';

const hasTmux = tmuxAvailable();
if (!hasTmux) console.warn('tmux is not installed: skipping the terminal agent tests (apt-get install tmux)');

const folder = realpathSync(mkdtempSync(join(tmpdir(), 'mcphost-agents-')));
const target = join(folder, 'hello.txt');

const fixture = useChatTerminal({
  config: {
    mcpServers: { filesystem: npmServerConfig('filesystem', folder) },
    agents: {
      writer: {
        description: 'Writes files.',
        tools: ['filesystem__write_file'],
        systemPrompt: 'You write files.',
      },
    },
  },
});

function offers(request: FakeChatRequest, name: string): boolean {
  return (request.tools ?? []).some((tool) => tool.function.name === name);
}

beforeEach(async () => {
  await fixture.startModel([], {
    fallback: (request) => {
      const last = request.messages.at(-1);
      if (offers(request, 'agent')) {
        // The parent: hand the task over, then report what the agent said.
        return last?.role === 'tool'
          ? textReply(`parent saw: ${unwrapped(last.content).replace(/\s+/g, ' ').slice(0, 80)}`)
          : toolCallReply(['agent', { agent: 'writer', task: `write hello to ${target}` }]);
      }
      // The child: write the file, then answer.
      return last?.role === 'tool'
        ? textReply('child wrote the file')
        : toolCallReply(['filesystem__write_file', { path: target, content: 'hello from the writer' }]);
    },
  });
});

describe.skipIf(!hasTmux)('an agent in the chat', () => {
  it("asks for its write naming the agent, and shows its calls under the agent's", async () => {
    const chat = await fixture.startChat({ args: ['--no-color'], columns: 200, ready: 'mistral-small' });
    chat.type('please write the file');
    chat.keys('Enter');
    let screen = await chat.waitFor('Allow? [y] once');
    // Handing off the task was not asked about; the write is, and the question names the agent.
    expect(screen).toContain('The agent "writer" wants to run a tool that needs your approval');
    expect(screen).toContain('filesystem__write_file');
    expect(screen.split('Allow? [y] once')).toHaveLength(2);
    chat.type('y');
    chat.keys('Enter');
    screen = await chat.waitFor('parent saw:');
    expect(screen).toContain('parent saw: child wrote the file');
    expect(screen).toMatch(/^ {2}\[writer\] → filesystem__write_file/m);
    expect(screen).toMatch(/⤶ writer \(ollama:mistral-small\) done: 2 steps/);
    expect(readFileSync(target, 'utf8')).toBe('hello from the writer');

    chat.type('/agents');
    chat.keys('Enter');
    screen = await chat.waitFor('Agent runs (1;');
    expect(screen).toMatch(/1\. writer\s+ollama:mistral-small · completed · 2 steps/);

    chat.keys('C-d');
    expect(await chat.waitForExit()).toBe(0);

    // The conversation was saved with the child's transcript: -c takes it up, runs and all.
    const resumed = await fixture.startChat({
      args: ['--no-color', '-c'],
      columns: 200,
      ready: 'mistral-small',
    });
    screen = await resumed.waitFor('agents: 1 run kept');
    resumed.type('/agents');
    resumed.keys('Enter');
    screen = await resumed.waitFor('Agent runs (1;');
    expect(screen).toMatch(/1\. writer\s+ollama:mistral-small · completed · 2 steps/);
    resumed.type('/agents 1');
    resumed.keys('Enter');
    screen = await resumed.waitFor('⤶ writer (ollama:mistral-small) done');
    expect(screen).toMatch(/^\[writer\] → filesystem__write_file/m);
    expect(screen).toMatch(/^\[writer\] {3}← filesystem__write_file/m);
    expect(screen).toContain('[writer] child wrote the file');
    // /history shows the child's calls under the agent call that ran it.
    resumed.type('/history');
    resumed.keys('Enter');
    screen = await resumed.waitFor('parent saw: child wrote the file');
    expect(screen).toMatch(/→ agent .*\n {12}\[writer\] → filesystem__write_file/);
    resumed.keys('C-d');
    expect(await resumed.waitForExit()).toBe(0);
  });
});
