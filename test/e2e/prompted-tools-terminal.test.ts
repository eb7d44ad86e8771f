/**
 * Prompted tool calling in the chat, in a real terminal (tmux, the BUILT CLI, the fake Ollama whose
 * gemma3:4b lacks the `tools` capability, a real server-memory): the one line says the mode is on,
 * the call runs, and the screen shows the answer's text only, never the JSON it came in (issue 41).
 * Skipped, saying why, only when tmux is not installed.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatReply } from '../fakes/ollama-server.js';
import { npmServerConfig } from '../support/cli.js';
import { useChatTerminal } from '../support/chat-terminal.js';
import { tmuxAvailable } from '../support/tmux.js';

const hasTmux = tmuxAvailable();
if (!hasTmux)
  console.warn('tmux is not installed: skipping the prompted tools terminal test (apt-get install tmux)');

const fixture = useChatTerminal();
const GEMMA = 'gemma3:4b';

describe.skipIf(!hasTmux)('prompted tool calling in the chat', () => {
  it('says so once, runs the call and shows only the answer text', async () => {
    const folder = await fixture.temporaryFolder('mcphost-prompted-tty-');
    await fixture.home.writeConfig({
      mcpServers: {
        memory: { ...npmServerConfig('memory'), env: { MEMORY_FILE_PATH: join(folder, 'memory.jsonl') } },
      },
    });
    await fixture.startModel(
      [
        formatReply({ calls: [{ name: 'memory__read_graph', arguments: {} }], answer: '' }),
        formatReply({ calls: [], answer: 'Your graph is empty: nothing remembered yet.' }),
      ],
      { models: [GEMMA], withoutTools: [GEMMA] },
    );
    const tty = await fixture.startChat({
      args: ['--no-color', '-m', `ollama:${GEMMA}`],
      columns: 200,
      ready: GEMMA,
    });
    tty.type('what do you remember?');
    tty.keys('Enter');
    const screen = await tty.waitFor('nothing remembered yet.');
    expect(screen).toContain(`prompted tool calling on: ollama:${GEMMA} has no native tool calling`);
    expect(screen.split('prompted tool calling on').length - 1).toBe(1);
    expect(screen).toContain('memory__read_graph');
    expect(screen).toContain('Your graph is empty: nothing remembered yet.');
    expect(screen).not.toContain('"calls"');
    expect(screen).not.toContain('"answer"');
  });
});
