/**
 * The chat loop on plain pipes (no terminal): no escape sequence at all, and the end of the input
 * ends the chat. The chat in a (fake) terminal is in chat-terminal.test.ts.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ESC, startChat, useChatFolder, userTexts } from '../support/chat-fixtures.js';
import { textReply } from '../support/scripted-provider.js';

useChatFolder();

describe('the chat on plain pipes', () => {
  it('says how to add servers when none is configured', async () => {
    const chat = startChat({ terminal: false, replies: [] });
    chat.type('/quit\n');
    expect(await chat.finished).toBe(0);
    expect(chat.out()).toContain(
      'No MCP servers are configured, so the model has no tools. Try `mcphost --builtin fs,todo`',
    );
  });

  it('runs turns and commands with no escape sequence at all, keeping the history across turns', async () => {
    const chat = startChat({
      terminal: false,
      replies: [textReply('# Hi\n\n**there**'), textReply('Again.')],
    });
    chat.type('hello\n/servers\n/bogus\nand again\n/quit\n');
    expect(await chat.finished).toBe(0);
    const output = chat.out();
    expect(output).toContain(
      'scripted:test › hello\n# Hi\n\n**there**\n10 tokens in · 5 out · 0% of 8.2k context\n',
    );
    expect(output).toContain('scripted:test › /servers\nNo MCP servers are configured');
    expect(chat.err()).toContain(
      'Unknown command /bogus — did you mean /logs? (/help lists them; nothing was sent to the model)',
    );
    expect(output).toContain('scripted:test › and again\nAgain.\n');
    expect(chat.raw() + chat.err()).not.toContain(ESC);
    // Two model calls, the second with the first turn in it; the command never reached the model.
    expect(chat.provider.requests).toHaveLength(2);
    expect(userTexts(chat.provider.requests[1])).toEqual(['hello', 'and again']);
    // The input history is kept for the next run.
    const saved = (await readFile(chat.historyPath, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as string);
    expect(saved).toEqual(['hello', '/servers', '/bogus', 'and again', '/quit']);
  });

  it('ends at the end of the input after the entries before it', async () => {
    const chat = startChat({ terminal: false, replies: [textReply('one'), textReply('two')] });
    chat.stdin.end('first\nsecond\n');
    expect(await chat.finished).toBe(0);
    expect(chat.out()).toContain('one\n');
    expect(chat.out()).toContain('two\n');
  });
});
