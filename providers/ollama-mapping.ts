/**
 * Pure mappings between our conversation and Ollama's `/api/chat` wire format, both ways.
 * No I/O here, so every rule is checked by unit tests against the shared conversation fixture.
 */
import * as z from 'zod';
import { ProviderError } from '../src/core/errors.js';
import type {
  AssistantMessage,
  ChatRequest,
  FinishReason,
  ImageBlock,
  JsonSchema,
  Message,
  ProviderEvent,
  TextBlock,
  ToolCallBlock,
  ToolMessage,
  ToolSpec,
  UserMessage,
} from '../src/core/types.js';
import { envelopedContent } from './untrusted-marking.js';

/** A tool call as Ollama sends and receives it: no id, arguments as a JSON object. */
export interface OllamaToolCall {
  readonly function: { readonly name: string; readonly arguments: Readonly<Record<string, unknown>> };
}

/** One message of Ollama's chat API. Images are base64 without a `data:` prefix. */
export interface OllamaMessage {
  readonly role: 'system' | 'user' | 'assistant' | 'tool';
  readonly content: string;
  readonly images?: string[];
  readonly tool_calls?: OllamaToolCall[];
  /** On `tool` messages: which tool produced this result (Ollama matches results by name and order). */
  readonly tool_name?: string;
}

/** A tool offered to the model. Ollama takes the JSON Schema as is. */
export interface OllamaTool {
  readonly type: 'function';
  readonly function: { readonly name: string; readonly description: string; readonly parameters: JsonSchema };
}

/** Ollama's sampling options that mcphost sets. */
export interface OllamaOptions {
  temperature?: number;
  top_p?: number;
  top_k?: number;
  num_predict?: number;
  /** The window Ollama runs the model with for this request (ollama-model-info.ts). */
  num_ctx?: number;
  stop?: string[];
}

/** The body of a streaming `/api/chat` request. */
export interface OllamaChatBody {
  readonly model: string;
  readonly messages: OllamaMessage[];
  readonly tools?: OllamaTool[];
  readonly options?: OllamaOptions;
  /** The JSON Schema the answer must match (structured output), on steps without tools. */
  readonly format?: JsonSchema;
  readonly stream: true;
}

/** Said in place of the text when a tool failed, since Ollama's tool messages have no error flag. */
export const TOOL_ERROR_PREFIX = 'Error: ';

/** Maps one model call to the body of an `/api/chat` request, run with the window `numCtx` when given. */
export function toOllamaRequest(request: ChatRequest, model: string, numCtx?: number): OllamaChatBody {
  const messages: OllamaMessage[] = [];
  if (request.system !== undefined && request.system !== '') {
    messages.push({ role: 'system', content: request.system });
  }
  for (const message of request.messages) messages.push(...toOllamaMessages(message));
  const options = toOllamaOptions(request.settings);
  if (numCtx !== undefined) options.num_ctx = numCtx;
  return {
    model,
    messages,
    ...(request.tools.length > 0 ? { tools: request.tools.map(toOllamaTool) } : {}),
    ...(Object.keys(options).length > 0 ? { options } : {}),
    ...toOllamaFormat(request),
    stream: true,
  };
}

/**
 * Ollama's structured output: `format` is a JSON Schema turned into a grammar over the whole reply.
 * A grammar over the whole reply leaves no room for a tool call, so it is sent only on a step
 * without tools (with tools, the Runner's check and its answer step without tools do the work).
 */
function toOllamaFormat(request: ChatRequest): { format?: JsonSchema } {
  const format = request.responseFormat;
  if (format === undefined || request.tools.length > 0) return {};
  switch (format.type) {
    case 'text':
      return {};
    case 'json-schema':
      return { format: format.schema };
    default: {
      const unexpected: never = format;
      throw new TypeError(`unknown response format ${JSON.stringify(unexpected)}`);
    }
  }
}

/** One of our messages becomes one Ollama message, except a tool message: one per result. */
export function toOllamaMessages(message: Message): OllamaMessage[] {
  switch (message.role) {
    case 'user':
      return [toUserMessage(message)];
    case 'assistant':
      return [toAssistantMessage(message)];
    case 'tool':
      return toToolMessages(message);
    default: {
      const unexpected: never = message;
      throw new TypeError(`unknown message role in ${JSON.stringify(unexpected)}`);
    }
  }
}

function toUserMessage(message: UserMessage): OllamaMessage {
  return withImages({ role: 'user', content: joinText(message.content) }, message.content);
}

function toAssistantMessage(message: AssistantMessage): OllamaMessage {
  const calls = message.content.filter((block): block is ToolCallBlock => block.type === 'tool-call');
  return {
    role: 'assistant',
    content: joinText(message.content),
    // A call whose arguments were unreadable goes back with the `{}` we kept: Ollama needs an object.
    ...(calls.length > 0
      ? { tool_calls: calls.map((call) => ({ function: { name: call.name, arguments: call.input } })) }
      : {}),
  };
}

function toToolMessages(message: ToolMessage): OllamaMessage[] {
  return message.content.map((result) => {
    // Marked as data: the model's template renders the tool role; the envelope is the visible boundary.
    const text = joinText(envelopedContent(result));
    return withImages(
      {
        role: 'tool',
        content: result.isError ? `${TOOL_ERROR_PREFIX}${text}` : text,
        tool_name: result.toolName,
      },
      result.content,
    );
  });
}

