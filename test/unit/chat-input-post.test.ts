/**
 * ChatInput.post: a message that was not typed (an MCP App's `ui/message`) is taken at once at an
 * idle prompt — what was typed there waits in the next prompt — and waits its turn, after the lines
 * typed before it, while no prompt is shown (a turn runs). On a fake terminal.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ChatInput } from '../../src/cli/chat/chat-input.js';
import { createStyle } from '../../src/cli/chat/style.js';

function fakeTerminal() {
  const input = Object.assign(new PassThrough(), { isTTY: true, isRaw: false, setRawMode: () => input });
  const output = Object.assign(new PassThrough(), { isTTY: true, columns: 80, rows: 24 });
  return { input, output };
}

function chatInput(terminal: ReturnType<typeof fakeTerminal>): ChatInput {
  return new ChatInput({
    input: terminal.input,
    output: terminal.output,
    terminal: true,
    history: [],
    style: createStyle(false),
    onInterrupt: () => undefined,
    onEnd: () => undefined,
  });
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('ChatInput.post', () => {
  it('is taken at once at an idle prompt; the half-typed line waits in the next prompt', async () => {
    const terminal = fakeTerminal();
    const chat = chatInput(terminal);
    try {
      const first = chat.nextEntry('> ');
      terminal.input.write('half');
      await tick();
      chat.post('/quit is text here', 'app dash__show', 'context\n\n/quit is text here');
      expect(await first).toEqual({
        kind: 'posted',
        text: '/quit is text here',
        from: 'app dash__show',
        prompt: 'context\n\n/quit is text here',
      });
      const second = chat.nextEntry('> ');
      terminal.input.write(' typed\r');
      expect(await second).toEqual({ kind: 'typed', text: 'half typed' });
    } finally {
      chat.close();
    }
  });

  it('waits, while no prompt is shown, after the lines typed before it', async () => {
    const terminal = fakeTerminal();
    const chat = chatInput(terminal);
    try {
      // No prompt asked for: a turn is running.
      terminal.input.write('typed first\r');
      await tick();
      chat.post('from the app', 'app dash__show');
      terminal.input.write('typed after\r');
      await tick();
      expect(await chat.nextEntry('> ')).toEqual({ kind: 'typed', text: 'typed first' });
      expect(await chat.nextEntry('> ')).toEqual({
        kind: 'posted',
        text: 'from the app',
        from: 'app dash__show',
        prompt: 'from the app',
      });
      expect(await chat.nextEntry('> ')).toEqual({ kind: 'typed', text: 'typed after' });
    } finally {
      chat.close();
    }
  });

  it('waits while a question is open at the prompt', async () => {
    const terminal = fakeTerminal();
    const chat = chatInput(terminal);
    try {
      const entry = chat.nextEntry('> ');
      const answer = chat.ask('Allow? ');
      await tick();
      chat.post('from the app', 'app dash__show');
      terminal.input.write('y\r');
      expect(await answer).toBe('y');
      expect(await entry).toEqual({
        kind: 'posted',
        text: 'from the app',
        from: 'app dash__show',
        prompt: 'from the app',
      });
    } finally {
      chat.close();
    }
  });
});
