/**
 * A run's {@link ResponseFormat} → Chat Completions `response_format`.
 *
 * OpenAI's Structured Outputs take `{ type: 'json_schema', json_schema: { name, schema, strict } }`.
 * With `strict: true` the answer is decoded under the schema (it always validates), but only a
 * subset of JSON Schema is allowed and the API answers 400 to anything else: every object must list
 * every property in `required` and set `additionalProperties: false`, and only the keywords in
 * {@link STRICT_KEYWORDS} may appear. So `strict` is sent only when the schema already keeps those
 * rules. The schema is never rewritten to fit them: making an optional property required-and-nullable
 * changes which answers are valid (a `null` where the schema allows the property to be absent would
 * then fail mcphost's own check). Otherwise `strict: false`: the schema guides the model, and the
 * Runner's check and follow-ups do the rest. OpenAI-compatible servers (vLLM, llama.cpp's server,
 * LM Studio, Ollama's /v1) take the same field.
 */
import type { ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import type { JsonSchemaObject, ResponseFormat } from '../src/core/types.js';

/** The keywords strict mode accepts (OpenAI's "supported schemas" list). */
const STRICT_KEYWORDS: ReadonlySet<string> = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  '$ref',
  '$defs',
  'definitions',
  'description',
  'title',
  'pattern',
  'format',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'minItems',
  'maxItems',
]);

/** Strict mode's deepest nesting of objects. */
const STRICT_MAX_DEPTH = 10;

type ResponseFormatParam = NonNullable<ChatCompletionCreateParamsStreaming['response_format']>;

/** The `response_format` to send, or undefined for free text. */
export function toOpenAIResponseFormat(format: ResponseFormat | undefined): ResponseFormatParam | undefined {
  if (format === undefined) return undefined;
  switch (format.type) {
    case 'text':
      return undefined;
    case 'json-schema':
      return {
        type: 'json_schema',
        json_schema: {
          name: format.name,
          schema: { ...format.schema },
          strict: fitsStrictMode(format.schema),
        },
      };
    default: {
      const unexpected: never = format;
      throw new TypeError(`unknown response format ${JSON.stringify(unexpected)}`);
    }
  }
}

/** True when OpenAI's strict mode would take the schema as it is. */
export function fitsStrictMode(schema: JsonSchemaObject): boolean {
  return schema.type === 'object' && fitsNode(schema, 0);
}

function fitsNode(node: unknown, depth: number): boolean {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return false;
  if (depth > STRICT_MAX_DEPTH) return false;
  const schema = node as Record<string, unknown>;
  if (!Object.keys(schema).every((key) => STRICT_KEYWORDS.has(key))) return false;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes('object') || 'properties' in schema) {
    const properties = schema.properties ?? {};
    if (typeof properties !== 'object') return false;
    const names = Object.keys(properties);
    const required = Array.isArray(schema.required) ? schema.required : [];
    if (schema.additionalProperties !== false) return false;
    if (!names.every((name) => required.includes(name))) return false;
    if (!Object.values(properties).every((child) => fitsNode(child, depth + 1))) return false;
  }
  if ('items' in schema && !fitsNode(schema.items, depth + 1)) return false;
  if ('anyOf' in schema) {
    if (!Array.isArray(schema.anyOf) || !schema.anyOf.every((child) => fitsNode(child, depth + 1)))
      return false;
  }
  for (const key of ['$defs', 'definitions']) {
    const definitions = schema[key];
    if (definitions === undefined) continue;
    if (typeof definitions !== 'object' || definitions === null) return false;
    if (!Object.values(definitions).every((child) => fitsNode(child, depth + 1))) return false;
  }
  return true;
}
