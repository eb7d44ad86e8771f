/**
 * Tab completion of server offerings, as pure code: template matching, and the completer over a
 * hand-written catalog and completion source (the real servers are in test/e2e/mcp-completion).
 * Also ChatInput's bound on a slow completer, on a fake terminal.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ChatInput } from '../../src/cli/chat/chat-input.js';
import { completeChatLine, type Completion } from '../../src/cli/chat/completion.js';
import { completeAskedArgument, type CompletionSource } from '../../src/cli/chat/offerings-completion.js';
import { createStyle } from '../../src/cli/chat/style.js';
import { matchTemplate } from '../../src/cli/chat/template-match.js';
import type { CompletionRequest } from '../../src/mcp/completion.js';
import type { OfferingsCatalog } from '../../src/mcp/offerings-catalog.js';

describe('matchTemplate', () => {
  it('completes the fixed text, then names the variable being typed with the ones before', () => {
    expect(matchTemplate('demo://items/{id}', 'demo://it')).toEqual({
      kind: 'literal',
      completion: 'demo://items/',
    });
    expect(matchTemplate('demo://items/{id}', 'demo://items/ap')).toEqual({
      kind: 'variable',
      name: 'id',
      value: 'ap',
      before: 'demo://items/',
      given: {},
    });
    expect(matchTemplate('repo://{owner}/{name}/readme', 'repo://octo/he')).toEqual({
      kind: 'variable',
      name: 'name',
      value: 'he',
      before: 'repo://octo/',
      given: { owner: 'octo' },
    });
    expect(matchTemplate('file:///{+path}', 'file:///etc/ho')).toMatchObject({
      name: 'path',
      value: 'etc/ho',
    });
  });

  it('matches nothing off the template, or past an operator expression it cannot follow', () => {
    expect(matchTemplate('demo://items/{id}', 'other://x')).toEqual({ kind: 'none' });
    expect(matchTemplate('search://{?q}', 'search://')).toEqual({ kind: 'none' });
    expect(matchTemplate('search://{?q}', 'sea')).toEqual({ kind: 'literal', completion: 'search://' });
  });
});

/** A catalog and a server's answers, as a real server would give them (see changing-lists.mjs). */
function fakeSource(delayMs = 0): CompletionSource & { readonly asked: CompletionRequest[] } {
  const asked: CompletionRequest[] = [];
  const catalog: OfferingsCatalog = {
    resources: [{ server: 'lists', uri: 'fixture://note', name: 'note' }],
    templates: [{ server: 'lists', uriTemplate: 'fixture://items/{id}', name: 'item' }],
    prompts: [
      {
        server: 'lists',
        name: 'paint',
        arguments: [
          { name: 'color', required: true },
          { name: 'shade', required: true },
        ],
      },
    ],
  };
  const values: Record<string, (context: Readonly<Record<string, string>>) => string[]> = {
    id: () => ['apple', 'apricot', 'banana'],
    color: () => ['red', 'green', 'blue'],
    shade: (context) => (context.color === 'blue' ? ['navy', 'azure'] : ['crimson']),
  };
  return {
    asked,
    serverNames: () => ['lists', 'quiet'],
    catalog: () => Promise.resolve(catalog),
    complete: async (request) => {
      asked.push(request);
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      const all = values[request.argument.name]?.(request.context?.arguments ?? {}) ?? [];
      return { values: all.filter((value) => value.startsWith(request.argument.value)), hasMore: false };
    },
  };
}

