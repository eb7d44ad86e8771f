/**
 * The Messages API's server-sent events → our {@link ProviderEvent}s.
 *
 * Text is passed on as it arrives. A `tool_use` block's input arrives as `input_json_delta`
 * fragments that are only JSON together, so a tool call is yielded whole when its block stops (and
 * its arguments so far, as `tool-call-delta`, after each fragment).
 */
import * as z from 'zod';
import { AbortedError, ProviderError } from '../src/core/errors.js';
import type { FinishReason, ProviderEvent, ToolCallBlock, Usage } from '../src/core/types.js';
import { parseAnthropicEvent, type AnthropicStreamUsage } from './anthropic-events.js';

/** A tool call being streamed: its input is still a string of JSON fragments. */
export interface PendingToolCall {
  readonly id: string;
  readonly name: string;
  readonly startInput: unknown;
  json: string;
}

/**
 * Maps one streamed answer. Ends with a `finish` event at `message_stop`. Every event is checked
 * ({@link parseAnthropicEvent}): one that is not what the API sends is a non-retryable
 * {@link ProviderError}; types this code does not know are skipped. A stream that stops before
 * `message_stop` was cut: an abort (the SDK ends the stream quietly when its signal fires) becomes
 * {@link AbortedError}, anything else a retryable {@link ProviderError}.
 */
export async function* fromAnthropicStream(
  events: AsyncIterable<unknown>,
  signal?: AbortSignal,
): AsyncGenerator<ProviderEvent> {
  const toolCalls = new Map<number, PendingToolCall>();
  let stopReason: string | null | undefined;
  let startUsage: AnthropicStreamUsage | null | undefined;
  let deltaUsage: AnthropicStreamUsage | null | undefined;
  for await (const raw of events) {
    // Undefined: an event type newer than this code, which carries nothing we use.
    const event = parseAnthropicEvent(raw);
    switch (event?.type) {
      case undefined:
        break;
      case 'message_start':
        startUsage = event.message.usage;
        break;
      case 'content_block_start':
        if (event.content_block.type === 'tool_use') {
          const { id, name, input } = event.content_block;
          toolCalls.set(event.index, { id, name, startInput: input, json: '' });
        }
        break;
      case 'content_block_delta':
        if (event.delta.type === 'text_delta') {
          if (event.delta.text !== '') yield { type: 'text-delta', text: event.delta.text };
        } else if (event.delta.type === 'thinking_delta') {
          if (event.delta.thinking !== '') yield { type: 'reasoning-delta', text: event.delta.thinking };
        } else if (event.delta.type === 'input_json_delta') {
          const pending = toolCalls.get(event.index);
          if (pending !== undefined && event.delta.partialJson !== '') {
            pending.json += event.delta.partialJson;
            yield {
              type: 'tool-call-delta',
              id: pending.id,
              name: pending.name,
              argumentsText: pending.json,
            };
          }
        }
        break;
      case 'content_block_stop': {
        const pending = toolCalls.get(event.index);
        if (pending !== undefined) {
          toolCalls.delete(event.index);
          yield { type: 'tool-call', call: toToolCall(pending) };
        }
        break;
      }
      case 'message_delta':
        stopReason = event.delta.stop_reason;
        deltaUsage = event.usage;
        break;
      case 'message_stop': {
        const usage = toUsage(startUsage ?? undefined, deltaUsage ?? undefined);
        const reason = toFinishReason(stopReason ?? null);
        yield usage === undefined ? { type: 'finish', reason } : { type: 'finish', reason, usage };
        return;
      }
      default: {
        const unexpected: never = event;
        throw new TypeError(`unhandled Anthropic event ${JSON.stringify(unexpected)}`);
      }
    }
  }
  if (signal?.aborted === true) throw new AbortedError();
  // Worded as the other vendors' cut streams are, so one cause reads the same whatever the vendor.
  throw new ProviderError(
    'anthropic',
    'the answer was cut off: the Anthropic API stream ended before message_stop',
    {
      retryable: true,
    },
  );
}

/** What a tool's input must be: a JSON object. */
const toolInputSchema = z.record(z.string(), z.unknown());

/**
 * Assembles a tool call. No fragments at all means no arguments (`{}`); fragments that are not
 * a JSON object give `{}` plus `rawInput`, which the Runner answers with an error result.
 */
export function toToolCall(pending: PendingToolCall): ToolCallBlock {
  const base = { type: 'tool-call', id: pending.id, name: pending.name } as const;
  if (pending.json.trim() === '') {
    const start = toolInputSchema.safeParse(pending.startInput);
    return { ...base, input: start.success ? start.data : {} };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(pending.json);
  } catch {
    return { ...base, input: {}, rawInput: pending.json };
  }
  const input = toolInputSchema.safeParse(parsed);
  return input.success ? { ...base, input: input.data } : { ...base, input: {}, rawInput: pending.json };
}

/** Maps Anthropic's `stop_reason` (a string: the API adds reasons before the SDK's types know them). */
export function toFinishReason(reason: string | null): FinishReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'tool_use':
      return 'tool-calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'refusal':
      return 'content-filter';
    case null:
    default:
      // No reason, `pause_turn`, or a reason newer than this code.
      return 'other';
  }
}

/**
 * Token counts. `message_start` has the input count, `message_delta` the final output count (and,
 * in newer API versions, the input count again). Cached input tokens are counted apart by
 * Anthropic; they are input all the same.
 */
export function toUsage(
  start: AnthropicStreamUsage | undefined,
  delta: AnthropicStreamUsage | undefined,
): Usage | undefined {
  const outputTokens = delta?.output_tokens ?? start?.output_tokens;
  const input = delta?.input_tokens ?? start?.input_tokens;
  // `null` as well as missing: the API writes null where it has no count.
  if (typeof outputTokens !== 'number' || typeof input !== 'number') return undefined;
  const cacheCreation = delta?.cache_creation_input_tokens ?? start?.cache_creation_input_tokens ?? 0;
  const cacheRead = delta?.cache_read_input_tokens ?? start?.cache_read_input_tokens ?? 0;
  return {
    inputTokens: input + cacheCreation + cacheRead,
    outputTokens,
    ...(cacheRead > 0 ? { cacheReadInputTokens: cacheRead } : {}),
    ...(cacheCreation > 0 ? { cacheCreationInputTokens: cacheCreation } : {}),
  };
}
