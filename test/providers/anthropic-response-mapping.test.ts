/** fromAnthropicStream, the small mappers and toAnthropicError: from the Anthropic SDK's answers and errors to ours. */
import { APIConnectionError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import {
  fromAnthropicStream,
  toAnthropicError,
  toFinishReason,
  toToolCall,
  toUsage,
} from '../../providers/anthropic.js';
import { AbortedError, ProviderError } from '../../src/core/errors.js';
import type { ProviderEvent } from '../../src/core/types.js';

async function collect(
  events: Array<Record<string, unknown>>,
  signal?: AbortSignal,
): Promise<ProviderEvent[]> {
  async function* source() {
    yield* events;
  }
  const out: ProviderEvent[] = [];
  for await (const event of fromAnthropicStream(source(), signal)) out.push(event);
  return out;
}

const start = { type: 'message_start', message: { usage: { input_tokens: 30, output_tokens: 1 } } };
const stop = { type: 'message_stop' };

describe('fromAnthropicStream', () => {
  it('passes text deltas on and finishes with the stop reason and usage', async () => {
    const events = await collect([
      start,
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hel' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'lo' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'max_tokens' }, usage: { output_tokens: 9 } },
      stop,
    ]);
    expect(events).toEqual([
      { type: 'text-delta', text: 'Hel' },
      { type: 'text-delta', text: 'lo' },
      { type: 'finish', reason: 'length', usage: { inputTokens: 30, outputTokens: 9 } },
    ]);
  });

  it('assembles tool input from fragments, a call per block, in order, passing the arguments so far on after each fragment', async () => {
    const events = await collect([
      start,
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: 'a', name: 'x__one', input: {} },
      },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"pa' } },
      {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'input_json_delta', partial_json: 'th": "/t' },
      },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: 'mp"}' } },
      { type: 'content_block_stop', index: 0 },
      {
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'tool_use', id: 'b', name: 'x__two', input: {} },
      },
      { type: 'content_block_stop', index: 1 },
      { type: 'some_future_event', index: 2 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 4 } },
      stop,
    ]);
    const growing = (argumentsText: string) => ({
      type: 'tool-call-delta',
      id: 'a',
      name: 'x__one',
      argumentsText,
    });
    expect(events).toEqual([
      // The empty first fragment the API sends adds nothing, so it is not passed on.
      growing('{"pa'),
      growing('{"path": "/t'),
      growing('{"path": "/tmp"}'),
      { type: 'tool-call', call: { type: 'tool-call', id: 'a', name: 'x__one', input: { path: '/tmp' } } },
      { type: 'tool-call', call: { type: 'tool-call', id: 'b', name: 'x__two', input: {} } },
      { type: 'finish', reason: 'tool-calls', usage: { inputTokens: 30, outputTokens: 4 } },
    ]);
  });

  it('reads thinking as reasoning, and skips event, block and delta types it does not read, as the API may add new ones', async () => {
    const events = await collect([
      start,
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Hmm' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'c2ln' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'some_future_event', payload: 42 },
      { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Hi' } },
      { type: 'content_block_stop', index: 1 },
      { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } },
      stop,
    ]);
    expect(events).toEqual([
      { type: 'reasoning-delta', text: 'Hmm' },
      { type: 'text-delta', text: 'Hi' },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 30, outputTokens: 2 } },
    ]);
  });

  it.each([
    [
      'text that is not a string',
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 42 } },
      /a content_block_delta event .*a text_delta needs a string text/s,
    ],
    [
      'tool input that is not a string',
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta' } },
      /a content_block_delta event .*a input_json_delta needs a string partial_json/s,
    ],
    ['a block without an index', { type: 'content_block_stop' }, /a content_block_stop event .*index/s],
    [
      'a stop reason that is not a string',
      { type: 'message_delta', delta: { stop_reason: 7 }, usage: { output_tokens: 1 } },
      /a message_delta event .*stop_reason/s,
    ],
    [
      'a usage count that is not a number',
      { type: 'message_start', message: { usage: { input_tokens: 'many' } } },
      /a message_start event .*input_tokens/s,
    ],
    ['an event without a type', { index: 0 }, /an event this client cannot read.*type/s],
  ])('refuses %s with a non-retryable ProviderError naming it', async (_, event, message) => {
    const error: unknown = await collect([start, event, stop]).catch((caught: unknown) => caught);
    expect(asProviderError(error).retryable).toBe(false);
    expect(asProviderError(error).message).toMatch(message);
  });

  it('reads a tool_use block without a string id or name as empty ones, for the Runner to repair', async () => {
    // Found by the CLI fuzz run: a missing id failed the whole turn (exit 3) where every other
    // vendor's missing id is replaced by a host-made one (src/core/model-output.ts).
    const events = await collect([
      start,
      { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', name: 'x__one' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{}' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_2', name: 7 } },
      { type: 'content_block_stop', index: 1 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 2 } },
      stop,
    ]);
    expect(events.filter((event) => event.type === 'tool-call')).toEqual([
      { type: 'tool-call', call: { type: 'tool-call', id: '', name: 'x__one', input: {} } },
      { type: 'tool-call', call: { type: 'tool-call', id: 'toolu_2', name: '', input: {} } },
    ]);
  });

  it('turns an error event the SDK passed on into a ProviderError, retryable by its type', async () => {
    const overloaded = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } };
    const error = asProviderError(await collect([start, overloaded]).catch((caught: unknown) => caught));
    expect(error.retryable).toBe(true);
    expect(error.message).toBe('Anthropic API error during the answer (overloaded_error): Overloaded');
    const invalid = { type: 'error', error: { type: 'invalid_request_error', message: 'Bad' } };
    expect(
      asProviderError(await collect([start, invalid]).catch((caught: unknown) => caught)).retryable,
    ).toBe(false);
  });

  it('a stream cut before message_stop is a retryable error, or a cancellation once aborted', async () => {
    const cut = [start, { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }];
    const error: unknown = await collect(cut).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect(asProviderError(error).retryable).toBe(true);
    expect(asProviderError(error).message).toBe(
      'the answer was cut off: the Anthropic API stream ended before message_stop',
    );
    const controller = new AbortController();
    controller.abort();
    await expect(collect(cut, controller.signal)).rejects.toBeInstanceOf(AbortedError);
  });
});