describe('completeChatLine with server offerings', () => {
  it('completes servers that offer resources after @, then their URIs and template values', async () => {
    const source = fakeSource();
    expect(await completeChatLine('look at @l', [], source)).toEqual([['@lists:'], '@l']);
    expect(await completeChatLine('look at @lists:fixture://n', [], source)).toEqual([
      ['@lists:fixture://note'],
      '@lists:fixture://n',
    ]);
    expect(await completeChatLine('@lists:fixture://items/ap', [], source)).toEqual([
      ['@lists:fixture://items/apple', '@lists:fixture://items/apricot'],
      '@lists:fixture://items/ap',
    ]);
    expect(source.asked.at(-1)).toEqual({
      server: 'lists',
      ref: { type: 'resource-template', uriTemplate: 'fixture://items/{id}' },
      argument: { name: 'id', value: 'ap' },
      context: { arguments: {} },
    });
  });

  it('offers prompt names beside the commands after /, and argument values with the given ones as context', async () => {
    const source = fakeSource();
    const [slash] = await completeChatLine('/', [], source);
    expect(slash).toContain('/help');
    expect(slash).toContain('/lists:paint');
    expect(await completeChatLine('/lists:p', [], source)).toEqual([['/lists:paint '], '/lists:p']);
    expect(await completeChatLine('/lists:paint g', [], source)).toEqual([['green'], 'g']);
    expect(await completeChatLine('/lists:paint blue ', [], source)).toEqual([
      ['navy', 'azure', 'shade='],
      '',
    ]);
    expect(source.asked.at(-1)?.context).toEqual({ arguments: { color: 'blue' } });
    expect(await completeChatLine('/lists:paint shade=a color=blue', [], source)).toEqual([
      ['color=blue'],
      'color=blue',
    ]);
    expect(await completeChatLine('/lists:paint color=blue shade=n', [], source)).toEqual([
      ['shade=navy'],
      'shade=n',
    ]);
  });

  it('leaves other lines to the chat’s own completion', async () => {
    expect(await completeChatLine('/model ol', ['ollama:x'], fakeSource())).toEqual([
      ['ollama:x', 'ollama:'],
      'ol',
    ]);
    expect(await completeChatLine('plain words', [], fakeSource())).toEqual([[], 'plain words']);
  });

  it('completes the answer to a missing prompt argument with the values given before it', async () => {
    const source = fakeSource();
    const prompt = (await source.catalog()).prompts[0];
    if (prompt === undefined) throw new Error('no prompt');
    expect(await completeAskedArgument(source, prompt, 'shade', { color: 'blue' }, 'a')).toEqual([
      ['azure'],
      'a',
    ]);
  });
});

function fakeTerminal() {
  const input = Object.assign(new PassThrough(), { isTTY: true, isRaw: false, setRawMode: () => input });
  const output = Object.assign(new PassThrough(), { isTTY: true, columns: 80, rows: 24 });
  let shown = '';
  output.on('data', (chunk: Buffer) => (shown += chunk.toString()));
  return { input, output, shown: () => shown };
}

describe('ChatInput with a slow completer', () => {
  it('answers Tab within the wait and lets typing go on; the late answer is dropped', async () => {
    const terminal = fakeTerminal();
    let completions = 0;
    const slow = (line: string): Promise<Completion> =>
      new Promise((resolve) => {
        completions += 1;
        setTimeout(() => resolve([[`${line}-late`], line]), 400);
      });
    const chat = new ChatInput({
      input: terminal.input,
      output: terminal.output,
      terminal: true,
      history: [],
      style: createStyle(false),
      completer: slow,
      completionWaitMs: 50,
      onInterrupt: () => undefined,
      onEnd: () => undefined,
    });
    try {
      const entry = chat.next('> ');
      const started = Date.now();
      terminal.input.write('ab\t');
      terminal.input.write('cd\r');
      expect(await entry).toBe('abcd');
      expect(Date.now() - started).toBeLessThan(400);
      expect(completions).toBe(1);
      // The late answer arrives now, and must change nothing.
      await new Promise((resolve) => setTimeout(resolve, 450));
      expect(terminal.shown()).not.toContain('ab-late');
    } finally {
      chat.close();
    }
  });

  it('completes a question’s answer with the question’s own completer', async () => {
    const terminal = fakeTerminal();
    const chat = new ChatInput({
      input: terminal.input,
      output: terminal.output,
      terminal: true,
      history: [],
      style: createStyle(false),
      completer: (line) => [['/help'], line],
      onInterrupt: () => undefined,
      onEnd: () => undefined,
    });
    try {
      const answer = chat.ask('shade? ', {
        complete: (partial) =>
          Promise.resolve([['azure'].filter((value) => value.startsWith(partial)), partial]),
      });
      // The question is shown on the next turn of the loop (questions take turns).
      await new Promise((resolve) => setTimeout(resolve, 20));
      terminal.input.write('az\t');
      await new Promise((resolve) => setTimeout(resolve, 50));
      terminal.input.write('\r');
      expect(await answer).toBe('azure');
    } finally {
      chat.close();
    }
  });
});
