/**
 * A Gemini `streamGenerateContent` stream → our provider events. Every chunk is validated with zod
 * (it comes from the network); text parts become text deltas, function call parts (always whole
 * in Gemini's stream) become tool calls, and the last chunk's finish reason and usage the finish.
 */
import { createToolCallId } from './tool-call-id.js';
import * as z from 'zod';
import { AbortedError, ProviderError } from '../src/core/errors.js';
import type { FinishReason, ProviderEvent, ToolCallBlock, Usage } from '../src/core/types.js';
import { GOOGLE_METADATA_KEY, type GoogleCallMetadata } from './google-request.js';
import { definedProperties } from '../src/util/defined-properties.js';

const PartSchema = z.looseObject({
  text: z.string().optional(),
  thought: z.boolean().optional(),
  thoughtSignature: z.string().optional(),
  functionCall: z
    .looseObject({
      id: z.string().optional(),
      name: z.string().optional(),
      // Read as anything: arguments that are not an object are the model's, for the Runner to refuse.
      args: z.unknown().optional(),
    })
    .optional(),
});

/** Tool arguments as the Runner takes them: a JSON object. */
const ArgumentsSchema = z.record(z.string(), z.unknown());

const ChunkSchema = z.looseObject({
  candidates: z
    .array(
      z.looseObject({
        content: z.looseObject({ parts: z.array(PartSchema).optional() }).optional(),
        finishReason: z.string().optional(),
        // Vertex AI's explanation of the reason; @google/genai drops it for the Gemini API.
        finishMessage: z.string().optional(),
      }),
    )
    .optional(),
  promptFeedback: z.looseObject({ blockReason: z.string().optional() }).optional(),
  usageMetadata: z
    .looseObject({
      promptTokenCount: z.number().optional(),
      candidatesTokenCount: z.number().optional(),
      thoughtsTokenCount: z.number().optional(),
      toolUsePromptTokenCount: z.number().optional(),
      // Tokens of the prompt served from a context cache; counted in promptTokenCount too.
      cachedContentTokenCount: z.number().optional(),
    })
    .optional(),
});

type Chunk = z.infer<typeof ChunkSchema>;

/** Options of {@link fromGeminiStream}. */
export interface GeminiStreamOptions {
  /** Makes an id for a call Gemini sent without one. Defaults to `call_<uuid>`. */
  readonly createId?: () => string;
  /** The call's signal: a stream that ends after it fired was cancelled, not cut. */
  readonly signal?: AbortSignal;
}

/**
 * Maps the SDK's chunk stream to {@link ProviderEvent}s, ending with one `finish`. Thought parts
 * (the model's reasoning summaries) are not part of the answer and are skipped. A call's thought
 * signature and id are kept in its `providerMetadata.google` for {@link toGeminiRequest}.
 *
 * @throws ProviderError (retryable) when the stream ends without a finish reason (it was cut) or
 * with one of {@link FAILED_ANSWER_REASONS} (the model produced nothing usable; another sample
 * may); {@link AbortedError} when it ended because `signal` fired.
 */
export async function* fromGeminiStream(
  chunks: AsyncIterable<unknown>,
  options: GeminiStreamOptions = {},
): AsyncGenerator<ProviderEvent> {
  const createId = options.createId ?? createToolCallId;
  let finishReason: string | undefined;
  let finishMessage: string | undefined;
  let blockReason: string | undefined;
  let usage: Usage | undefined;
  let calledTools = false;
  for await (const raw of chunks) {
    const chunk = parseChunk(raw);
    // Gemini repeats the running totals in every chunk: keep the last, never add them up.
    if (chunk.usageMetadata !== undefined) usage = toUsage(chunk.usageMetadata);
    blockReason = chunk.promptFeedback?.blockReason ?? blockReason;
    const candidate = chunk.candidates?.[0];
    if (candidate === undefined) continue;
    finishReason = candidate.finishReason ?? finishReason;
    finishMessage = candidate.finishMessage ?? finishMessage;
    for (const part of candidate.content?.parts ?? []) {
      if (part.functionCall !== undefined) {
        calledTools = true;
        yield { type: 'tool-call', call: toToolCall(part.functionCall, part.thoughtSignature, createId) };
      } else if (part.text !== undefined && part.text !== '') {
        // A thought part (a summary of the model's thinking, sent with `includeThoughts`) is
        // reasoning, never the answer; its signature matters only on function calls (kept above).
        yield part.thought === true
          ? { type: 'reasoning-delta', text: part.text }
          : { type: 'text-delta', text: part.text };
      }
    }
  }
  if (options.signal?.aborted === true) throw new AbortedError('cancelled', { cause: options.signal.reason });
  // A blocked prompt gets no candidate at all, so no finish reason either: that one is complete.
  if (blockReason !== undefined && finishReason === undefined) {
    yield usage === undefined
      ? { type: 'finish', reason: 'content-filter' }
      : { type: 'finish', reason: 'content-filter', usage };
    return;
  }
  if (finishReason === undefined) {
    throw new ProviderError(
      'google',
      'the answer was cut off: the stream ended before the answer was complete (the Gemini API sent no finishReason)',
      { retryable: true },
    );
  }
  const failure = FAILED_ANSWER_REASONS.get(finishReason);
  if (failure !== undefined) {
    const detail = finishMessage === undefined ? '' : ` (${finishMessage})`;
    throw new ProviderError('google', `the Gemini model ${failure}: finish reason ${finishReason}${detail}`, {
      retryable: true,
    });
  }
  const reason = toFinishReason(finishReason, calledTools);
  yield usage === undefined ? { type: 'finish', reason } : { type: 'finish', reason, usage };
}

