/**
 * Compaction loses nothing: when the part to summarize is larger than the window, it is
 * summarized in parts that fit, each part updating the summary so far. A scripted provider
 * records every summary request: every turn's text reaches one, and none is larger than the
 * window (counted as a vendor would, a token per 3 characters, with the answer's `maxTokens`).
 */
import { describe, expect, it } from 'vitest';
import { SUMMARY_HEADING, SUMMARY_TEMPLATE } from '../../src/context/compaction.js';
import { ProviderError } from '../../src/core/errors.js';
import type { RunnerEvent } from '../../src/core/events.js';
import { Runner } from '../../src/core/runner.js';
import type { ChatRequest, Message } from '../../src/core/types.js';
import { ScriptedProvider, textReply, type ScriptedReply } from '../support/scripted-provider.js';

const WINDOW = 2_000;

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
const assistant = (text: string): Message => ({ role: 'assistant', content: [{ type: 'text', text }] });

function requestText(request: ChatRequest): string {
  const first = request.messages[0]?.content[0];
  return first?.type === 'text' ? first.text : '';
}

function isSummaryRequest(request: ChatRequest): boolean {
  return request.tools.length === 0 && requestText(request).includes(SUMMARY_TEMPLATE);
}

/** What a vendor would count for the request, plus the room it keeps for the answer. */
function requestTokens(request: ChatRequest): number {
  const characters = (request.system ?? '').length + JSON.stringify(request.messages).length;
  return Math.ceil(characters / 3) + (request.settings.maxTokens ?? 0);
}

/** Summary requests answer `summary N` (N counts them); anything else is the turn's answer. */
function summarizerThenAnswer(count: number): ScriptedReply[] {
  let summaries = 0;
  return Array.from({ length: count }, () => (request: ChatRequest) => {
    if (!isSummaryRequest(request)) return textReply('answered');
    summaries += 1;
    return textReply(`summary ${summaries}`);
  });
}

describe('compaction of a part larger than the window', () => {
  it('summarizes in parts that fit, each carrying the summary so far, and every turn reaches one', async () => {
    // 36 turns of ~155 tokens each: ~5,600 tokens, under the 80% of the 8,192-token fallback
    // window that starts a compaction, so the request goes out and the vendor refuses it.
    const history: Message[] = [];
    for (let turn = 1; turn <= 36; turn++) {
      history.push(user(`marker-u${turn}: ${'please look at this. '.repeat(10)}`));
      history.push(assistant(`marker-a${turn}: ${'here is what I found. '.repeat(10)}`));
    }
    const tooLong = new ProviderError('scripted', 'prompt is too long', {
      status: 400,
      retryable: false,
      contextLength: true,
    });
    const provider = new ScriptedProvider([{ error: tooLong }, ...summarizerThenAnswer(40)]);
    const events: RunnerEvent[] = [];
    const runner = new Runner({ provider, history, context: { reserveTokens: 1 } });
    const done = await runner.run('marker-new: go on', { onEvent: (event) => events.push(event) });
    expect(done.text).toBe('answered');
    // The refusal made the window what was refused, less a margin: the part to summarize is larger.
    const window = runner.contextUsage?.window;
    expect(window?.source).toBe('refusal');
    const windowTokens = window?.tokens ?? 0;
    expect(events.filter((event) => event.type === 'compaction')).toEqual([
      expect.objectContaining({ reason: 'context-length' }),
    ]);
    const summaryRequests = provider.requests.filter(isSummaryRequest);
    expect(summaryRequests.length).toBeGreaterThanOrEqual(2);
    for (const request of summaryRequests) expect(requestTokens(request)).toBeLessThanOrEqual(windowTokens);
    const asked = summaryRequests.map(requestText);
    const compaction = events.find((event) => event.type === 'compaction');
    expect(compaction).toMatchObject({ type: 'compaction' });
    const replaced = compaction?.type === 'compaction' ? compaction.replacedMessages : 0;
    // Every replaced turn's text reached some summary request: the first (the task) included.
    for (const message of history.slice(0, replaced)) {
      const block = message.content[0];
      const marker = block?.type === 'text' ? /^marker-\w+/.exec(block.text)?.[0] : undefined;
      expect(marker).toBeDefined();
      expect(asked.some((text) => text.includes(`${marker ?? ''}:`))).toBe(true);
    }
    expect(asked[0]).toContain('marker-u1:');
    // Each part after the first carries the summary written so far.
    asked.slice(1).forEach((text, index) => {
      expect(text).toContain(`EARLIER SUMMARY:\nsummary ${index + 1}`);
      expect(text).toContain('it comes in parts');
    });
    // The history goes on from the last summary.
    expect(runner.history[0]).toEqual(user(`${SUMMARY_HEADING}\n\nsummary ${summaryRequests.length}`));
  });

  it('cuts a single message larger than the window, and every line of it reaches a request', async () => {
    const lines = Array.from({ length: 400 }, (_, index) => `line-${index + 1} of the pasted log`);
    const history = [user(lines.join('\n')), assistant('a long log'), user('second'), assistant('ok')];
    const provider = new ScriptedProvider(summarizerThenAnswer(40));
    const runner = new Runner({ provider, history, context: { contextWindow: WINDOW } });
    const compaction = await runner.compact();
    expect(compaction?.replacedMessages).toBe(2);
    const summaryRequests = provider.requests.filter(isSummaryRequest);
    expect(summaryRequests.length).toBeGreaterThan(2);
    for (const request of summaryRequests) expect(requestTokens(request)).toBeLessThanOrEqual(WINDOW);
    const asked = summaryRequests.map(requestText).join('\n');
    for (const line of lines) expect(asked).toContain(line);
    expect(asked).toContain('ASSISTANT: a long log');
  });

  it('an older part that fits is one request, as before, with the earlier summary first', async () => {
    const history = [
      user(`${SUMMARY_HEADING}\n\nthe earlier summary`),
      assistant('Understood. I will continue from this summary.'),
      user('a'),
      assistant('b'),
      user('c'),
      assistant('d'),
    ];
    const provider = new ScriptedProvider(summarizerThenAnswer(1));
    const runner = new Runner({ provider, history, context: { contextWindow: WINDOW } });
    await runner.compact();
    expect(provider.requests).toHaveLength(1);
    const text = requestText(provider.requests[0] as ChatRequest);
    expect(text).not.toContain('in parts');
    expect(text).toContain('EARLIER SUMMARY:\nthe earlier summary\n\nUSER: a\n\nASSISTANT: b');
    expect(text).not.toContain('Understood. I will continue');
  });
});
