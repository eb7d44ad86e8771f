/**
 * The chat loop in a fake terminal (stdin/stdout that say they are TTYs, keys written as bytes):
 * colors, paste and line editing, history, Ctrl-C, failed turns, /model, questions, signals.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PrompterSlot } from '../../src/cli/chat/prompter.js';
import { AbortedError, ProviderError } from '../../src/core/errors.js';
import type { Provider, ToolResultBlock } from '../../src/core/types.js';
import { ESC, folder, KEYS, SGR, startChat, useChatFolder, userTexts } from '../support/chat-fixtures.js';
import { ScriptedProvider, textReply, toolReply } from '../support/scripted-provider.js';

useChatFolder();

describe('the chat in a terminal', () => {
  it('colors on a terminal, and writes no color at all with NO_COLOR', async () => {
    const colored = startChat({ replies: [textReply('answer')] });
    await colored.prompt(1);
    expect(colored.raw()).toMatch(SGR);
    colored.type(KEYS.ctrlD);
    await colored.finished;

    const plain = startChat({ replies: [textReply('**answer**')], env: { NO_COLOR: '1' } });
    await plain.prompt(1);
    plain.type(`hello${KEYS.enter}`);
    await plain.prompt(2);
    plain.type(`/tools${KEYS.enter}/help${KEYS.enter}`);
    await plain.prompt(4);
    plain.type(KEYS.ctrlD);
    await plain.finished;
    expect(plain.out()).toContain('**answer**');
    expect(plain.raw()).not.toMatch(SGR);
  });

  it('asks for bracketed paste and keeps pasted lines together until Enter', async () => {
    const chat = startChat({ replies: [textReply('got it')] });
    await chat.prompt(1);
    expect(chat.raw()).toContain(`${ESC}[?2004h`);
    chat.type(`${ESC}[200~line one${KEYS.enter}line two${KEYS.enter}line three${ESC}[201~`);
    chat.type(` and more${KEYS.enter}`);
    await chat.until((output) => output.includes('got it'), 'the answer');
    expect(userTexts(chat.provider.requests[0])).toEqual(['line one\nline two\nline three and more']);
    chat.type(KEYS.ctrlD);
    expect(await chat.finished).toBe(0);
    expect(chat.raw()).toContain(`${ESC}[?2004l`);
  });

  it('continues a line ending in a backslash, and recalls it as one entry', async () => {
    const chat = startChat({ replies: [textReply('one'), textReply('two')] });
    await chat.prompt(1);
    chat.type(`first\\${KEYS.enter}second${KEYS.enter}`);
    await chat.prompt(2);
    chat.type(`${KEYS.up}${KEYS.enter}`);
    await chat.prompt(3);
    chat.type(KEYS.ctrlD);
    await chat.finished;
    expect(userTexts(chat.provider.requests[0])).toEqual(['first\nsecond']);
    expect(userTexts(chat.provider.requests[1])).toEqual(['first\nsecond', 'first\nsecond']);
  });

  it('recalls entries from earlier runs with Up', async () => {
    await mkdir(join(folder, 'state'), { recursive: true });
    await writeFile(
      join(folder, 'state', 'history'),
      `${JSON.stringify('older')}\n${JSON.stringify('from last time')}\n`,
    );
    const chat = startChat({ replies: [textReply('ok')] });
    await chat.prompt(1);
    chat.type(`${KEYS.up}${KEYS.enter}`);
    await chat.until((output) => output.includes('ok\n'), 'the answer');
    expect(userTexts(chat.provider.requests[0])).toEqual(['from last time']);
    chat.type(KEYS.ctrlD);
    await chat.finished;
  });

  it('Ctrl-C stops a turn at once, cancels the tool call, and the conversation goes on', async () => {
    let toolSignal: AbortSignal | undefined;
    const chat = startChat({
      replies: [toolReply({ id: 'call-1', name: 'slow__wait', input: {} }), textReply('fine again')],
      tools: {
        slow__wait: (_input, signal) =>
          new Promise<string>(() => {
            toolSignal = signal;
          }),
      },
    });
    await chat.prompt(1);
    chat.type(`wait for it${KEYS.enter}`);
    await chat.until((output) => output.includes('→ slow__wait'), 'the tool call');
    expect(toolSignal?.aborted).toBe(false);
    chat.type(KEYS.ctrlC);
    await chat.until((output) => output.includes('cancelled'), 'the cancellation');
    expect(toolSignal?.aborted).toBe(true);
    // Every call has its result: the history can go on.
    const [user, assistant, tool] = chat.runner.history;
    expect(user?.role).toBe('user');
    expect(assistant?.content).toEqual([{ type: 'tool-call', id: 'call-1', name: 'slow__wait', input: {} }]);
    expect(tool?.role).toBe('tool');
    expect((tool?.content[0] as ToolResultBlock | undefined)?.toolCallId).toBe('call-1');
    expect((tool?.content[0] as ToolResultBlock | undefined)?.isError).toBe(true);
    await chat.prompt(2);
    chat.type(`still there?${KEYS.enter}`);
    await chat.until((output) => output.includes('fine again'), 'the next answer');
    expect(chat.provider.requests[1]?.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'user',
    ]);
    chat.type(KEYS.ctrlD);
    expect(await chat.finished).toBe(0);
  });

  it('Ctrl-C clears a typed line; twice at an empty prompt quits', async () => {
    const chat = startChat({ replies: [] });
    await chat.prompt(1);
    chat.type(`half typed${KEYS.ctrlC}`);
    await chat.prompt(2);
    chat.type(KEYS.ctrlC);
    await chat.until((output) => output.includes('press Ctrl-C again or Ctrl-D to quit'), 'the hint');
    chat.type(KEYS.ctrlC);
    expect(await chat.finished).toBe(0);
    expect(chat.provider.requests).toHaveLength(0);
  });

  it('keeps what is typed during a turn for the next prompt, without echoing it into the answer', async () => {
    let release: (value: string) => void = () => undefined;
    const chat = startChat({
      replies: [
        toolReply({ id: '1', name: 'slow__wait', input: {} }),
        textReply('first done'),
        textReply('second done'),
      ],
      tools: { slow__wait: () => new Promise<string>((resolve) => (release = resolve)) },
    });
    await chat.prompt(1);
    chat.type(`first${KEYS.enter}`);
    await chat.until((output) => output.includes('→ slow__wait'), 'the tool call');
    chat.type(`typed ahead${KEYS.enter}`);
    release('done');
    await chat.until((output) => output.includes('second done'), 'the queued turn');
    // Typed during the first turn, it was not echoed into that turn's answer.
    const firstTurn = chat.out().slice(0, chat.out().indexOf('first done'));
    expect(firstTurn).not.toContain('typed ahead');
    expect(chat.out()).toContain('scripted:test › typed ahead\n');
    expect(userTexts(chat.provider.requests[2]).at(-1)).toBe('typed ahead');
    chat.type(KEYS.ctrlD);
    await chat.finished;
  });

  it('shows a failed turn and goes on', async () => {
    const chat = startChat({
      replies: [
        { error: new ProviderError('scripted', 'the model is down', { retryable: false }) },
        textReply('back'),
      ],
    });
    await chat.prompt(1);
    chat.type(`one${KEYS.enter}`);
    await chat.until(() => chat.err().includes('✗ the model is down'), 'the error');
    await chat.prompt(2);
    chat.type(`two${KEYS.enter}`);
    await chat.until((output) => output.includes('back'), 'the next answer');
    // The failed turn left no trace in the history.
    expect(userTexts(chat.provider.requests[1])).toEqual(['two']);
    chat.type(KEYS.ctrlD);
    await chat.finished;
  });

  it('switches model with /model, keeping the history; a bad model string keeps the old one', async () => {
    const second = new ScriptedProvider([textReply('from the new model')], {
      name: 'openai',
      model: 'gpt-test',
    });
    const created: string[] = [];
    const chat = startChat({
      replies: [textReply('from the first model')],
      options: {
        createProvider: async (model: string): Promise<Provider> => {
          created.push(model);
          if (model.startsWith('nope')) throw new Error('no such provider');
          return second;
        },
      },
    });
    await chat.prompt(1);
    chat.type(`hi${KEYS.enter}`);
    await chat.prompt(2);
    chat.type(`/model nope:x${KEYS.enter}`);
    await chat.until(() => chat.err().includes('(still using scripted:test)'), 'the error');
    chat.type(`/model openai:gpt-test${KEYS.enter}`);
    await chat.until((output) => output.includes('openai:gpt-test › '), 'the new prompt');
    chat.type(`and now?${KEYS.enter}`);
    await chat.until((output) => output.includes('from the new model'), 'the answer');
    expect(userTexts(second.requests[0])).toEqual(['hi', 'and now?']);
    expect(created).toEqual(['nope:x', 'openai:gpt-test']);
    chat.type(KEYS.ctrlD);
    await chat.finished;
  });

  it('asks the user during a turn through the prompter, and goes on with the answer', async () => {
    const prompter = new PrompterSlot();
    const chat = startChat({
      options: { prompter },
      replies: [
        toolReply({ id: '1', name: 'guard__run', input: {} }),
        (request) => textReply(`tool said: ${JSON.stringify(request.messages.at(-1)?.content)}`),
      ],
      tools: {
        guard__run: async () => {
          prompter.write('The model wants to run guard__run.\n');
          return `approved=${await prompter.ask('Allow guard__run? [y/n] ')}`;
        },
      },
    });
    await chat.prompt(1);
    chat.type(`go${KEYS.enter}`);
    await chat.until((output) => output.includes('Allow guard__run? [y/n] '), 'the question');
    expect(chat.out()).toContain(
      '→ guard__run {}\nThe model wants to run guard__run.\nAllow guard__run? [y/n] ',
    );
    chat.type(`y${KEYS.enter}`);
    await chat.until((output) => output.includes('tool said:'), 'the answer');
    expect(chat.out()).toContain('approved=y');
    chat.type(KEYS.ctrlD);
    expect(await chat.finished).toBe(0);
    // An answer is not an entry: not in the history for Up, nor in the file.
    expect(await readFile(chat.historyPath, 'utf8')).toBe(`${JSON.stringify('go')}\n`);
    expect(prompter.bound).toBe(false);
    await expect(prompter.ask('anyone?')).rejects.toThrow(/no interactive chat/);
  });

  it('Ctrl-C during a question cancels it and the turn', async () => {
    const prompter = new PrompterSlot();
    let asked: Promise<string> | undefined;
    const chat = startChat({
      options: { prompter },
      replies: [toolReply({ id: '1', name: 'guard__run', input: {} })],
      tools: {
        guard__run: async () => {
          asked = prompter.ask('Allow? ');
          return asked;
        },
      },
    });
    await chat.prompt(1);
    chat.type(`go${KEYS.enter}`);
    await chat.until((output) => output.includes('Allow? '), 'the question');
    chat.type(KEYS.ctrlC);
    await chat.until((output) => output.includes('cancelled'), 'the cancellation');
    await expect(asked).rejects.toBeInstanceOf(AbortedError);
    await chat.prompt(2);
    chat.type(KEYS.ctrlD);
    await chat.finished;
  });

  it('ends on the signal (SIGTERM), stopping the turn', async () => {
    const chat = startChat({
      replies: [toolReply({ id: '1', name: 'slow__wait', input: {} })],
      tools: { slow__wait: () => new Promise<string>(() => undefined) },
    });
    await chat.prompt(1);
    chat.type(`go${KEYS.enter}`);
    await chat.until((output) => output.includes('→ slow__wait'), 'the tool call');
    chat.controller.abort();
    await expect(chat.finished).rejects.toBeInstanceOf(AbortedError);
    expect(chat.runner.history.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
  });
});
