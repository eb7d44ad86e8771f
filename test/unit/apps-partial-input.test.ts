/**
 * Partial tool input for MCP Apps (`ui/notifications/tool-input-partial`): the arguments so far
 * healed into an object, sent at most once per interval (always the latest), and the Runner passing
 * a provider's `tool-call-delta` on as it streams while the history keeps only the whole call.
 */
import { describe, expect, it } from 'vitest';
import type { RunnerEvent } from '../../src/core/events.js';
import { Runner } from '../../src/core/runner.js';
import {
  healPartialArguments,
  LatestOnlyThrottle,
  PARTIAL_INPUT_INTERVAL_MS,
  type ThrottleClock,
} from '../../src/apps/partial-input.js';
import { FakeToolHost } from '../support/fake-tool-host.js';
import { ScriptedProvider, textReply } from '../support/scripted-provider.js';

describe('healPartialArguments', () => {
  it.each([
    ['', {}],
    ['{', {}],
    ['{"loc', {}],
    ['{"location":', {}],
    ['{"location": "New Yo', { location: 'New Yo' }],
    ['{"location": "New York", "units": ["c', { location: 'New York', units: ['c'] }],
    ['{"board": "ops", "limit": 1', { board: 'ops', limit: 1 }],
    ['{"a": {"b": tr', { a: { b: true } }],
    ['{"a": nu', { a: null }],
    ['{"board": "ops"}', { board: 'ops' }],
  ])('heals %j into %j', (text, expected) => {
    expect(healPartialArguments(text)).toEqual(expected);
  });

  it.each([['[1, 2'], ['"just a string'], ['12'], ['not json at all']])(
    'gives undefined for %j, which cannot become an object',
    (text) => {
      expect(healPartialArguments(text)).toBeUndefined();
    },
  );
});

/** A clock the test moves by hand; `schedule` keeps the timers to run when the time comes. */
class ManualClock implements ThrottleClock {
  time = 1_000;
  readonly #timers: Array<{ at: number; work: () => void; cancelled: boolean }> = [];
  readonly now = (): number => this.time;
  readonly schedule = (work: () => void, delayMs: number): (() => void) => {
    const timer = { at: this.time + delayMs, work, cancelled: false };
    this.#timers.push(timer);
    return () => {
      timer.cancelled = true;
    };
  };
  advance(ms: number): void {
    this.time += ms;
    for (const timer of this.#timers.splice(0)) {
      if (timer.cancelled) continue;
      if (timer.at <= this.time) timer.work();
      else this.#timers.push(timer);
    }
  }
}

describe('LatestOnlyThrottle', () => {
  it('sends the first value at once, drops the ones in between, and sends the latest when the interval has passed', () => {
    const clock = new ManualClock();
    const sent: string[] = [];
    const throttle = new LatestOnlyThrottle<string>({ send: (value) => sent.push(value), clock });
    throttle.push('{"a');
    expect(sent).toEqual(['{"a']);
    clock.advance(20);
    throttle.push('{"ab');
    throttle.push('{"abc');
    expect(sent).toEqual(['{"a']);
    clock.advance(PARTIAL_INPUT_INTERVAL_MS - 21);
    expect(sent).toEqual(['{"a']);
    clock.advance(1);
    expect(sent).toEqual(['{"a', '{"abc']);
    // Quiet for longer than the interval: the next one goes at once again.
    clock.advance(PARTIAL_INPUT_INTERVAL_MS * 3);
    throttle.push('{"abcd');
    expect(sent).toEqual(['{"a', '{"abc', '{"abcd']);
  });

  it('sends nothing more once cancelled (the whole input is coming)', () => {
    const clock = new ManualClock();
    const sent: string[] = [];
    const throttle = new LatestOnlyThrottle<string>({ send: (value) => sent.push(value), clock });
    throttle.push('1');
    throttle.push('12');
    throttle.cancel();
    clock.advance(PARTIAL_INPUT_INTERVAL_MS * 2);
    expect(sent).toEqual(['1']);
  });
});

describe('Runner and streamed tool input', () => {
  it("passes a provider's tool-call-delta events on as they come; the history keeps only the whole call", async () => {
    const call = { type: 'tool-call', id: 'call_1', name: 'dash__show', input: { board: 'ops' } } as const;
    const provider = new ScriptedProvider([
      [
        { type: 'tool-call-delta', id: 'call_1', name: 'dash__show', argumentsText: '{"bo' },
        { type: 'tool-call-delta', id: 'call_1', name: 'dash__show', argumentsText: '{"board": "o' },
        { type: 'tool-call-delta', id: 'call_1', name: 'dash__show', argumentsText: '{"board": "ops"}' },
        { type: 'tool-call', call },
        { type: 'finish', reason: 'tool-calls' },
      ],
      textReply('shown'),
    ]);
    const tools = new FakeToolHost({ dash__show: () => 'ok' });
    const runner = new Runner({ provider, tools });
    const events: RunnerEvent[] = [];
    const result = await runner.run('show it', { onEvent: (event) => events.push(event) });
    expect(result.text).toBe('shown');
    const kinds = events
      .filter((event) => event.type !== 'tool-mode')
      .map((event) => (event.type === 'tool-call-delta' ? `delta ${event.argumentsText}` : event.type));
    expect(kinds.slice(0, 6)).toEqual([
      'step-start',
      'delta {"bo',
      'delta {"board": "o',
      'delta {"board": "ops"}',
      'step-finish',
      'tool-call',
    ]);
    expect(runner.history[1]).toEqual({ role: 'assistant', content: [call] });
  });
});
