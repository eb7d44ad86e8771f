/**
 * A thinking model's reasoning in the chat, in a real terminal (tmux, the BUILT CLI, the fake
 * Ollama streaming `message.thinking` slowly): the status line counts it while it streams, and the
 * reasoning itself never reaches the screen, only the answer. Skipped, saying why, only when tmux
 * is not installed.
 */
import { describe, expect, it } from 'vitest';
import { useChatTerminal } from '../support/chat-terminal.js';
import { tmuxAvailable } from '../support/tmux.js';

const hasTmux = tmuxAvailable();
if (!hasTmux)
  console.warn('tmux is not installed: skipping the reasoning terminal test (apt-get install tmux)');

const fixture = useChatTerminal();

describe.skipIf(!hasTmux)('reasoning in the chat', () => {
  it('shows a count of it in the status line, then the answer without it', async () => {
    const thinking = ['Twelve characters', ' of a secret plan', ' and more of it'];
    await fixture.startModel([{ type: 'answer', thinking, text: ['Hello ', 'there!'], chunkDelayMs: 700 }], {
      models: ['qwen3:4b'],
    });
    const tty = await fixture.startChat({
      // Colours on: the status line is animated only in a rich terminal.
      args: ['-m', 'ollama:qwen3:4b'],
      columns: 160,
      ready: 'qwen3:4b ›',
    });
    tty.type('hi');
    tty.keys('Enter');
    const thinkingScreen = await tty.waitFor(/thinking · \d+ characters of reasoning/);
    expect(thinkingScreen).not.toContain('secret plan');
    const screen = await tty.waitFor('Hello there!');
    expect(screen).not.toContain('secret plan');
    expect(screen).not.toContain('characters of reasoning');
  });
});