/** Text blocks of one message, in order, one paragraph each. */
function joinText(blocks: ReadonlyArray<{ readonly type: string }>): string {
  return blocks
    .filter((block): block is TextBlock => block.type === 'text')
    .map((block) => block.text)
    .join('\n\n');
}

/** Ollama carries images beside the text, as base64, on any message (vision models read them). */
function withImages(message: OllamaMessage, blocks: ReadonlyArray<{ readonly type: string }>): OllamaMessage {
  const images = blocks
    .filter((block): block is ImageBlock => block.type === 'image')
    .map((block) => block.data);
  return images.length > 0 ? { ...message, images } : message;
}

function toOllamaTool(tool: ToolSpec): OllamaTool {
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
  };
}

/** Ollama takes all five settings; `maxTokens` is its `num_predict`. */
function toOllamaOptions(settings: ChatRequest['settings']): OllamaOptions {
  const options: OllamaOptions = {};
  if (settings.temperature !== undefined) options.temperature = settings.temperature;
  if (settings.topP !== undefined) options.top_p = settings.topP;
  if (settings.topK !== undefined) options.top_k = settings.topK;
  if (settings.maxTokens !== undefined) options.num_predict = settings.maxTokens;
  if (settings.stopSequences !== undefined && settings.stopSequences.length > 0) {
    options.stop = [...settings.stopSequences];
  }
  return options;
}

const chunkSchema = z.object({
  message: z
    .object({
      content: z.string().optional(),
      // A thinking model's reasoning, apart from `content` (qwen3, deepseek-r1, gpt-oss).
      thinking: z.string().nullish(),
      tool_calls: z
        .array(z.object({ function: z.object({ name: z.string(), arguments: z.unknown() }) }))
        .nullish(),
    })
    .optional(),
  done: z.boolean(),
  done_reason: z.string().optional(),
  prompt_eval_count: z.number().optional(),
  eval_count: z.number().optional(),
});

/** One line of Ollama's streamed answer, as far as mcphost reads it. */
export type OllamaChunk = z.infer<typeof chunkSchema>;

/**
 * Checks one streamed line against what mcphost reads from it.
 *
 * @throws ProviderError (not retryable) when the line is not an Ollama chat chunk.
 */
export function parseOllamaChunk(value: unknown): OllamaChunk {
  const result = chunkSchema.safeParse(value);
  if (result.success) return result.data;
  throw new ProviderError(
    'ollama',
    `Ollama sent an answer mcphost cannot read: ${z.prettifyError(result.error)}`,
    {
      retryable: false,
    },
  );
}

/** What {@link fromOllamaChunk} needs to know about the stream so far. */
export interface ChunkContext {
  /** Makes a tool-call id, unique within the conversation (Ollama sends none). */
  readonly createId: () => string;
  /** True when an earlier chunk of this answer carried tool calls. */
  readonly sawToolCalls: boolean;
}

/** The events one chunk gives: its text, its tool calls, and the finish when it is the last. */
export function fromOllamaChunk(chunk: OllamaChunk, context: ChunkContext): ProviderEvent[] {
  const events: ProviderEvent[] = [];
  const thinking = chunk.message?.thinking ?? '';
  if (thinking !== '') events.push({ type: 'reasoning-delta', text: thinking });
  const text = chunk.message?.content ?? '';
  if (text !== '') events.push({ type: 'text-delta', text });
  const calls = chunk.message?.tool_calls ?? [];
  for (const call of calls) {
    events.push({ type: 'tool-call', call: toToolCallBlock(call.function, context.createId()) });
  }
  if (chunk.done) {
    const reason = toFinishReason(chunk.done_reason, context.sawToolCalls || calls.length > 0);
    const usage = toUsage(chunk);
    events.push(usage === undefined ? { type: 'finish', reason } : { type: 'finish', reason, usage });
  }
  return events;
}

const argumentsSchema = z.record(z.string(), z.unknown());

/** Ollama sends arguments as an object; anything else is kept as text for the Runner to refuse. */
export function toToolCallBlock(call: { name: string; arguments: unknown }, id: string): ToolCallBlock {
  const input = argumentsSchema.safeParse(call.arguments);
  if (input.success) return { type: 'tool-call', id, name: call.name, input: input.data };
  const rawInput =
    typeof call.arguments === 'string'
      ? call.arguments
      : call.arguments === undefined
        ? ''
        : JSON.stringify(call.arguments);
  return { type: 'tool-call', id, name: call.name, input: {}, rawInput };
}

/**
 * Ollama says `stop` even when the model asked for tools, so the calls decide; `length` is the
 * token limit (`num_predict` or the context); `load`/`unload` and anything new are `other`.
 * Servers older than `done_reason` say nothing: a plain stop.
 */
export function toFinishReason(doneReason: string | undefined, sawToolCalls: boolean): FinishReason {
  if (doneReason === 'length') return 'length';
  if (doneReason === undefined || doneReason === '' || doneReason === 'stop') {
    return sawToolCalls ? 'tool-calls' : 'stop';
  }
  return 'other';
}

/** Ollama leaves `prompt_eval_count` out when the whole prompt was cached: that counts as 0. */
function toUsage(chunk: OllamaChunk): { inputTokens: number; outputTokens: number } | undefined {
  if (chunk.prompt_eval_count === undefined && chunk.eval_count === undefined) return undefined;
  return { inputTokens: chunk.prompt_eval_count ?? 0, outputTokens: chunk.eval_count ?? 0 };
}
