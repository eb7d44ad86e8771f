import { describe, expect, it } from 'vitest';
import { OpenAIStreamAccumulator, parseToolArguments, toFinishReason } from '../../providers/openai.js';
import { ProviderError } from '../../src/core/errors.js';
import type { ProviderEvent } from '../../src/core/types.js';

function chunk(delta: Record<string, unknown>, finishReason: string | null = null): unknown {
  return {
    id: 'x',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'm',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  };
}

function usageOf(prompt: number, completion: number): Record<string, number> {
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** A call's arguments so far, as the accumulator passes them on while they stream. */
function growing(id: string, name: string, argumentsText: string): ProviderEvent {
  return { type: 'tool-call-delta', id, name, argumentsText };
}

function run(chunks: readonly unknown[], makeId?: () => string): ProviderEvent[] {
  const accumulator = new OpenAIStreamAccumulator(makeId);
  return [...chunks.flatMap((item) => accumulator.push(item)), ...accumulator.finish()];
}

describe('OpenAIStreamAccumulator', () => {
  it("reports OpenAI's cached prompt tokens (counted in the input too)", () => {
    const events = run([
      chunk({ content: 'hi' }),
      chunk({}, 'stop'),
      {
        id: 'x',
        choices: [],
        usage: { ...usageOf(1200, 5), prompt_tokens_details: { cached_tokens: 1024, audio_tokens: 0 } },
      },
    ]);
    expect(events.at(-1)).toEqual({
      type: 'finish',
      reason: 'stop',
      usage: { inputTokens: 1200, outputTokens: 5, cacheReadInputTokens: 1024 },
    });
  });

  it('passes text on as it arrives and ends with finish and usage', () => {
    const events = run([
      chunk({ role: 'assistant', content: '' }),
      chunk({ content: 'Hel' }),
      chunk({ content: 'lo' }),
      chunk({}, 'stop'),
      { id: 'x', choices: [], usage: { prompt_tokens: 11, completion_tokens: 2, total_tokens: 13 } },
    ]);
    expect(events).toEqual([
      { type: 'text-delta', text: 'Hel' },
      { type: 'text-delta', text: 'lo' },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 11, outputTokens: 2 } },
    ]);
  });

  it('assembles interleaved fragments of parallel calls by index', () => {
    const events = run([
      chunk({
        tool_calls: [
          { index: 0, id: 'call_a', type: 'function', function: { name: 'x__echo', arguments: '' } },
        ],
      }),
      chunk({
        tool_calls: [
          { index: 1, id: 'call_b', type: 'function', function: { name: 'y__read', arguments: '{"pa' } },
        ],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"message":' } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: 'th":"/tmp"}' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"hi"}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    expect(events).toEqual([
      // Each call's arguments so far, as its pieces come (an empty piece adds nothing)…
      growing('call_b', 'y__read', '{"pa'),
      growing('call_a', 'x__echo', '{"message":'),
      growing('call_b', 'y__read', '{"path":"/tmp"}'),
      growing('call_a', 'x__echo', '{"message":"hi"}'),
      // …then the whole calls, in index order, when the stream ends.
      {
        type: 'tool-call',
        call: { type: 'tool-call', id: 'call_a', name: 'x__echo', input: { message: 'hi' } },
      },
      {
        type: 'tool-call',
        call: { type: 'tool-call', id: 'call_b', name: 'y__read', input: { path: '/tmp' } },
      },
      { type: 'finish', reason: 'tool-calls' },
    ]);
  });

  it('copes with servers that omit the index or the id', () => {
    const ids = ['made_1', 'made_2'];
    const events = run(
      [
        chunk({ tool_calls: [{ id: 'call_a', function: { name: 'a', arguments: '{"n":' } }] }),
        chunk({ tool_calls: [{ function: { arguments: '1}' } }] }),
        chunk({ tool_calls: [{ index: 5, function: { name: 'b', arguments: '{}' } }] }),
        chunk({}, 'stop'),
      ],
      () => ids.shift() ?? 'none',
    );
    expect(events).toEqual([
      growing('call_a', 'a', '{"n":'),
      growing('call_a', 'a', '{"n":1}'),
      // The call without an id gets one only at the end: its pieces are not passed on.
      { type: 'tool-call', call: { type: 'tool-call', id: 'call_a', name: 'a', input: { n: 1 } } },
      { type: 'tool-call', call: { type: 'tool-call', id: 'made_1', name: 'b', input: {} } },
      { type: 'finish', reason: 'tool-calls' },
    ]);
  });

  it('keeps unparsable arguments as rawInput with an empty input', () => {
    const events = run([
      chunk({ tool_calls: [{ index: 0, id: 'c', function: { name: 'a', arguments: '{"path": "/tm' } }] }),
      chunk({}, 'length'),
    ]);
    expect(events).toEqual([
      growing('c', 'a', '{"path": "/tm'),
      {
        type: 'tool-call',
        call: { type: 'tool-call', id: 'c', name: 'a', input: {}, rawInput: '{"path": "/tm' },
      },
      { type: 'finish', reason: 'length' },
    ]);
  });

  it('shows a refusal as text', () => {
    expect(run([chunk({ refusal: 'I cannot help with that.' }), chunk({}, 'stop')])).toEqual([
      { type: 'text-delta', text: 'I cannot help with that.' },
      { type: 'finish', reason: 'stop' },
    ]);
  });

  it('takes a finish_reason sent only in the final usage chunk, as some compatible servers do', () => {
    const events = run([
      chunk({ content: 'Hi' }),
      { id: 'x', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: usageOf(3, 1) },
    ]);
    expect(events).toEqual([
      { type: 'text-delta', text: 'Hi' },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 3, outputTokens: 1 } },
    ]);
  });

  it.each([
    ['text', [chunk({ role: 'assistant', content: '' }), chunk({ content: 'The answer is' })]],
    [
      'a tool call',
      [chunk({ tool_calls: [{ index: 0, id: 'c', function: { name: 'a', arguments: '{"pa' } }] })],
    ],
    ['nothing', []],
  ])('makes a stream of %s without any finish_reason a retryable ProviderError', (_, chunks) => {
    const accumulator = new OpenAIStreamAccumulator();
    for (const item of chunks) accumulator.push(item);
    let caught: unknown;
    try {
      accumulator.finish();
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ProviderError);
    expect((caught as ProviderError).retryable).toBe(true);
    expect((caught as ProviderError).message).toContain('the stream ended before the answer was complete');
  });

  it('refuses a chunk it cannot read, as a non-retryable ProviderError', () => {
    const accumulator = new OpenAIStreamAccumulator();
    let caught: unknown;
    try {
      accumulator.push({ choices: [{ delta: { content: 42 } }] });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ProviderError);
    expect((caught as ProviderError).retryable).toBe(false);
    expect((caught as ProviderError).message).toContain('cannot read');
  });
});

describe('parseToolArguments', () => {
  it.each([
    ['{"a":1}', { input: { a: 1 } }],
    ['', { input: {} }],
    ['  ', { input: {} }],
    ['[1,2]', { input: {}, rawInput: '[1,2]' }],
    ['null', { input: {}, rawInput: 'null' }],
    ['not json', { input: {}, rawInput: 'not json' }],
  ])('%j → %j', (text, expected) => {
    expect(parseToolArguments(text)).toEqual(expected);
  });
});

describe('toFinishReason', () => {
  it.each([
    ['stop', false, 'stop'],
    ['stop', true, 'tool-calls'],
    ['tool_calls', true, 'tool-calls'],
    ['length', false, 'length'],
    ['length', true, 'length'],
    ['content_filter', false, 'content-filter'],
    ['eos', false, 'other'],
    [null, false, 'other'],
    [undefined, true, 'tool-calls'],
  ] as const)('%s (calls: %s) → %s', (reason, hasCalls, expected) => {
    expect(toFinishReason(reason, hasCalls)).toBe(expected);
  });
});
