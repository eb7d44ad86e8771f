/**
 * The real Chat Completions API's checks on `messages`: content shapes per role, tool-call
 * arguments as strings, and the pairing of every `tool_call_id` with a `tool` message.
 */
import { invalid, isRecord, typeName, validateName, type OpenAIWireError } from './openai-wire-error.js';

/** The image types the API reads from a `data:` URL. */
const DATA_URL_PATTERN = /^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+=*$/;

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function']);

/** Checks `messages`; returns the first problem the real API would report. */
export function validateMessages(messages: unknown): OpenAIWireError | undefined {
  if (!Array.isArray(messages)) {
    return invalid(
      `Invalid type for 'messages': expected an array, but got ${typeName(messages)} instead.`,
      'messages',
      'invalid_type',
    );
  }
  if (messages.length === 0) {
    return invalid(
      "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      'messages',
      'empty_array',
    );
  }
  for (const [index, message] of messages.entries()) {
    const problem = validateMessage(message, index);
    if (problem) return problem;
  }
  return validateToolPairing(messages as ReadonlyArray<Record<string, unknown>>);
}

function validateMessage(message: unknown, index: number): OpenAIWireError | undefined {
  const prefix = `messages[${index}]`;
  if (!isRecord(message))
    return invalid(
      `Invalid type for '${prefix}': expected an object, but got ${typeName(message)} instead.`,
      prefix,
      'invalid_type',
    );
  const role = message.role;
  if (typeof role !== 'string' || !ROLES.has(role)) {
    return invalid(
      `Invalid value: '${String(role)}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`,
      `${prefix}.role`,
      'invalid_value',
    );
  }
  switch (role) {
    case 'system':
    case 'developer':
      return validateContent(message.content, prefix, ['text']);
    case 'user':
      return validateContent(message.content, prefix, ['text', 'image_url', 'input_audio', 'file']);
    case 'assistant':
      return validateAssistant(message, index);
    case 'tool':
      if (typeof message.tool_call_id !== 'string') {
        return invalid(
          `Missing required parameter: '${prefix}.tool_call_id'.`,
          `${prefix}.tool_call_id`,
          'missing_required_parameter',
        );
      }
      // Tool messages take text only: no images, whatever the model.
      return validateContent(message.content, prefix, ['text']);
    default:
      return undefined;
  }
}

function validateContent(
  content: unknown,
  prefix: string,
  partTypes: readonly string[],
): OpenAIWireError | undefined {
  if (typeof content === 'string') return undefined;
  if (!Array.isArray(content)) {
    return invalid(
      `Invalid type for '${prefix}.content': expected one of a string or array of objects, but got ${typeName(content)} instead.`,
      `${prefix}.content`,
      'invalid_type',
    );
  }
  for (const [index, part] of content.entries()) {
    const param = `${prefix}.content[${index}]`;
    if (!isRecord(part) || typeof part.type !== 'string' || !partTypes.includes(part.type)) {
      const type = isRecord(part) ? String(part.type) : typeName(part);
      const supported = partTypes.map((name) => `'${name}'`).join(', ');
      return invalid(
        `Invalid value: '${type}'. Supported values are: ${supported}.`,
        `${param}.type`,
        'invalid_value',
      );
    }
    if (part.type === 'text' && typeof part.text !== 'string') {
      return invalid(
        `Missing required parameter: '${param}.text'.`,
        `${param}.text`,
        'missing_required_parameter',
      );
    }
    if (part.type === 'image_url') {
      const url = isRecord(part.image_url) ? part.image_url.url : undefined;
      if (typeof url !== 'string')
        return invalid(
          `Missing required parameter: '${param}.image_url.url'.`,
          `${param}.image_url.url`,
          'missing_required_parameter',
        );
      if (url.startsWith('data:') && !DATA_URL_PATTERN.test(url)) {
        return invalid(
          "You uploaded an unsupported image. Please make sure your image has of one the following formats: ['png', 'jpeg', 'gif', 'webp'].",
          `${param}.image_url`,
          'invalid_image_format',
        );
      }
      if (!url.startsWith('data:') && !/^https?:\/\//.test(url)) {
        return invalid(
          `Invalid 'image_url'. Expected a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got a value without the 'data:' prefix.`,
          `${param}.image_url.url`,
          'invalid_value',
        );
      }
    }
  }
  return undefined;
}

function validateAssistant(message: Record<string, unknown>, index: number): OpenAIWireError | undefined {
  const prefix = `messages[${index}]`;
  const toolCalls = message.tool_calls;
  if (toolCalls === undefined || toolCalls === null) {
    if (message.content === undefined || message.content === null) {
      return invalid(
        "Invalid value for 'content': expected a string, got null.",
        `messages.[${index}].content`,
      );
    }
  } else {
    if (!Array.isArray(toolCalls))
      return invalid(
        `Invalid type for '${prefix}.tool_calls': expected an array, but got ${typeName(toolCalls)} instead.`,
        `${prefix}.tool_calls`,
        'invalid_type',
      );
    if (toolCalls.length === 0) {
      return invalid(
        `Invalid '${prefix}.tool_calls': empty array. Expected an array with minimum length 1, but got an empty array instead.`,
        `${prefix}.tool_calls`,
        'empty_array',
      );
    }
    for (const [callIndex, call] of toolCalls.entries()) {
      const param = `${prefix}.tool_calls[${callIndex}]`;
      if (!isRecord(call) || typeof call.id !== 'string')
        return invalid(
          `Missing required parameter: '${param}.id'.`,
          `${param}.id`,
          'missing_required_parameter',
        );
      if (call.type !== 'function' || !isRecord(call.function))
        return invalid(
          `Missing required parameter: '${param}.function'.`,
          `${param}.function`,
          'missing_required_parameter',
        );
      const nameError = validateName(call.function.name, `${param}.function.name`);
      if (nameError) return nameError;
      const argumentsValue = call.function.arguments;
      if (typeof argumentsValue !== 'string') {
        return invalid(
          `Invalid type for '${param}.function.arguments': expected a string, but got ${typeName(argumentsValue)} instead.`,
          `${param}.function.arguments`,
          'invalid_type',
        );
      }
    }
  }
  if (message.content === undefined || message.content === null) return undefined;
  return validateContent(message.content, prefix, ['text', 'refusal']);
}

/**
 * Every `tool_call_id` of an assistant message must be answered by the `tool` messages right after
 * it, and a `tool` message must answer a call of the assistant message right before its run.
 */
function validateToolPairing(messages: ReadonlyArray<Record<string, unknown>>): OpenAIWireError | undefined {
  let pending = new Set<string>();
  let assistantIndex = -1;
  let inToolRun = false;
  const unanswered = (): OpenAIWireError =>
    invalid(
      "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. " +
        `The following tool_call_ids did not have response messages: ${[...pending].join(', ')}`,
      `messages.[${assistantIndex}].role`,
    );
  for (const [index, message] of messages.entries()) {
    if (message.role === 'tool') {
      const id = message.tool_call_id as string;
      if (!inToolRun || !pending.has(id)) {
        return invalid(
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          `messages.[${index}].role`,
        );
      }
      pending.delete(id);
      continue;
    }
    if (pending.size > 0) return unanswered();
    inToolRun = false;
    const calls = message.tool_calls;
    if (message.role === 'assistant' && Array.isArray(calls) && calls.length > 0) {
      pending = new Set(calls.map((call) => (call as { id: string }).id));
      assistantIndex = index;
      inToolRun = true;
    }
  }
  return pending.size > 0 ? unanswered() : undefined;
}
