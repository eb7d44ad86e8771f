/**
 * The request checks the real Messages API makes, as the fake Anthropic server makes them. A fake
 * that accepts what the real service refuses hides mapping bugs, so each rule here is one the
 * real API enforces, with an error message worded like the real one.
 */
import { validateToolChoice } from './anthropic-tool-choice-validation.js';
import type { IncomingHttpHeaders } from 'node:http';

/** An error the fake answers with: HTTP status plus the body's `error.type` and `error.message`. */
export interface FakeApiError {
  readonly status: number;
  readonly type: string;
  readonly message: string;
}

/** The API version from which `temperature`, `top_p` and `top_k` are refused. */
const SAMPLING_REMOVED_IN = '2026-10-21';

/** Top-level fields the Messages API knows; anything else is "Extra inputs are not permitted". */
const KNOWN_FIELDS = new Set([
  'model',
  'max_tokens',
  'messages',
  'system',
  'tools',
  'tool_choice',
  'stop_sequences',
  'stream',
  'metadata',
  'thinking',
  'service_tier',
  'container',
  'output_config',
  'cache_control',
  'speed',
  'inference_geo',
  'diagnostics',
  'user_profile_id',
  'workspace_id',
  'context_management',
  'mcp_servers',
]);
const SAMPLING_FIELDS = ['temperature', 'top_p', 'top_k'];

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const TOOL_USE_ID = /^[a-zA-Z0-9_-]+$/;
const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];

type Json = Record<string, unknown>;

const invalid = (message: string): FakeApiError => ({ status: 400, type: 'invalid_request_error', message });

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Checks the headers of `POST /v1/messages`: a key (either form the API takes) and a version. */
export function validateHeaders(headers: IncomingHttpHeaders): FakeApiError | undefined {
  const key = headers['x-api-key'];
  const authorization = headers.authorization;
  const hasKey =
    (typeof key === 'string' && key !== '') ||
    (typeof authorization === 'string' && /^Bearer \S+/.test(authorization));
  if (!hasKey) return { status: 401, type: 'authentication_error', message: 'x-api-key header is required' };
  if (typeof headers['anthropic-version'] !== 'string')
    return invalid('anthropic-version: header is required');
  return undefined;
}

/** Checks the body of `POST /v1/messages`; returns the first problem, as the real API does. */
export function validateMessagesBody(body: unknown, apiVersion: string): FakeApiError | undefined {
  if (!isObject(body)) return invalid('There was an error parsing the body of your request');
  for (const field of Object.keys(body)) {
    const sampling = SAMPLING_FIELDS.includes(field);
    if ((sampling && apiVersion >= SAMPLING_REMOVED_IN) || (!sampling && !KNOWN_FIELDS.has(field))) {
      return invalid(`${field}: Extra inputs are not permitted`);
    }
  }
  if (typeof body.model !== 'string' || body.model === '') return invalid('model: Field required');
  if (body.max_tokens === undefined) return invalid('max_tokens: Field required');
  if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 0) {
    return invalid('max_tokens: Input should be a valid integer greater than or equal to 0');
  }
  if (body.stream !== undefined && typeof body.stream !== 'boolean') {
    return invalid('stream: Input should be a valid boolean');
  }
  return (
    validateSystem(body.system) ??
    validateStopSequences(body.stop_sequences) ??
    validateTools(body.tools) ??
    validateToolChoice(body) ??
    validateMessages(body.messages)
  );
}

