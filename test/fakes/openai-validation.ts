/**
 * The request checks the real Chat Completions API makes, with its messages, so that the fake
 * rejects what OpenAI rejects. Each rule here is one that real clients have hit in the wild
 * (tool naming, unanswered tool calls, schemas without `properties`/`items`, long descriptions…).
 */

import { validateMessages } from './openai-message-validation.js';
import { validateResponseFormat } from './openai-response-format-validation.js';
import { invalid, isRecord, typeName, validateName, type OpenAIWireError } from './openai-wire-error.js';

export type { OpenAIWireError } from './openai-wire-error.js';

const MAX_DESCRIPTION_LENGTH = 1024;
const MAX_STOP_SEQUENCES = 4;
/** The real API's cap on function definitions per request. */
export const MAX_TOOLS = 128;

/** Parameters the real API knows (those a client of ours may send, and a few more). */
const KNOWN_PARAMETERS = new Set([
  'model',
  'messages',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'stream',
  'stream_options',
  'max_tokens',
  'max_completion_tokens',
  'temperature',
  'top_p',
  'stop',
  'n',
  'seed',
  'user',
  'frequency_penalty',
  'presence_penalty',
  'logprobs',
  'top_logprobs',
  'response_format',
  'reasoning_effort',
  'metadata',
  'store',
  'service_tier',
  'logit_bias',
  'modalities',
  'prediction',
]);

type Body = Record<string, unknown>;

/** Returns the first problem the real API would report, or undefined when it would accept the body. */
/** How strict the fake is. */
export interface ChatRequestRules {
  /**
   * The longest tool description taken: OpenAI's 1024 by default; null for an OpenAI-compatible
   * server that has no limit (vLLM, LM Studio…).
   */
  readonly maxDescriptionLength?: number | null;
}

export function validateChatRequest(
  body: unknown,
  rules: ChatRequestRules = {},
): OpenAIWireError | undefined {
  if (!isRecord(body)) return invalid('We could not parse the JSON body of your request.', null);
  if (typeof body.model !== 'string' || body.model === '')
    return invalid('you must provide a model parameter', null);
  for (const key of Object.keys(body)) {
    if (!KNOWN_PARAMETERS.has(key)) return invalid(`Unrecognized request argument supplied: ${key}`, null);
  }
  if (body.stream_options !== undefined && body.stream !== true) {
    return invalid(
      "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
      'stream_options',
    );
  }
  return (
    validateSettings(body) ??
    validateTools(
      body.tools,
      rules.maxDescriptionLength === undefined ? MAX_DESCRIPTION_LENGTH : rules.maxDescriptionLength,
    ) ??
    validateResponseFormat(body.response_format) ??
    validateMessages(body.messages)
  );
}

function validateSettings(body: Body): OpenAIWireError | undefined {
  const ranges: ReadonlyArray<readonly [string, number, number]> = [
    ['temperature', 0, 2],
    ['top_p', 0, 1],
  ];
  for (const [name, minimum, maximum] of ranges) {
    const value = body[name];
    if (value === undefined) continue;
    if (typeof value !== 'number')
      return invalid(
        `Invalid type for '${name}': expected a decimal, but got ${typeName(value)} instead.`,
        name,
        'invalid_type',
      );
    if (value > maximum)
      return invalid(
        `Invalid '${name}': decimal above maximum value. Expected a value <= ${maximum}, but got ${value} instead.`,
        name,
        'decimal_above_max_value',
      );
    if (value < minimum)
      return invalid(
        `Invalid '${name}': decimal below minimum value. Expected a value >= ${minimum}, but got ${value} instead.`,
        name,
        'decimal_below_min_value',
      );
  }
  for (const name of ['max_tokens', 'max_completion_tokens']) {
    const value = body[name];
    if (value !== undefined && (typeof value !== 'number' || !Number.isInteger(value) || value < 1)) {
      return invalid(
        `Invalid '${name}': integer below minimum value. Expected a value >= 1, but got ${JSON.stringify(value)} instead.`,
        name,
        'integer_below_min_value',
      );
    }
  }
  const stop = body.stop;
  if (Array.isArray(stop) && stop.length > MAX_STOP_SEQUENCES) {
    return invalid(
      `Invalid 'stop': array too long. Expected an array with maximum length ${MAX_STOP_SEQUENCES}, but got an array with length ${stop.length} instead.`,
      'stop',
      'array_above_max_length',
    );
  }
  return undefined;
}