/**
 * Finish reasons that mean the model failed to give a usable answer: what it sent is not an answer
 * to show, nor calls to run. Sampling again may well succeed, so they are retryable errors rather
 * than an empty (or half) answer reported as a success.
 */
const FAILED_ANSWER_REASONS: ReadonlyMap<string, string> = new Map([
  ['MALFORMED_FUNCTION_CALL', 'produced a malformed function call'],
  ['UNEXPECTED_TOOL_CALL', 'called a tool it was not offered'],
  ['TOO_MANY_TOOL_CALLS', 'made too many tool calls in a row'],
]);

function parseChunk(raw: unknown): Chunk {
  const parsed = ChunkSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ProviderError(
      'google',
      `google: unexpected answer from the Gemini API: ${z.prettifyError(parsed.error)}`,
      {
        retryable: false,
        cause: parsed.error,
      },
    );
  }
  return parsed.data;
}

function toToolCall(
  functionCall: NonNullable<z.infer<typeof PartSchema>['functionCall']>,
  thoughtSignature: string | undefined,
  createId: () => string,
): ToolCallBlock {
  const metadata: GoogleCallMetadata = definedProperties({
    thoughtSignature,
    functionCallId: functionCall.id,
  });
  const args = ArgumentsSchema.safeParse(functionCall.args ?? {});
  return {
    type: 'tool-call',
    id: functionCall.id ?? createId(),
    name: functionCall.name ?? '',
    // Not an object (a list, a string…): kept as text, and the Runner answers the call with an
    // error result, as for the other vendors, instead of failing the whole answer.
    ...(args.success ? { input: args.data } : { input: {}, rawInput: JSON.stringify(functionCall.args) }),
    ...(Object.keys(metadata).length === 0 ? {} : { providerMetadata: { [GOOGLE_METADATA_KEY]: metadata } }),
  };
}

/**
 * Output counts the thinking tokens too: Gemini bills them as output, and a limit on output
 * (`maxOutputTokens`) includes them.
 */
function toUsage(metadata: NonNullable<Chunk['usageMetadata']>): Usage {
  const cached = metadata.cachedContentTokenCount ?? 0;
  return {
    inputTokens: (metadata.promptTokenCount ?? 0) + (metadata.toolUsePromptTokenCount ?? 0),
    outputTokens: (metadata.candidatesTokenCount ?? 0) + (metadata.thoughtsTokenCount ?? 0),
    ...(cached > 0 ? { cacheReadInputTokens: cached } : {}),
  };
}

/** Gemini's finish reasons that mean a filter stopped the answer. */
const FILTER_REASONS = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
]);

/**
 * Maps Gemini's `finishReason`. Gemini says STOP when it asks for tools, so calls decide. Anything
 * else (OTHER, LANGUAGE…) is `other`; a missing reason and the failed-answer reasons never get here,
 * {@link fromGeminiStream} throws for them.
 */
export function toFinishReason(reason: string | undefined, calledTools: boolean): FinishReason {
  if (reason === 'STOP') return calledTools ? 'tool-calls' : 'stop';
  if (reason === 'MAX_TOKENS') return 'length';
  if (reason !== undefined && FILTER_REASONS.has(reason)) return 'content-filter';
  return 'other';
}