function validateSystem(system: unknown): FakeApiError | undefined {
  if (system === undefined || typeof system === 'string') return undefined;
  if (!Array.isArray(system)) return invalid('system: Input should be a valid string or list of text blocks');
  for (const [index, block] of system.entries()) {
    const problem = validateText(block, `system.${index}`);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function validateStopSequences(sequences: unknown): FakeApiError | undefined {
  if (sequences === undefined) return undefined;
  if (!Array.isArray(sequences)) return invalid('stop_sequences: Input should be a valid list');
  for (const [index, sequence] of sequences.entries()) {
    if (typeof sequence !== 'string')
      return invalid(`stop_sequences.${index}: Input should be a valid string`);
    if (sequence.trim() === '')
      return invalid('stop_sequences: each stop sequence must contain non-whitespace');
  }
  return undefined;
}

function validateTools(tools: unknown): FakeApiError | undefined {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools)) return invalid('tools: Input should be a valid list');
  const names = new Set<string>();
  for (const [index, tool] of tools.entries()) {
    const path = `tools.${index}.custom`;
    if (!isObject(tool)) return invalid(`tools.${index}: Input should be a valid dictionary`);
    if (typeof tool.name !== 'string') return invalid(`${path}.name: Field required`);
    if (!TOOL_NAME.test(tool.name)) {
      return invalid(`${path}.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`);
    }
    if (names.has(tool.name)) return invalid('tools: Tool names must be unique.');
    names.add(tool.name);
    if (tool.description !== undefined && typeof tool.description !== 'string') {
      return invalid(`${path}.description: Input should be a valid string`);
    }
    if (!isObject(tool.input_schema)) return invalid(`${path}.input_schema: Field required`);
    if (tool.input_schema.type !== 'object')
      return invalid(`${path}.input_schema.type: Input should be 'object'`);
  }
  return undefined;
}

function validateMessages(messages: unknown): FakeApiError | undefined {
  if (!Array.isArray(messages)) return invalid('messages: Field required');
  if (messages.length === 0) return invalid('messages: at least one message is required');
  const checked: Array<{ role: string; blocks: Json[] }> = [];
  for (const [index, message] of messages.entries()) {
    if (!isObject(message)) return invalid(`messages.${index}: Input should be a valid dictionary`);
    if (message.role !== 'user' && message.role !== 'assistant') {
      return invalid(`messages.${index}.role: Input should be 'user' or 'assistant'`);
    }
    const blocks =
      typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    if (!Array.isArray(blocks)) return invalid(`messages.${index}.content: Field required`);
    const isFinalAssistant = index === messages.length - 1 && message.role === 'assistant';
    if (blocks.length === 0 && !isFinalAssistant) {
      return invalid(
        `messages.${index}: all messages must have non-empty content except for the optional final assistant message`,
      );
    }
    for (const [position, block] of blocks.entries()) {
      const problem = validateBlock(block, message.role, `messages.${index}.content.${position}`);
      if (problem !== undefined) return problem;
    }
    checked.push({ role: message.role, blocks: blocks as Json[] });
  }
  if (checked[0]?.role !== 'user') return invalid('messages: first message must use the "user" role');
  return validateToolPairs(checked);
}

function validateBlock(block: unknown, role: string, path: string): FakeApiError | undefined {
  if (!isObject(block)) return invalid(`${path}: Input should be a valid dictionary`);
  switch (block.type) {
    case 'text':
      return validateText(block, path);
    case 'image':
      return role === 'user'
        ? validateImage(block, path)
        : invalid(`${path}: image blocks are only allowed in user messages`);
    case 'tool_use':
      if (role !== 'assistant')
        return invalid(`${path}: tool_use blocks are only allowed in assistant messages`);
      if (typeof block.id !== 'string' || !TOOL_USE_ID.test(block.id)) {
        return invalid(`${path}.id: String should match pattern '^[a-zA-Z0-9_-]+$'`);
      }
      if (typeof block.name !== 'string' || block.name === '') return invalid(`${path}.name: Field required`);
      if (!isObject(block.input)) return invalid(`${path}.input: Input should be a valid dictionary`);
      return undefined;
    case 'tool_result':
      if (role !== 'user') return invalid(`${path}: tool_result blocks are only allowed in user messages`);
      return validateToolResult(block, path);
    default:
      return invalid(
        `${path}: Input tag '${String(block.type)}' found using 'type' does not match any of the expected tags`,
      );
  }
}