describe('small mappers', () => {
  it('toToolCall keeps unreadable or non-object arguments as rawInput', () => {
    const base = { id: 'i', name: 'n', startInput: {} };
    expect(toToolCall({ ...base, json: '{"a": 1' })).toEqual({
      type: 'tool-call',
      id: 'i',
      name: 'n',
      input: {},
      rawInput: '{"a": 1',
    });
    expect(toToolCall({ ...base, json: '[1,2]' })).toEqual({
      type: 'tool-call',
      id: 'i',
      name: 'n',
      input: {},
      rawInput: '[1,2]',
    });
    expect(toToolCall({ ...base, json: '', startInput: { q: 'x' } })).toEqual({
      type: 'tool-call',
      id: 'i',
      name: 'n',
      input: { q: 'x' },
    });
  });

  it('toFinishReason covers every stop reason', () => {
    expect(toFinishReason('end_turn')).toBe('stop');
    expect(toFinishReason('stop_sequence')).toBe('stop');
    expect(toFinishReason('tool_use')).toBe('tool-calls');
    expect(toFinishReason('max_tokens')).toBe('length');
    expect(toFinishReason('model_context_window_exceeded')).toBe('length');
    expect(toFinishReason('refusal')).toBe('content-filter');
    expect(toFinishReason('pause_turn')).toBe('other');
    expect(toFinishReason(null)).toBe('other');
  });

  it('toUsage counts cached input tokens as input, and says how many (telemetry)', () => {
    expect(
      toUsage(
        { input_tokens: 5, cache_read_input_tokens: 100, cache_creation_input_tokens: 20 },
        { output_tokens: 3 },
      ),
    ).toEqual({ inputTokens: 125, outputTokens: 3, cacheReadInputTokens: 100, cacheCreationInputTokens: 20 });
    // No cache used: no cache counts (not zeros).
    expect(toUsage({ input_tokens: 5, cache_read_input_tokens: 0 }, { output_tokens: 3 })).toEqual({
      inputTokens: 5,
      outputTokens: 3,
    });
    expect(toUsage(undefined, undefined)).toBeUndefined();
  });
});

