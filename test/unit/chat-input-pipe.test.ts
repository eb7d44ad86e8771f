/**
 * The chat's input without a terminal (a pipe, as in `printf 'hi\ny\n' | mcphost`): a question in
 * the middle of a turn (a tool's approval) is shown and answered by the next line. It once threw
 * inside readline instead, so every approval on a pipe was denied with "no answer".
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ChatInput } from '../../src/cli/chat/chat-input.js';
import { createStyle } from '../../src/cli/chat/style.js';

function pipe() {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = '';
  output.on('data', (chunk: Buffer) => (shown += chunk.toString()));
  const chat = new ChatInput({
    input,
    output,
    terminal: false,
    history: [],
    style: createStyle(false),
    onInterrupt: () => undefined,
    onEnd: () => undefined,
  });
  return { input, chat, shown: () => shown };
}

describe('ChatInput on a pipe', () => {
  it('shows a question and answers it with the next line, written after it for a transcript', async () => {
    const { input, chat, shown } = pipe();
    try {
      const entry = chat.next('> ');
      input.write('run the tool\n');
      expect(await entry).toBe('run the tool');

      const answer = chat.ask('Allow? ');
      // The question is shown on a later turn of the loop (questions take turns).
      await expect.poll(shown).toContain('Allow? ');
      input.write('tk\n');
      expect(await answer).toBe('tk');
      expect(shown()).toBe('> run the tool\nAllow? tk\n');

      // The line after the answer is the next entry, not a second answer.
      const next = chat.next('> ');
      input.write('after\n');
      expect(await next).toBe('after');
    } finally {
      chat.close();
    }
  });
});
