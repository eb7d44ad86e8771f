/**
 * Compaction with the scripted provider: where the history is cut, a long conversation that
 * compacts again and again and carries on from its summary, the one retry after a vendor's
 * context-length error, `runner.compact()`, and turning automatic compaction off.
 */
import { describe, expect, it } from 'vitest';
import {
  isSummaryMessage,
  planCompaction,
  SUMMARY_HEADING,
  SUMMARY_TEMPLATE,
} from '../../src/context/compaction.js';
import { ProviderError } from '../../src/core/errors.js';
import type { RunnerEvent } from '../../src/core/events.js';
import { Runner, type HistoryChange } from '../../src/core/runner.js';
import type { ChatRequest, Message, ProviderEvent, ToolCallBlock } from '../../src/core/types.js';
import { FakeToolHost } from '../support/fake-tool-host.js';
import { ScriptedProvider, type ScriptedReply } from '../support/scripted-provider.js';

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
const assistant = (text: string): Message => ({ role: 'assistant', content: [{ type: 'text', text }] });
const call = (id: string): Message => ({
  role: 'assistant',
  content: [{ type: 'tool-call', id, name: 'fs__read', input: { path: `${id}.txt` } }],
});
const result = (id: string, text: string): Message => ({
  role: 'tool',
  content: [
    {
      type: 'tool-result',
      toolCallId: id,
      toolName: 'fs__read',
      content: [{ type: 'text', text }],
      isError: false,
    },
  ],
});

/** True when a request is the summarizer's (it carries the template). */
function isSummaryRequest(request: ChatRequest): boolean {
  const first = request.messages[0]?.content[0];
  return request.tools.length === 0 && first?.type === 'text' && first.text.includes(SUMMARY_TEMPLATE);
}

/** The vendor's count of a request, about as a real one would count it (a token per 3 characters). */
function countTokens(request: ChatRequest): number {
  return Math.ceil(JSON.stringify(request.messages).length / 3);
}

/** Every tool message follows an assistant message whose calls it answers, one for one. */
function expectCallsPaired(messages: readonly Message[]): void {
  messages.forEach((message, index) => {
    if (message.role !== 'tool') return;
    const previous = messages[index - 1];
    expect(previous?.role).toBe('assistant');
    const ids = (previous?.content ?? [])
      .filter((block): block is ToolCallBlock => block.type === 'tool-call')
      .map((block) => block.id);
    expect(message.content.map((block) => block.toolCallId)).toEqual(ids);
  });
}

describe('planCompaction', () => {
  const history = [
    user('one'),
    call('a'),
    result('a', 'x'.repeat(300)),
    assistant('done one'),
    user('two'),
    call('b'),
    result('b', 'y'.repeat(300)),
    assistant('done two'),
    user('three'),
  ];

  it('cuts before a user message or a model message after results, never between a call and its result', () => {
    for (let keep = 0; keep < 400; keep += 10) {
      const plan = planCompaction(history, keep);
      expect(plan).toBeDefined();
      const first = plan?.recent[0];
      expect(
        first?.role === 'user' || (first?.role === 'assistant' && plan?.older.at(-1)?.role === 'tool'),
      ).toBe(true);
      expect(plan?.recent.at(-1)).toBe(history.at(-1));
    }
  });

  it('keeps as many recent turns as fit, and at least the last clean cut', () => {
    expect(planCompaction(history, 1)?.split).toBe(8); // only the last prompt
    expect(planCompaction(history, 50)?.split).toBe(7); // and the answer after the results
    // The earliest clean cut: the first answer after the first results (the first prompt, its call
    // and the result go together).
    expect(planCompaction(history, 10_000)?.split).toBe(3);
  });

  it('has nothing to do for a single turn, or when only the earlier summary would go', () => {
    expect(planCompaction([user('only')], 0)).toBeUndefined();
    const summarized = [
      user(`${SUMMARY_HEADING}\n\nearlier`),
      assistant('Understood. I will continue from this summary.'),
      user('next'),
    ];
    expect(planCompaction(summarized, 0)).toBeUndefined();
  });
});

