/**
 * Our conversation → an Anthropic Messages API request. Pure functions, no SDK at run time.
 *
 * The Messages API (version 2026-10-21, which @anthropic-ai/sdk 1.x sends) wants: the system
 * prompt as a top-level field; `max_tokens` always; every `tool_use` answered by a `tool_result`
 * with its id in the very next (user) message; no empty text blocks; images only as JPEG, PNG,
 * GIF or WebP. It rejects `temperature`, `top_p` and `top_k` with a 400.
 */
import type { Anthropic } from '@anthropic-ai/sdk';
import { finalAnswerTool } from './anthropic-final-answer.js';
import { envelopedContent } from './untrusted-marking.js';
import type {
  AssistantContent,
  ChatRequest,
  GenerationSettings,
  ImageBlock,
  Message,
  TextBlock,
  ToolResultBlock,
  ToolSpec,
  UserContent,
} from '../src/core/types.js';

/** Sent as `max_tokens` when `--max-tokens` is not given: Anthropic requires the field. */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 4096;

/** The only image types the Messages API takes. */
const SUPPORTED_IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const;
type SupportedImageType = (typeof SUPPORTED_IMAGE_TYPES)[number];

/**
 * Settings the Messages API no longer takes (API version 2026-10-21 answers 400 "Extra inputs
 * are not permitted" even for default values), with the flag a user typed to set each.
 */
const UNSUPPORTED_SETTINGS = { temperature: '--temperature', topP: '--top-p', topK: '--top-k' } as const;

/** The flags of the settings in `settings` that Anthropic does not take and that are not sent. */
export function unsupportedAnthropicSettings(settings: GenerationSettings): string[] {
  return (Object.keys(UNSUPPORTED_SETTINGS) as Array<keyof typeof UNSUPPORTED_SETTINGS>)
    .filter((key) => settings[key] !== undefined)
    .map((key) => UNSUPPORTED_SETTINGS[key]);
}

type ContentBlock = Anthropic.ContentBlockParam;
type TextParam = Anthropic.TextBlockParam;
type ImageParam = Anthropic.ImageBlockParam;
type MessageParam = Anthropic.UserMessageParam | Anthropic.AssistantMessageParam;
/** A message as this mapper builds it: always a list of blocks, never the string shorthand. */
interface BlockMessage {
  role: 'user' | 'assistant';
  content: ContentBlock[];
}

/** Maps one model call to the body of `POST /v1/messages` (without `stream`). */
export function toAnthropicRequest(
  request: ChatRequest,
  model: string,
): Anthropic.MessageCreateParamsNonStreaming {
  const { settings } = request;
  const body: Anthropic.MessageCreateParamsNonStreaming = {
    model,
    max_tokens: settings.maxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS,
    messages: toAnthropicMessages(request.messages),
  };
  if (request.system !== undefined && request.system.trim() !== '') body.system = request.system;
  if (request.tools.length > 0) body.tools = request.tools.map(toAnthropicTool);
  const finalAnswer = finalAnswerTool(request);
  if (finalAnswer !== undefined) {
    body.tools = [...(body.tools ?? []), finalAnswer.tool];
    body.tool_choice = finalAnswer.toolChoice;
  }
  if (settings.stopSequences !== undefined && settings.stopSequences.length > 0) {
    body.stop_sequences = [...settings.stopSequences];
  }
  return body;
}

/** Maps a tool; Anthropic takes JSON Schema as is, but insists on an object schema. */
export function toAnthropicTool(tool: ToolSpec): Anthropic.Tool {
  const mapped: Anthropic.Tool = {
    name: tool.name,
    input_schema: { ...tool.inputSchema, type: 'object' },
  };
  if (tool.description !== '') mapped.description = tool.description;
  return mapped;
}

/**
 * Maps the history. A `tool` message becomes a user message of `tool_result` blocks, and
 * consecutive messages of one role are merged (a user message right after a tool message joins
 * it, after the results), so roles alternate and each `tool_use` is answered in the next message.
 * Messages left with no content (only empty text) are dropped: the API refuses empty content.
 */
export function toAnthropicMessages(messages: readonly Message[]): MessageParam[] {
  const mapped: BlockMessage[] = [];
  for (const message of messages) {
    const next = toAnthropicMessage(message);
    if (next.content.length === 0) continue;
    const previous = mapped.at(-1);
    if (previous?.role === next.role) {
      previous.content = [...previous.content, ...next.content];
    } else {
      mapped.push(next);
    }
  }
  return mapped;
}

function toAnthropicMessage(message: Message): BlockMessage {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: message.content.flatMap(toUserBlock) };
    case 'assistant':
      return { role: 'assistant', content: message.content.flatMap(toAssistantBlock) };
    case 'tool':
      return { role: 'user', content: message.content.map(toToolResult) };
    default: {
      const unknown: never = message;
      throw new TypeError(`unknown message role in ${JSON.stringify(unknown)}`);
    }
  }
}

function toUserBlock(block: UserContent): Array<TextParam | ImageParam> {
  switch (block.type) {
    case 'text':
      return toTextBlocks(block);
    case 'image':
      return [toImageBlock(block)];
    default: {
      const unknown: never = block;
      throw new TypeError(`unknown user content ${JSON.stringify(unknown)}`);
    }
  }
}

function toAssistantBlock(block: AssistantContent): ContentBlock[] {
  switch (block.type) {
    case 'text':
      return toTextBlocks(block);
    case 'tool-call':
      return [{ type: 'tool_use', id: block.id, name: block.name, input: block.input }];
    default: {
      const unknown: never = block;
      throw new TypeError(`unknown assistant content ${JSON.stringify(unknown)}`);
    }
  }
}

function toToolResult(result: ToolResultBlock): Anthropic.ToolResultBlockParam {
  // Marked as data: the text inside the XML-tag envelope (untrusted-marking.ts).
  const content = envelopedContent(result).flatMap(toUserBlock);
  const mapped: Anthropic.ToolResultBlockParam = { type: 'tool_result', tool_use_id: result.toolCallId };
  // An empty content list is allowed; an empty text block is not.
  if (content.length > 0) mapped.content = content;
  if (result.isError) mapped.is_error = true;
  return mapped;
}

/** The API refuses empty and whitespace-only text blocks, so those are left out. */
function toTextBlocks(block: TextBlock): TextParam[] {
  return block.text.trim() === '' ? [] : [{ type: 'text', text: block.text }];
}

/** An image of a type the API does not take becomes a note, so the model knows it was there. */
function toImageBlock(block: ImageBlock): TextParam | ImageParam {
  const lowered = block.mimeType.toLowerCase();
  // `image/jpg` is not a registered type, but servers send it.
  const mediaType = lowered === 'image/jpg' ? 'image/jpeg' : lowered;
  if (!isSupportedImageType(mediaType)) {
    return {
      type: 'text',
      text: `[an image of type ${block.mimeType} was left out: Anthropic does not accept it]`,
    };
  }
  return { type: 'image', source: { type: 'base64', media_type: mediaType, data: block.data } };
}

function isSupportedImageType(mediaType: string): mediaType is SupportedImageType {
  return (SUPPORTED_IMAGE_TYPES as readonly string[]).includes(mediaType);
}
