/**
 * The Messages API's stream events, checked with zod: the SDK parses each event's JSON but checks
 * nothing, so without this a wrong field from a proxy or a compatible server would flow on as
 * `undefined` or a number where text belongs. Only the fields that are read are described, in
 * loose objects (the API adds fields). Event, block and delta types newer than this code pass with
 * only their `type` checked, since the API may add them at any time.
 */
import * as z from 'zod';
import { ProviderError } from '../src/core/errors.js';
import { isRetryableAnthropicErrorType } from './anthropic-errors.js';

const PROVIDER = 'anthropic';

const index = z.number().int().nonnegative();
const tokenCount = z.number().int().nonnegative().nullish();

/** Token counts of `message_start` (all of them) and `message_delta` (the final output count). */
const usageSchema = z.looseObject({
  input_tokens: tokenCount,
  output_tokens: tokenCount,
  cache_creation_input_tokens: tokenCount,
  cache_read_input_tokens: tokenCount,
});

/** Token counts as an event carries them; `null` where the API has nothing to say. */
export type AnthropicStreamUsage = z.infer<typeof usageSchema>;

/** A content block: only `tool_use` is read (text arrives in deltas); others are passed over. */
const contentBlockSchema = z
  .looseObject({
    type: z.string(),
    id: z.unknown().optional(),
    name: z.unknown().optional(),
    input: z.unknown().optional(),
  })
  .transform((block) => {
    if (block.type !== 'tool_use') return { type: 'other' as const };
    const { id, name, input } = block;
    // A missing or non-string id or name is the model's output gone wrong, not a broken stream:
    // read as empty, the id is replaced by a host-made one and an empty name is answered with an
    // error result (src/core/model-output.ts), as for every vendor, instead of failing the whole turn.
    return {
      type: 'tool_use' as const,
      id: typeof id === 'string' ? id : '',
      name: typeof name === 'string' ? name : '',
      input,
    };
  });

/**
 * A delta: text, thinking and tool input fragments are read; signatures and citations are not (the
 * thinking is shown, never sent back: mcphost does not turn thinking on, and only a request with
 * thinking on needs its blocks, signed, in the history).
 */
const deltaSchema = z
  .looseObject({
    type: z.string(),
    text: z.unknown().optional(),
    thinking: z.unknown().optional(),
    partial_json: z.unknown().optional(),
  })
  .transform((delta, context) => {
    const { type, text, thinking, partial_json: partialJson } = delta;
    if (type === 'text_delta' && typeof text === 'string') return { type: 'text_delta' as const, text };
    // A thinking delta without its text is passed over, like a block type newer than this code.
    if (type === 'thinking_delta') {
      return typeof thinking === 'string'
        ? { type: 'thinking_delta' as const, thinking }
        : { type: 'other' as const };
    }
    if (type === 'input_json_delta' && typeof partialJson === 'string') {
      return { type: 'input_json_delta' as const, partialJson };
    }
    if (type !== 'text_delta' && type !== 'input_json_delta') return { type: 'other' as const };
    const field = type === 'text_delta' ? 'text' : 'partial_json';
    context.addIssue({ code: 'custom', path: [field], message: `a ${type} needs a string ${field}` });
    return z.NEVER;
  });

const eventSchema = z.discriminatedUnion('type', [
  z.looseObject({
    type: z.literal('message_start'),
    message: z.looseObject({ usage: usageSchema.nullish() }),
  }),
  z.looseObject({ type: z.literal('content_block_start'), index, content_block: contentBlockSchema }),
  z.looseObject({ type: z.literal('content_block_delta'), index, delta: deltaSchema }),
  z.looseObject({ type: z.literal('content_block_stop'), index }),
  z.looseObject({
    type: z.literal('message_delta'),
    delta: z.looseObject({ stop_reason: z.string().nullish() }),
    usage: usageSchema.nullish(),
  }),
  z.looseObject({ type: z.literal('message_stop') }),
  z.looseObject({
    type: z.literal('error'),
    error: z.looseObject({ type: z.string(), message: z.string() }),
  }),
]);

/** A stream event of a type this code reads, checked. */
export type AnthropicStreamEvent = z.infer<typeof eventSchema>;

const KNOWN_TYPES: ReadonlySet<string> = new Set(
  eventSchema.options.map((option) => option.shape.type.value),
);

const typedSchema = z.looseObject({ type: z.string() });

/**
 * Checks one event as the SDK yields it. Returns `undefined` for an event type this code does not
 * read, and throws for an `error` event (the SDK throws for those itself when the server names the
 * SSE event `error`; a server may also send one under another name).
 *
 * @throws ProviderError, not retryable, naming what was wrong, when an event is not what the
 * Messages API sends: another try would get the same from the same server.
 */
export function parseAnthropicEvent(
  raw: unknown,
): Exclude<AnthropicStreamEvent, { type: 'error' }> | undefined {
  const typed = typedSchema.safeParse(raw);
  if (!typed.success) throw unreadable('an event', typed.error);
  if (!KNOWN_TYPES.has(typed.data.type)) return undefined;
  const parsed = eventSchema.safeParse(raw);
  if (!parsed.success) throw unreadable(`a ${typed.data.type} event`, parsed.error);
  const event = parsed.data;
  if (event.type === 'error') {
    const { type, message } = event.error;
    throw new ProviderError(PROVIDER, `Anthropic API error during the answer (${type}): ${message}`, {
      retryable: isRetryableAnthropicErrorType(type),
    });
  }
  return event;
}

function unreadable(what: string, error: z.ZodError): ProviderError {
  return new ProviderError(
    PROVIDER,
    `the Anthropic API sent ${what} this client cannot read: ${z.prettifyError(error)}`,
    { retryable: false, cause: error },
  );
}