describe('automatic compaction', () => {
  it('compacts a long conversation again and again, each summary updating the last, and carries on', async () => {
    let summaries = 0;
    const summaryInputs: string[] = [];
    const reply = (request: ChatRequest): ProviderEvent[] => {
      if (isSummaryRequest(request)) {
        const first = request.messages[0]?.content[0];
        summaryInputs.push(first?.type === 'text' ? first.text : '');
        summaries += 1;
        return [
          { type: 'text-delta', text: `## Goal\nread files (summary ${summaries})` },
          { type: 'finish', reason: 'stop', usage: { inputTokens: countTokens(request), outputTokens: 20 } },
        ];
      }
      const last = request.messages.at(-1);
      // Each prompt asks for one file; the model reads it, then answers.
      const usage = { inputTokens: countTokens(request), outputTokens: 30 };
      if (last?.role === 'user') {
        const id = `call${request.messages.length}`;
        return [
          { type: 'tool-call', call: { type: 'tool-call', id, name: 'fs__read', input: { path: 'f' } } },
          { type: 'finish', reason: 'tool-calls', usage },
        ];
      }
      return [
        { type: 'text-delta', text: 'I read it. '.repeat(20) },
        { type: 'finish', reason: 'stop', usage },
      ];
    };
    const provider = new ScriptedProvider(Array.from({ length: 200 }, (): ScriptedReply => reply));
    const tools = new FakeToolHost({ fs__read: () => 'file content '.repeat(60) });
    const changes: HistoryChange[] = [];
    const runner = new Runner({
      provider,
      tools,
      context: { contextWindow: 4_000, keepRecentTokens: 800, reserveTokens: 200 },
      onHistoryChange: (_history, change) => {
        if (change !== undefined) changes.push(change);
      },
    });
    const events: RunnerEvent[] = [];
    for (let turn = 1; turn <= 20; turn++) {
      const done = await runner.run(`read file ${turn}`, { onEvent: (event) => events.push(event) });
      expect(done.text).toContain('I read it.');
      expect(done.messages[0]).toEqual(user(`read file ${turn}`));
    }
    const compactions = events.filter((event) => event.type === 'compaction');
    expect(compactions.length).toBeGreaterThanOrEqual(3);
    expect(
      compactions.every((event) => event.reason === 'threshold' && event.tokensAfter < event.tokensBefore),
    ).toBe(true);
    expect(changes).toHaveLength(compactions.length);
    // A later compaction updates the earlier summary: it is given to the summarizer as such.
    expect(summaryInputs[0]).not.toContain('EARLIER SUMMARY');
    expect(summaryInputs[1]).toContain(`EARLIER SUMMARY:\n## Goal\nread files (summary 1)`);
    // Every request the model got stayed within the window, kept calls with their results, and
    // (after the first compaction) began with the latest summary.
    const conversation = provider.requests.filter((request) => !isSummaryRequest(request));
    for (const request of conversation) {
      expect(countTokens(request)).toBeLessThan(4_000);
      expectCallsPaired(request.messages);
    }
    const last = conversation.at(-1);
    expect(isSummaryMessage(last?.messages[0])).toBe(true);
    expect(JSON.stringify(last?.messages[0])).toContain(`summary ${summaries}`);
    // Without compaction the history would hold 80 messages (4 a turn).
    expect(runner.history.length).toBeLessThan(40);
    expect(runner.contextUsage?.window).toEqual({ tokens: 4_000, source: 'override' });
  });

  it('compacts once and tries once more when the vendor refuses the request as too long', async () => {
    const tooLong = new ProviderError('scripted', 'prompt is too long: 210000 tokens > 200000 maximum', {
      status: 400,
      retryable: false,
      contextLength: true,
    });
    const history = [
      user('old question'),
      assistant('old answer '.repeat(50)),
      user('second'),
      assistant('ok'),
    ];
    const provider = new ScriptedProvider([
      { error: tooLong },
      [
        { type: 'text-delta', text: 'the summary' },
        { type: 'finish', reason: 'stop' },
      ],
      [
        { type: 'text-delta', text: 'answered' },
        { type: 'finish', reason: 'stop' },
      ],
    ]);
    const events: RunnerEvent[] = [];
    const runner = new Runner({ provider, history, context: { keepRecentTokens: 1 } });
    const done = await runner.run('new question', { onEvent: (event) => events.push(event) });
    expect(done.text).toBe('answered');
    expect(events.filter((event) => event.type === 'compaction')).toEqual([
      expect.objectContaining({ reason: 'context-length', replacedMessages: 4, summary: 'the summary' }),
    ]);
    expect(provider.requests[2]?.messages).toEqual([
      user(`${SUMMARY_HEADING}\n\nthe summary`),
      assistant('Understood. I will continue from this summary.'),
      user('new question'),
    ]);
    expect(done.messages).toEqual([user('new question'), assistant('answered')]);
  });

  it('fails with the vendor error when it comes again after the compaction, or when compaction is off', async () => {
    const tooLong = (): { error: Error } => ({
      error: new ProviderError('scripted', 'too long', { retryable: false, contextLength: true }),
    });
    const history = [user('a'), assistant('b')];
    const again = new ScriptedProvider([
      tooLong(),
      [
        { type: 'text-delta', text: 'sum' },
        { type: 'finish', reason: 'stop' },
      ],
      tooLong(),
    ]);
    const runner = new Runner({ provider: again, history });
    await expect(runner.run('c')).rejects.toThrow('too long');
    expect(again.requests).toHaveLength(3);
    // The prompt of the failed turn is taken back; the summary stays.
    expect(runner.history.map((message) => message.role)).toEqual(['user', 'assistant']);

    const off = new ScriptedProvider([tooLong()]);
    const manual = new Runner({ provider: off, history, context: { autoCompact: false, contextWindow: 10 } });
    await expect(manual.run('c')).rejects.toThrow('too long');
    expect(off.requests).toHaveLength(1);
    expect(manual.history).toEqual(history);
  });
});