function asProviderError(value: unknown): ProviderError {
  if (!(value instanceof ProviderError))
    throw new TypeError(`expected a ProviderError, got ${String(value)}`);
  return value;
}

describe('toAnthropicError', () => {
  const context = { baseUrl: 'http://127.0.0.1:9' };
  const apiError = (status: number, type: string, message: string, headers: Record<string, string> = {}) =>
    APIError.generate(status, { type: 'error', error: { type, message } }, undefined, new Headers(headers));

  it.each([
    [400, 'invalid_request_error', false],
    [401, 'authentication_error', false],
    [403, 'permission_error', false],
    [404, 'not_found_error', false],
    [408, 'timeout_error', true],
    [409, 'conflict_error', true],
    [429, 'rate_limit_error', true],
    [500, 'api_error', true],
    [503, 'api_error', true],
    [529, 'overloaded_error', true],
  ])('status %i (%s) → retryable %s, with the vendor message', (status, type, retryable) => {
    const mapped = toAnthropicError(apiError(status, type, `vendor says ${status}`), context);
    expect(mapped).toBeInstanceOf(ProviderError);
    const error = asProviderError(mapped);
    expect(error.status).toBe(status);
    expect(error.retryable).toBe(retryable);
    expect(error.provider).toBe('anthropic');
    expect(error.message).toContain(`vendor says ${status}`);
    expect(error.message).toContain(type);
    expect(error.message.includes('ANTHROPIC_API_KEY')).toBe(status === 401 || status === 403);
  });

  it('reads retry-after and retry-after-ms', () => {
    expect(
      asProviderError(
        toAnthropicError(apiError(429, 'rate_limit_error', 'x', { 'retry-after': '7' }), context),
      ).retryAfterMs,
    ).toBe(7000);
    expect(
      asProviderError(
        toAnthropicError(apiError(529, 'overloaded_error', 'x', { 'retry-after-ms': '250' }), context),
      ).retryAfterMs,
    ).toBe(250);
    expect(
      asProviderError(toAnthropicError(apiError(500, 'api_error', 'x'), context)).retryAfterMs,
    ).toBeUndefined();
  });

  it('maps a stream-time error event by its type', () => {
    const overloaded = new APIError(
      undefined,
      { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      undefined,
      undefined,
    );
    const mapped = asProviderError(toAnthropicError(overloaded, context));
    expect([mapped.retryable, mapped.status, mapped.message]).toEqual([
      true,
      undefined,
      'Anthropic API error during the answer (overloaded_error): Overloaded',
    ]);
    const invalid = new APIError(
      undefined,
      { type: 'error', error: { type: 'invalid_request_error', message: 'no' } },
      undefined,
      undefined,
    );
    expect(asProviderError(toAnthropicError(invalid, context)).retryable).toBe(false);
  });

  it('maps aborts, and network failures by their code', () => {
    expect(toAnthropicError(new APIUserAbortError(), context)).toBeInstanceOf(AbortedError);
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const transient = asProviderError(toAnthropicError(new APIConnectionError({ cause: reset }), context));
    const permanent = asProviderError(toAnthropicError(new APIConnectionError({ cause: refused }), context));
    expect([transient.retryable, transient.message]).toEqual([
      true,
      'cannot reach the Anthropic API at http://127.0.0.1:9 (ECONNRESET)',
    ]);
    expect([permanent.retryable, permanent.message]).toEqual([
      false,
      'cannot reach the Anthropic API at http://127.0.0.1:9 (ECONNREFUSED)',
    ]);
  });
});
