/**
 * The Messages API's server-sent events → our {@link ProviderEvent}s.
 *
 * Text is passed on as it arrives. A `tool_use` block's input arrives as `input_json_delta`
 * fragments that are only JSON together, so a tool call is yielded whole when its block stops.
 */
import type { Anthropic } from '@anthropic-ai/sdk';
import { z } from 'zod';
import { AbortedError, ProviderError } from '../src/errors.js';
import type { FinishReason, ProviderEvent, ToolCallBlock, Usage } from '../src/types.js';

/** A tool call being streamed: its input is still a string of JSON fragments. */
export interface PendingToolCall {
  readonly id: string;
  readonly name: string;
  readonly startInput: unknown;
  json: string;
}

/**
 * Maps one streamed answer. Ends with a `finish` event at `message_stop`. A stream that stops
 * before `message_stop` was cut: an abort (the SDK ends the stream quietly when its signal
 * fires) becomes {@link AbortedError}, anything else a retryable {@link ProviderError}.
 */
export async function* fromAnthropicStream(
  events: AsyncIterable<Anthropic.RawMessageStreamEvent>,
  signal?: AbortSignal,
): AsyncGenerator<ProviderEvent> {
  const toolCalls = new Map<number, PendingToolCall>();
  let stopReason: Anthropic.StopReason | null = null;
  let startUsage: Partial<Anthropic.Usage> | undefined;
  let deltaUsage: Partial<Anthropic.MessageDeltaUsage> | undefined;
  for await (const event of events) {
    switch (event.type) {
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
        } else if (event.delta.type === 'input_json_delta') {
          const pending = toolCalls.get(event.index);
          if (pending !== undefined) pending.json += event.delta.partial_json;
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
        const usage = toUsage(startUsage, deltaUsage);
        const finish: ProviderEvent =
          usage === undefined
            ? { type: 'finish', reason: toFinishReason(stopReason) }
            : { type: 'finish', reason: toFinishReason(stopReason), usage };
        yield finish;
        return;
      }
      default:
        // Event types newer than this code (the SDK passes unknown names on) carry nothing we use.
        break;
    }
  }
  if (signal?.aborted === true) throw new AbortedError();
  throw new ProviderError('anthropic', 'the Anthropic API stream ended before message_stop', {
    retryable: true,
  });
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

/** Maps Anthropic's `stop_reason`. */
export function toFinishReason(reason: Anthropic.StopReason | null): FinishReason {
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
    case 'pause_turn':
    case null:
      return 'other';
  }
  // A stop reason newer than the SDK's types.
  return 'other';
}

/**
 * Token counts. `message_start` has the input count, `message_delta` the final output count (and,
 * in newer API versions, the input count again). Cached input tokens are counted apart by
 * Anthropic; they are input all the same.
 */
export function toUsage(
  start: Partial<Anthropic.Usage> | undefined,
  delta: Partial<Anthropic.MessageDeltaUsage> | undefined,
): Usage | undefined {
  const outputTokens = delta?.output_tokens ?? start?.output_tokens;
  const input = delta?.input_tokens ?? start?.input_tokens;
  if (outputTokens === undefined || input === undefined) return undefined;
  const cacheCreation = delta?.cache_creation_input_tokens ?? start?.cache_creation_input_tokens ?? 0;
  const cacheRead = delta?.cache_read_input_tokens ?? start?.cache_read_input_tokens ?? 0;
  return { inputTokens: input + cacheCreation + cacheRead, outputTokens };
}
