/**
 * A Gemini `streamGenerateContent` stream → our provider events. Every chunk is validated with zod
 * (it comes from the network); text parts become text deltas, function call parts (always whole
 * in Gemini's stream) become tool calls, and the last chunk's finish reason and usage the finish.
 */
import { createToolCallId } from './tool-call-id.js';
import { z } from 'zod';
import { ProviderError } from '../src/errors.js';
import type { FinishReason, ProviderEvent, ToolCallBlock, Usage } from '../src/types.js';
import { GOOGLE_METADATA_KEY, type GoogleCallMetadata } from './google-request.js';

const PartSchema = z.looseObject({
  text: z.string().optional(),
  thought: z.boolean().optional(),
  thoughtSignature: z.string().optional(),
  functionCall: z
    .looseObject({
      id: z.string().optional(),
      name: z.string().optional(),
      args: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
});

const ChunkSchema = z.looseObject({
  candidates: z
    .array(
      z.looseObject({
        content: z.looseObject({ parts: z.array(PartSchema).optional() }).optional(),
        finishReason: z.string().optional(),
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
    })
    .optional(),
});

type Chunk = z.infer<typeof ChunkSchema>;

/** Options of {@link fromGeminiStream}. */
export interface GeminiStreamOptions {
  /** Makes an id for a call Gemini sent without one. Defaults to `call_<uuid>`. */
  readonly createId?: () => string;
}

/**
 * Maps the SDK's chunk stream to {@link ProviderEvent}s, ending with one `finish`. Thought parts
 * (the model's reasoning summaries) are not part of the answer and are skipped. A call's thought
 * signature and id are kept in its `providerMetadata.google` for {@link toGeminiRequest}.
 */
export async function* fromGeminiStream(
  chunks: AsyncIterable<unknown>,
  options: GeminiStreamOptions = {},
): AsyncGenerator<ProviderEvent> {
  const createId = options.createId ?? createToolCallId;
  let finishReason: string | undefined;
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
    for (const part of candidate.content?.parts ?? []) {
      if (part.functionCall !== undefined) {
        calledTools = true;
        yield { type: 'tool-call', call: toToolCall(part.functionCall, part.thoughtSignature, createId) };
      } else if (part.text !== undefined && part.text !== '' && part.thought !== true) {
        yield { type: 'text-delta', text: part.text };
      }
    }
  }
  const reason =
    blockReason !== undefined && finishReason === undefined
      ? 'content-filter'
      : toFinishReason(finishReason, calledTools);
  yield usage === undefined ? { type: 'finish', reason } : { type: 'finish', reason, usage };
}

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
  const metadata: GoogleCallMetadata = {
    ...(thoughtSignature === undefined ? {} : { thoughtSignature }),
    ...(functionCall.id === undefined ? {} : { functionCallId: functionCall.id }),
  };
  return {
    type: 'tool-call',
    id: functionCall.id ?? createId(),
    name: functionCall.name ?? '',
    input: functionCall.args ?? {},
    ...(Object.keys(metadata).length === 0 ? {} : { providerMetadata: { [GOOGLE_METADATA_KEY]: metadata } }),
  };
}

/**
 * Output counts the thinking tokens too: Gemini bills them as output, and a limit on output
 * (`maxOutputTokens`) includes them.
 */
function toUsage(metadata: NonNullable<Chunk['usageMetadata']>): Usage {
  return {
    inputTokens: (metadata.promptTokenCount ?? 0) + (metadata.toolUsePromptTokenCount ?? 0),
    outputTokens: (metadata.candidatesTokenCount ?? 0) + (metadata.thoughtsTokenCount ?? 0),
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
 * Maps Gemini's `finishReason`. Gemini says STOP when it asks for tools, so calls decide. A stream
 * that ends without a reason was cut short: `other`.
 */
export function toFinishReason(reason: string | undefined, calledTools: boolean): FinishReason {
  if (reason === 'STOP') return calledTools ? 'tool-calls' : 'stop';
  if (reason === 'MAX_TOKENS') return 'length';
  if (reason !== undefined && FILTER_REASONS.has(reason)) return 'content-filter';
  return 'other';
}
