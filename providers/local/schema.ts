/**
 * JSON Schema clean-up for node-llama-cpp's function calling.
 *
 * node-llama-cpp turns a function's `params` into a grammar (GBNF), so the model can only write
 * a call that parses and fits. Its schema language (`GbnfJsonSchema`) is a subset of JSON Schema,
 * and a node it does not understand fails the call after generation ("Unknown immutable type"):
 *
 * - `type`, `enum`, `const`, `oneOf`, `properties`, `additionalProperties`, `items`,
 *   `prefixItems`, `minItems`/`maxItems`, `minLength`/`maxLength`, `minProperties`/
 *   `maxProperties`, `description`, `$defs`/`$ref`, and `format` only `date-time`, `date`, `time`;
 * - a `type` list may hold only scalar types, so a list with `object` or `array` becomes `oneOf`;
 * - no `anyOf` (rewritten as `oneOf`, which the grammar treats as "any of"), no `allOf` (merged),
 *   no `pattern`, `minimum`/`maximum`, `not`, `if`/`then`: dropped (the tool still checks them);
 * - every property is generated: `required` is ignored, so a property the tool does not require
 *   becomes "its schema or null" and {@link dropOmittedProperties} removes the nulls afterwards;
 * - `additionalProperties` defaults to false, so an object with no `properties` (a free-form
 *   object in JSON Schema) would only ever be `{}`: it gets scalar values instead (a root with
 *   `properties: {}` or none is a tool without parameters, and stays `{}`);
 * - a schema that allows anything (`{}`, `true`) has no form: it becomes a scalar, an array of
 *   scalars or an object of scalars — one level deep, which is what a small model writes anyway.
 */
import type { JsonSchema } from '../../src/core/types.js';
import { cleanJsonSchema, type CleanSchema, type SchemaCleaningRules } from '../schema.js';

/** The keywords node-llama-cpp's grammar reads; see the file comment. */
export const LLAMA_SCHEMA_RULES: SchemaCleaningRules = {
  keywords: new Set([
    'type',
    'description',
    'enum',
    'const',
    'oneOf',
    'anyOf',
    'properties',
    'required',
    'additionalProperties',
    'items',
    'prefixItems',
    'minItems',
    'maxItems',
    'minLength',
    'maxLength',
    'minProperties',
    'maxProperties',
    'format',
  ]),
  inlineReferences: true,
  mergeAllOf: true,
  constAsEnum: false,
  formats: new Set(['date-time', 'date', 'time']),
};

const SCALAR_TYPES = ['string', 'number', 'integer', 'boolean', 'null'] as const;
const SCALAR = (): CleanSchema => ({ type: ['string', 'number', 'boolean', 'null'] });

/** Anything, as far as a grammar can say it: see the file comment. */
function anyValue(description?: unknown): CleanSchema {
  return {
    ...(typeof description === 'string' ? { description } : {}),
    oneOf: [SCALAR(), { type: 'array', items: SCALAR() }, { type: 'object', additionalProperties: SCALAR() }],
  };
}

/** Cleans a tool's input schema for node-llama-cpp's `functions[name].params`. */
export function cleanSchemaForLlama(schema: JsonSchema): CleanSchema {
  const root = toGrammarSchema(cleanJsonSchema(schema, LLAMA_SCHEMA_RULES));
  // The root of a call's params is always an object; a tool with no parameters takes `{}`.
  if (root.type !== 'object') return { type: 'object', properties: {} };
  return root;
}

function listOf(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? (value as readonly unknown[]) : [];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Rewrites one cleaned node (and its children) into the subset node-llama-cpp takes. */
function toGrammarSchema(node: CleanSchema): CleanSchema {
  const { anyOf, oneOf, required, ...rest } = node;
  const alternatives: unknown[] = [...listOf(oneOf), ...listOf(anyOf)];
  if (alternatives.length > 0) {
    const description = rest.description;
    return {
      ...(typeof description === 'string' ? { description } : {}),
      oneOf: alternatives.filter(isObject).map(toGrammarSchema),
    };
  }
  if ('enum' in rest || 'const' in rest) return rest;
  const type = rest.type;
  if (Array.isArray(type)) {
    const types = type.filter((entry): entry is string => typeof entry === 'string');
    if (types.length > 0 && types.every((entry) => (SCALAR_TYPES as readonly string[]).includes(entry))) {
      return rest;
    }
    return {
      ...(typeof rest.description === 'string' ? { description: rest.description } : {}),
      oneOf: types.map((entry) => toGrammarSchema({ ...rest, type: entry })),
    };
  }
  switch (type) {
    case 'object':
      return objectSchema(rest, Array.isArray(required) ? required : []);
    case 'array':
      return arraySchema(rest);
    case 'string':
    case 'number':
    case 'integer':
    case 'boolean':
    case 'null':
      return rest;
    default:
      // No type: JSON Schema's "anything" (maybe with a description).
      return anyValue(rest.description);
  }
}

function objectSchema(node: CleanSchema, required: readonly unknown[]): CleanSchema {
  const properties = isObject(node.properties) ? node.properties : {};
  const output: CleanSchema = { ...node, properties: {} };
  const rewritten: Record<string, unknown> = {};
  for (const [name, child] of Object.entries(properties)) {
    const schema = toGrammarSchema(isObject(child) ? child : {});
    // Generated whatever `required` says: a null stands for "left out" (see dropOmittedProperties).
    rewritten[name] = required.includes(name) ? schema : { oneOf: [schema, { type: 'null' }] };
  }
  output.properties = rewritten;
  const extra = node.additionalProperties;
  if (isObject(extra)) output.additionalProperties = toGrammarSchema(extra);
  else if (extra === false) delete output.additionalProperties;
  // No `properties` at all is JSON Schema's free-form object; `properties: {}` (a tool without
  // parameters) is not, and the root always has them (cleanJsonSchema adds them).
  else if (!isObject(node.properties)) output.additionalProperties = SCALAR();
  else delete output.additionalProperties;
  return output;
}

function arraySchema(node: CleanSchema): CleanSchema {
  const output: CleanSchema = { ...node };
  output.items = isObject(node.items) ? toGrammarSchema(node.items) : anyValue();
  if (Array.isArray(node.prefixItems)) {
    output.prefixItems = node.prefixItems.filter(isObject).map(toGrammarSchema);
  }
  return output;
}

/**
 * The call's arguments without the properties the model left out: a `null` for a property the
 * tool's schema does not require and does not allow to be null (see {@link cleanSchemaForLlama}).
 * Applied to the top level, where MCP tools keep their optional parameters.
 */
export function dropOmittedProperties(
  params: unknown,
  schema: JsonSchema,
): Readonly<Record<string, unknown>> {
  if (!isObject(params)) return {};
  const required: readonly unknown[] = Array.isArray(schema.required) ? schema.required : [];
  const properties = isObject(schema.properties) ? schema.properties : {};
  const kept = Object.entries(params).filter(
    ([name, value]) => value !== null || required.includes(name) || allowsNull(properties[name]),
  );
  return Object.fromEntries(kept);
}

function allowsNull(schema: unknown): boolean {
  if (!isObject(schema)) return true;
  const type = schema.type;
  if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true;
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true;
  const alternatives: unknown[] = [...listOf(schema.oneOf), ...listOf(schema.anyOf)];
  if (alternatives.some(allowsNull)) return true;
  return type === undefined && schema.enum === undefined && alternatives.length === 0 && !('const' in schema);
}
