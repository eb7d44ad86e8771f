/**
 * MCP tool schemas → what OpenAI's function `parameters` validation accepts.
 *
 * Outside strict mode OpenAI takes most of JSON Schema, but it answers 400
 * (`invalid_function_parameters`) to two shapes that MCP servers send all the time and that are
 * valid JSON Schema: a top-level object schema without `properties` (a tool without arguments), and
 * an `array` schema without `items`. Everything else is passed through untouched.
 */
import type { JsonSchema } from '../src/core/types.js';

/** Schemas nest this deep at most before we stop rewriting (a bound on recursion, not a real limit). */
const MAX_SCHEMA_DEPTH = 64;

/** Keywords whose value is a map of name → subschema. */
const SCHEMA_MAP_KEYWORDS = [
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
] as const;
/** Keywords whose value is a list of subschemas. */
const SCHEMA_LIST_KEYWORDS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const;
/** Keywords whose value is one subschema (or, for `items`, a list in older drafts). */
const SCHEMA_KEYWORDS = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains'] as const;

/** Returns a copy of `schema` that OpenAI accepts as function parameters. Pure. */
export function toOpenAIParameters(schema: JsonSchema): Record<string, unknown> {
  const cleaned = cleanSchema(schema, 0);
  const parameters: Record<string, unknown> = isRecord(cleaned) ? { ...cleaned } : {};
  // Function arguments are always an object; "object schema missing properties" is a 400.
  parameters.type ??= 'object';
  if (parameters.type === 'object' && !isRecord(parameters.properties)) parameters.properties = {};
  return parameters;
}

function cleanSchema(schema: unknown, depth: number): unknown {
  if (!isRecord(schema) || depth > MAX_SCHEMA_DEPTH) return schema;
  const cleaned: Record<string, unknown> = { ...schema };
  for (const keyword of SCHEMA_MAP_KEYWORDS) {
    const map = cleaned[keyword];
    if (isRecord(map)) {
      cleaned[keyword] = Object.fromEntries(
        Object.entries(map).map(([name, subschema]) => [name, cleanSchema(subschema, depth + 1)]),
      );
    }
  }
  for (const keyword of SCHEMA_LIST_KEYWORDS) {
    const list = cleaned[keyword];
    if (Array.isArray(list))
      cleaned[keyword] = list.map((subschema: unknown) => cleanSchema(subschema, depth + 1));
  }
  for (const keyword of SCHEMA_KEYWORDS) {
    const value = cleaned[keyword];
    if (Array.isArray(value))
      cleaned[keyword] = value.map((subschema: unknown) => cleanSchema(subschema, depth + 1));
    else if (isRecord(value)) cleaned[keyword] = cleanSchema(value, depth + 1);
  }
  // "array schema missing items" is a 400; `{}` (any item) says what the missing keyword meant.
  if (allowsArray(cleaned.type) && cleaned.items === undefined && cleaned.prefixItems === undefined) {
    cleaned.items = {};
  }
  return cleaned;
}

function allowsArray(type: unknown): boolean {
  return type === 'array' || (Array.isArray(type) && type.includes('array'));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