function validateText(block: unknown, path: string): FakeApiError | undefined {
  if (!isObject(block) || block.type !== 'text') return invalid(`${path}.type: Input should be 'text'`);
  if (typeof block.text !== 'string') return invalid(`${path}.text: Field required`);
  if (block.text === '') return invalid(`${path}.text: text content blocks must be non-empty`);
  if (block.text.trim() === '')
    return invalid(`${path}.text: text content blocks must contain non-whitespace text`);
  return undefined;
}

function validateImage(block: Json, path: string): FakeApiError | undefined {
  const source = block.source;
  if (!isObject(source) || source.type !== 'base64') return invalid(`${path}.source: Field required`);
  if (typeof source.media_type !== 'string' || !IMAGE_TYPES.includes(source.media_type)) {
    return invalid(
      `${path}.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`,
    );
  }
  if (typeof source.data !== 'string' || !/^[A-Za-z0-9+/]+={0,2}$/.test(source.data)) {
    return invalid(`${path}.source.base64.data: The image data is not valid base64`);
  }
  return undefined;
}

function validateToolResult(block: Json, path: string): FakeApiError | undefined {
  if (typeof block.tool_use_id !== 'string') return invalid(`${path}.tool_use_id: Field required`);
  if (block.is_error !== undefined && typeof block.is_error !== 'boolean') {
    return invalid(`${path}.is_error: Input should be a valid boolean`);
  }
  const content = block.content;
  if (content === undefined || typeof content === 'string') return undefined;
  if (!Array.isArray(content)) return invalid(`${path}.content: Input should be a valid list`);
  for (const [index, inner] of content.entries()) {
    const innerPath = `${path}.content.${index}`;
    if (!isObject(inner)) return invalid(`${innerPath}: Input should be a valid dictionary`);
    const problem =
      inner.type === 'image'
        ? validateImage(inner, innerPath)
        : inner.type === 'text'
          ? validateText(inner, innerPath)
          : invalid(
              `${innerPath}: Input tag '${String(inner.type)}' found using 'type' does not match any of the expected tags`,
            );
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/**
 * Every `tool_use` must be answered by a `tool_result` with its id in the very next message, and
 * every `tool_result` must answer a `tool_use` of the message just before.
 */
function validateToolPairs(
  messages: ReadonlyArray<{ role: string; blocks: Json[] }>,
): FakeApiError | undefined {
  const seen = new Set<string>();
  for (const [index, message] of messages.entries()) {
    const previous = messages[index - 1];
    const offered = new Set(
      previous?.role === 'assistant'
        ? previous.blocks.filter((b) => b.type === 'tool_use').map((b) => String(b.id))
        : [],
    );
    for (const [position, block] of message.blocks.entries()) {
      if (block.type === 'tool_result' && !offered.has(String(block.tool_use_id))) {
        return invalid(
          `messages.${index}.content.${position}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block.tool_use_id)}. ` +
            'Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
        );
      }
      if (block.type === 'tool_use') {
        const id = String(block.id);
        if (seen.has(id))
          return invalid(`messages.${index}.content.${position}: \`tool_use\` ids must be unique`);
        seen.add(id);
      }
    }
    if (message.role !== 'assistant') continue;
    const next = messages[index + 1];
    const answered = new Set(
      next?.role === 'user'
        ? next.blocks.filter((b) => b.type === 'tool_result').map((b) => String(b.tool_use_id))
        : [],
    );
    const unanswered = message.blocks
      .filter((b) => b.type === 'tool_use' && !answered.has(String(b.id)))
      .map((b) => String(b.id));
    if (unanswered.length > 0) {
      return invalid(
        `messages.${index + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${unanswered.join(', ')}. ` +
          'Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
      );
    }
  }
  return undefined;
}