function validateTools(tools: unknown, maxDescriptionLength: number | null): OpenAIWireError | undefined {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools))
    return invalid(
      `Invalid type for 'tools': expected an array, but got ${typeName(tools)} instead.`,
      'tools',
      'invalid_type',
    );
  if (tools.length === 0)
    return invalid(
      "Invalid 'tools': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      'tools',
      'empty_array',
    );
  if (tools.length > MAX_TOOLS)
    return invalid(
      `Invalid 'tools': array too long. Expected an array with maximum length ${MAX_TOOLS}, but got an array with length ${tools.length} instead.`,
      'tools',
      'array_above_max_length',
    );
  const seen = new Set<string>();
  for (const [index, tool] of tools.entries()) {
    const prefix = `tools[${index}]`;
    if (!isRecord(tool) || tool.type !== 'function' || !isRecord(tool.function)) {
      return invalid(
        `Invalid '${prefix}': expected an object with type 'function' and a 'function' object.`,
        prefix,
        'invalid_value',
      );
    }
    const definition = tool.function;
    const nameError = validateName(definition.name, `${prefix}.function.name`);
    if (nameError) return nameError;
    const name = definition.name as string;
    if (seen.has(name))
      return invalid(
        `Invalid 'tools': duplicate function name '${name}'. Tool names must be unique.`,
        'tools',
        'invalid_value',
      );
    seen.add(name);
    const description = definition.description;
    if (description !== undefined && typeof description !== 'string') {
      return invalid(
        `Invalid type for '${prefix}.function.description': expected a string, but got ${typeName(description)} instead.`,
        `${prefix}.function.description`,
        'invalid_type',
      );
    }
    if (
      maxDescriptionLength !== null &&
      typeof description === 'string' &&
      Array.from(description).length > maxDescriptionLength
    ) {
      return invalid(
        `Invalid '${prefix}.function.description': string too long. Expected a string with maximum length ${maxDescriptionLength}, but got a string with length ${Array.from(description).length} instead.`,
        `${prefix}.function.description`,
        'string_above_max_length',
      );
    }
    if (definition.parameters !== undefined) {
      const problem = schemaProblem(definition.parameters);
      if (problem !== undefined) {
        return invalid(
          `Invalid schema for function '${name}': ${problem}`,
          `${prefix}.function.parameters`,
          'invalid_function_parameters',
        );
      }
    }
  }
  return undefined;
}

/** Formats a path the way OpenAI's (Python) validator prints a tuple. */
function context(path: readonly string[]): string {
  if (path.length === 0) return '()';
  const items = path.map((part) => `'${part}'`);
  return path.length === 1 ? `(${items[0] ?? ''},)` : `(${items.join(', ')})`;
}

/** The two schema rules OpenAI enforces outside strict mode that MCP servers break most. */
function schemaProblem(parameters: unknown): string | undefined {
  if (!isRecord(parameters)) return `${JSON.stringify(parameters)} is not of type 'object'.`;
  if (parameters.type !== 'object')
    return (
      'schema must be a JSON Schema of \'type: "object"\', got \'type: "' + String(parameters.type) + '"\'.'
    );
  if (!isRecord(parameters.properties)) return 'In context=(), object schema missing properties.';
  return arrayProblem(parameters, []);
}

function arrayProblem(schema: unknown, path: readonly string[]): string | undefined {
  if (path.length > 100 || !isRecord(schema)) return undefined;
  const type = schema.type;
  const isArray = type === 'array' || (Array.isArray(type) && type.includes('array'));
  if (isArray && schema.items === undefined && schema.prefixItems === undefined) {
    return `In context=${context(path)}, array schema missing items.`;
  }
  for (const keyword of ['properties', '$defs', 'definitions', 'patternProperties']) {
    const map = schema[keyword];
    if (!isRecord(map)) continue;
    for (const [name, subschema] of Object.entries(map)) {
      const problem = arrayProblem(subschema, [...path, keyword, name]);
      if (problem) return problem;
    }
  }
  for (const keyword of ['items', 'additionalProperties', 'not']) {
    const problem = arrayProblem(schema[keyword], [...path, keyword]);
    if (problem) return problem;
  }
  for (const keyword of ['anyOf', 'oneOf', 'allOf']) {
    const list = schema[keyword];
    if (!Array.isArray(list)) continue;
    for (const [index, subschema] of list.entries()) {
      const problem = arrayProblem(subschema, [...path, keyword, String(index)]);
      if (problem) return problem;
    }
  }
  return undefined;
}