describe('runner.compact()', () => {
  it('summarizes on demand with the focus given, and says when there is nothing to summarize', async () => {
    const provider = new ScriptedProvider([
      [
        { type: 'text-delta', text: 'focused summary' },
        { type: 'finish', reason: 'stop' },
      ],
    ]);
    const single = new Runner({ provider, history: [user('only')] });
    expect(await single.compact()).toBeUndefined();
    expect(provider.requests).toHaveLength(0);

    const runner = new Runner({ provider, history: [user('a'), assistant('b'), user('c'), assistant('d')] });
    const events: RunnerEvent[] = [];
    const done = await runner.compact({ focus: 'the file names', onEvent: (event) => events.push(event) });
    expect(done).toMatchObject({ reason: 'manual', replacedMessages: 2, summary: 'focused summary' });
    const text = JSON.stringify(provider.requests[0]?.messages);
    expect(text).toContain('focus on: the file names');
    expect(text).toContain('USER: a');
    expect(runner.history).toEqual([
      user(`${SUMMARY_HEADING}\n\nfocused summary`),
      assistant('Understood. I will continue from this summary.'),
      user('c'),
      assistant('d'),
    ]);
    expect(events).toEqual([expect.objectContaining({ type: 'compaction', reason: 'manual' })]);
  });

  it('refuses bad context options with a clear error', () => {
    const provider = new ScriptedProvider([]);
    expect(() => new Runner({ provider, context: { compactAt: 1.5 } })).toThrow(
      'context.compactAt must be a share of the window in (0, 1], got 1.5',
    );
    expect(() => new Runner({ provider, context: { contextWindow: 0 } })).toThrow(
      /context.contextWindow must be a positive/,
    );
  });
});
