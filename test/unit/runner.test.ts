import { describe, expect, it } from 'vitest';
import { AbortedError, MaxStepsError, ProviderError } from '../../src/core/errors.js';
import type { RunnerEvent } from '../../src/core/events.js';
import { DEFAULT_MAX_STEPS, Runner } from '../../src/core/runner.js';
import type { Sleep } from '../../src/core/retry.js';
import { FakeToolHost } from '../support/fake-tool-host.js';
import { ScriptedProvider, textReply, toolReply } from '../support/scripted-provider.js';

const noSleep: Sleep = async () => undefined;

describe('Runner', () => {
  it('answers a prompt without tools and keeps the history', async () => {
    const provider = new ScriptedProvider([textReply('Hello!')]);
    const runner = new Runner({ provider, systemPrompt: 'be brief' });
    const result = await runner.run('Hi');
    expect(result).toMatchObject({ text: 'Hello!', steps: 1, stopReason: 'end', toolCalls: [] });
    expect(result.usage).toEqual({ inputTokens: 10, outputTokens: 5 });
    expect(result.messages).toEqual(runner.history);
    expect(runner.history).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Hello!' }] },
    ]);
    expect(provider.requests[0]?.system).toBe('be brief');
  });

  it('runs the tool calls of a step in parallel and answers each in one tool message', async () => {
    const order: string[] = [];
    let releaseSlow: () => void = () => undefined;
    const slowStarted = new Promise<void>((resolve) => {
      releaseSlow = resolve;
    });
    const tools = new FakeToolHost({
      a__slow: async () => {
        order.push('slow start');
        await slowStarted;
        order.push('slow end');
        return 'slow done';
      },
      b__fast: () => {
        order.push('fast');
        releaseSlow();
        return 'fast done';
      },
    });
    const provider = new ScriptedProvider([
      toolReply({ id: '1', name: 'a__slow', input: {} }, { id: '2', name: 'b__fast', input: { x: 1 } }),
      textReply('both done'),
    ]);
    const runner = new Runner({ provider, tools });
    const result = await runner.run('go');
    // The fast call ran while the slow one was waiting: they were started together.
    expect(order).toEqual(['slow start', 'fast', 'slow end']);
    expect(result.steps).toBe(2);
    expect(result.usage).toEqual({ inputTokens: 30, outputTokens: 12 });
    const toolMessage = runner.history[2];
    expect(toolMessage?.role).toBe('tool');
    expect(
      toolMessage?.content.map((block) => (block.type === 'tool-result' ? block.toolCallId : '')),
    ).toEqual(['1', '2']);
    expect(provider.requests[1]?.messages).toHaveLength(3);
  });

  it('answers unknown tools and unreadable arguments with error results instead of running them', async () => {
    const tools = new FakeToolHost({ known__tool: () => 'ran' });
    const provider = new ScriptedProvider([
      toolReply(
        { id: '1', name: 'nope__tool', input: {} },
        { id: '2', name: 'known__tool', input: {}, rawInput: '{"broken' },
      ),
      textReply('ok'),
    ]);
    const result = await new Runner({ provider, tools }).run('go');
    expect(tools.calls).toEqual([]);
    const [unknown, unreadable] = result.toolCalls.map((record) => record.result);
    expect(unknown?.isError).toBe(true);
    expect(unknown?.content[0]).toEqual({
      type: 'text',
      text: 'Unknown tool "nope__tool". Available tools: known__tool.',
    });
    expect(unreadable?.isError).toBe(true);
    expect(JSON.stringify(unreadable?.content)).toContain('not a JSON object');
  });

  it('turns a failing tool into data the model reads', async () => {
    const tools = new FakeToolHost({
      x__boom: () => {
        throw new Error('disk on fire');
      },
    });
    const provider = new ScriptedProvider([
      toolReply({ id: '1', name: 'x__boom', input: {} }),
      textReply('sorry'),
    ]);
    const result = await new Runner({ provider, tools }).run('go');
    expect(result.text).toBe('sorry');
    const seenByModel = provider.requests[1]?.messages[2];
    expect(seenByModel).toMatchObject({ role: 'tool', content: [{ isError: true, toolCallId: '1' }] });
    expect(JSON.stringify(seenByModel)).toContain('disk on fire');
  });

  it('stops with MaxStepsError after maxSteps model calls, leaving every call answered', async () => {
    const loop = () => toolReply({ id: String(Math.random()), name: 't__again', input: {} });
    const provider = new ScriptedProvider([loop, loop, loop, loop]);
    const runner = new Runner({
      provider,
      tools: new FakeToolHost({ t__again: () => 'again' }),
      maxSteps: 3,
    });
    const error = await runner.run('loop forever').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MaxStepsError);
    expect((error as MaxStepsError).steps).toBe(3);
    expect(provider.requests).toHaveLength(3);
    expect(runner.history.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
      'tool',
    ]);
    expect(DEFAULT_MAX_STEPS).toBeGreaterThan(1);
  });

  it('retries a retryable provider failure and reports the retry', async () => {
    const overloaded = new ProviderError('scripted', 'overloaded', { status: 529, retryable: true });
    const provider = new ScriptedProvider([{ error: overloaded }, textReply('finally')]);
    const waits: number[] = [];
    const events: RunnerEvent[] = [];
    const runner = new Runner({
      provider,
      sleep: async (ms) => {
        waits.push(ms);
      },
      random: () => 0.5,
    });
    const result = await runner.run('hi', { onEvent: (event) => events.push(event) });
    expect(result.text).toBe('finally');
    expect(waits).toEqual([750]);
    expect(events.find((event) => event.type === 'retry')).toMatchObject({ attempt: 1, delayMs: 750 });
  });

  it('fails fast on a non-retryable provider error and leaves the history unchanged', async () => {
    const unauthorized = new ProviderError('scripted', 'bad key', { status: 401, retryable: false });
    const provider = new ScriptedProvider([textReply('first'), { error: unauthorized }]);
    const runner = new Runner({ provider, sleep: noSleep });
    await runner.run('one');
    await expect(runner.run('two')).rejects.toBe(unauthorized);
    expect(provider.requests).toHaveLength(2);
    expect(runner.history).toHaveLength(2);
  });

  it('gives up after the retries run out with the last error', async () => {
    const busy = () => ({ error: new ProviderError('scripted', 'busy', { status: 503, retryable: true }) });
    const provider = new ScriptedProvider(Array.from({ length: 6 }, () => busy));
    const runner = new Runner({ provider, sleep: noSleep });
    await expect(runner.run('hi')).rejects.toMatchObject({ message: 'busy', status: 503 });
    expect(provider.requests).toHaveLength(6);
  });

  it('cancels running tool calls on abort and still answers every call', async () => {
    const controller = new AbortController();
    const tools = new FakeToolHost({
      s__hang: (_input, signal) =>
        new Promise<string>(() => {
          // Never settles on its own; the Runner must not wait for it.
          signal?.addEventListener('abort', () => undefined);
        }),
    });
    const provider = new ScriptedProvider([toolReply({ id: '1', name: 's__hang', input: {} })]);
    const runner = new Runner({ provider, tools });
    const running = runner.run('go', {
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === 'tool-call') setImmediate(() => controller.abort());
      },
    });
    await expect(running).rejects.toBeInstanceOf(AbortedError);
    const last = runner.history.at(-1);
    expect(last).toMatchObject({ role: 'tool', content: [{ toolCallId: '1', isError: true }] });
    expect(JSON.stringify(last)).toContain('cancelled');
  });

  it('refuses to start when its signal is already aborted, leaving the history empty', async () => {
    const controller = new AbortController();
    controller.abort();
    const runner = new Runner({ provider: new ScriptedProvider([textReply('never')]) });
    await expect(runner.run('hi', { signal: controller.signal })).rejects.toBeInstanceOf(AbortedError);
    expect(runner.history).toEqual([]);
  });

  it('queues concurrent runs so each sees the previous one in its history', async () => {
    const provider = new ScriptedProvider([textReply('A'), textReply('B')]);
    const runner = new Runner({ provider });
    const [first, second] = await Promise.all([runner.run('one'), runner.run('two')]);
    expect([first.text, second.text]).toEqual(['A', 'B']);
    // Each result holds only the messages its own run added.
    expect(second.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'two' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'B' }] },
    ]);
    expect(provider.requests[1]?.messages).toHaveLength(3);
  });

  it('aborts mid-stream: the partial answer is dropped with the unanswered turn', async () => {
    const controller = new AbortController();
    const provider = new ScriptedProvider([
      [
        { type: 'text-delta', text: 'Once ' },
        { type: 'text-delta', text: 'upon ' },
        { type: 'text-delta', text: 'a time' },
        { type: 'finish', reason: 'stop' },
      ],
    ]);
    const runner = new Runner({ provider });
    let text = '';
    const running = runner.run('story', {
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type !== 'text-delta') return;
        text += event.text;
        if (text === 'Once upon ') controller.abort();
      },
    });
    await expect(running).rejects.toBeInstanceOf(AbortedError);
    expect(text).toBe('Once upon ');
    expect(runner.history).toEqual([]);
  });

  it('cancels the run when the stream loop is left early, so no tool runs behind the caller', async () => {
    const tools = new FakeToolHost({ side__effect: () => 'it happened' });
    const provider = new ScriptedProvider([
      toolReply({ id: '1', name: 'side__effect', input: {} }),
      textReply('x'),
    ]);
    const runner = new Runner({ provider, tools });
    for await (const event of runner.stream('go')) {
      if (event.type === 'step-start') break;
    }
    // The next run waits for the cancelled one: once it answers, the first is over.
    const next = new ScriptedProvider([textReply('second')]);
    runner.provider = next;
    await runner.run('again');
    expect(tools.calls).toEqual([]);
    expect(runner.history.map((message) => message.role)).toEqual(['user', 'assistant']);
  });

  it('hands events to concurrent next() calls in order', async () => {
    const runner = new Runner({ provider: new ScriptedProvider([textReply('hi')]) });
    const iterator = runner.stream('x')[Symbol.asyncIterator]();
    const [first, second] = await Promise.all([iterator.next(), iterator.next()]);
    const types = [first, second].map((result) => (result.done === true ? 'end' : result.value.type));
    expect(types).toEqual(['step-start', 'text-delta']);
  });

  it('streams events ending with done', async () => {
    const provider = new ScriptedProvider([
      toolReply({ id: '1', name: 'e__echo', input: { text: 'x' } }),
      [
        { type: 'text-delta', text: 'Hel' },
        { type: 'text-delta', text: 'lo' },
        { type: 'finish', reason: 'length' },
      ],
    ]);
    const runner = new Runner({
      provider,
      tools: new FakeToolHost({ e__echo: (input) => String(input.text) }),
    });
    const types: string[] = [];
    let text = '';
    for await (const event of runner.stream('hi')) {
      types.push(event.type);
      if (event.type === 'text-delta') text += event.text;
      if (event.type === 'done') expect(event.result.stopReason).toBe('length');
    }
    expect(text).toBe('Hello');
    expect(types).toEqual([
      'step-start',
      'tool-mode', // at a run's first step, then only when the mode changes
      'step-finish',
      'tool-call',
      'tool-result',
      'step-start',
      'text-delta',
      'text-delta',
      'step-finish',
      'done',
    ]);
  });

  it('rejects a bad maxSteps with a TypeError and closes once', async () => {
    const provider = new ScriptedProvider([]);
    expect(() => new Runner({ provider, maxSteps: 0 })).toThrow(TypeError);
    let closes = 0;
    const runner = new Runner({
      provider,
      onClose: async () => {
        closes++;
      },
    });
    await Promise.all([runner.close(), runner.close()]);
    await runner[Symbol.asyncDispose]();
    expect(closes).toBe(1);
  });
});

describe('Runner history notifications', () => {
  it('reports every change of the history, including a prompt taken back after a failure', async () => {
    const lengths: number[] = [];
    const failure = new ProviderError('scripted', 'bad request', { status: 400, retryable: false });
    const provider = new ScriptedProvider([
      toolReply({ id: '1', name: 'e__echo', input: {} }),
      textReply('done'),
      { error: failure },
    ]);
    const runner = new Runner({
      provider,
      tools: new FakeToolHost({ e__echo: () => 'echoed' }),
      onHistoryChange: (history) => {
        lengths.push(history.length);
      },
    });
    await runner.run('first');
    await expect(runner.run('second')).rejects.toBe(failure);
    expect(lengths).toEqual([1, 2, 3, 4, 5, 4]);
  });
});
