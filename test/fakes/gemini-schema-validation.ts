/**
 * What the real Gemini API accepts as a function's parameter schema, in its two forms:
 *
 * - `parameters`: Google's `Schema` message, an OpenAPI 3.0 subset. JSON field names outside it
 *   (`$schema`, `additionalProperties`, `$ref`, `const`, `allOf`…) are "Unknown name … Cannot find
 *   field"; `type` is a single enum value (a type array is an "Invalid value"); string formats are
 *   only `enum` and `date-time` on the Gemini Developer API; `required` must name defined
 *   properties; an OBJECT needs non-empty `properties` and an ARRAY needs `items`.
 * - `parametersJsonSchema`: plain JSON Schema. Unsupported keywords are ignored, but the root must
 *   be an object schema, a `$ref` must resolve inside the document, and a node with `$ref` may
 *   carry only `$`-keywords, `description` and `default` beside it.
 */
import type { FakeGeminiError } from './gemini-validation.js';

const invalidArgument = (message: string): FakeGeminiError => ({
  code: 400,
  status: 'INVALID_ARGUMENT',
  message,
});
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const OPENAPI_FIELDS = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'anyOf',
  'propertyOrdering',
  'default',
  'items',
  'minimum',
  'maximum',
]);
const OPENAPI_TYPES = new Set([
  'TYPE_UNSPECIFIED',
  'STRING',
  'NUMBER',
  'INTEGER',
  'BOOLEAN',
  'ARRAY',
  'OBJECT',
  'NULL',
]);
const JSON_SCHEMA_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
/** Beside `$ref`, besides `$`-keywords. */
const REFERENCE_SIBLINGS = new Set(['description', 'default']);

/** Validates `parameters` (OpenAPI subset). `path` is like `tools[0].function_declarations[1].parameters`. */
export function validateOpenApiParameters(schema: unknown, path: string): FakeGeminiError | undefined {
  if (!isObject(schema)) return invalidArgument(`Invalid JSON payload received. Invalid value at '${path}'`);
  for (const key of Object.keys(schema)) {
    if (!OPENAPI_FIELDS.has(key)) {
      return invalidArgument(
        `Invalid JSON payload received. Unknown name "${key}" at '${path}': Cannot find field.`,
      );
    }
  }
  const type = schema.type;
  if (type !== undefined && (typeof type !== 'string' || !OPENAPI_TYPES.has(type.toUpperCase()))) {
    return invalidArgument(
      `Invalid JSON payload received. Invalid value at '${path}.type' (type.googleapis.com/google.ai.generativelanguage.v1beta.Type), ${JSON.stringify(type)}`,
    );
  }
  const upper = typeof type === 'string' ? type.toUpperCase() : undefined;
  if (
    upper === 'STRING' &&
    schema.format !== undefined &&
    schema.format !== 'enum' &&
    schema.format !== 'date-time'
  ) {
    return invalidArgument(
      `* GenerateContentRequest.${path}.format: only 'enum' and 'date-time' are supported for STRING type\n`,
    );
  }
  const properties = isObject(schema.properties) ? schema.properties : undefined;
  if (upper === 'OBJECT' && (properties === undefined || Object.keys(properties).length === 0)) {
    return invalidArgument(
      `* GenerateContentRequest.${path}.properties: should be non-empty for OBJECT type\n`,
    );
  }
  if (upper === 'ARRAY' && schema.items === undefined) {
    return invalidArgument(`* GenerateContentRequest.${path}.items: missing field.\n`);
  }
  if (Array.isArray(schema.required)) {
    for (const [index, name] of schema.required.entries()) {
      if (typeof name !== 'string' || properties === undefined || !Object.hasOwn(properties, name)) {
        return invalidArgument(
          `* GenerateContentRequest.${path}.required[${index}]: property is not defined\n`,
        );
      }
    }
  }
  for (const [name, child] of Object.entries(properties ?? {})) {
    const error = validateOpenApiParameters(child, `${path}.properties[${name}].value`);
    if (error !== undefined) return error;
  }
  if (schema.items !== undefined) {
    const error = validateOpenApiParameters(schema.items, `${path}.items`);
    if (error !== undefined) return error;
  }
  if (Array.isArray(schema.anyOf)) {
    for (const [index, child] of schema.anyOf.entries()) {
      const error = validateOpenApiParameters(child, `${path}.any_of[${index}]`);
      if (error !== undefined) return error;
    }
  }
  return undefined;
}

/** Validates `parametersJsonSchema`. */
export function validateJsonSchemaParameters(schema: unknown, path: string): FakeGeminiError | undefined {
  if (!isObject(schema) || schema.type !== 'object') {
    return invalidArgument(
      `* GenerateContentRequest.${path}: the schema must describe an object ("type": "object")\n`,
    );
  }
  return validateJsonSchemaNode(schema, schema, '');
}

function validateJsonSchemaNode(
  node: unknown,
  root: Record<string, unknown>,
  at: string,
): FakeGeminiError | undefined {
  if (typeof node === 'boolean') return undefined;
  if (!isObject(node))
    return invalidArgument(`Invalid JSON schema at ${at || 'the root'}: a schema must be an object`);
  const reference = node.$ref;
  if (reference !== undefined) {
    if (typeof reference !== 'string' || resolve(root, reference) === undefined) {
      return invalidArgument(`reference to undefined schema at ${at}`);
    }
    const extra = Object.keys(node).filter((key) => !key.startsWith('$') && !REFERENCE_SIBLINGS.has(key));
    if (extra.length > 0) {
      return invalidArgument(
        `$ref '${reference}' was set alongside unsupported fields. If a schema node has $ref set, then only description and default can be set alongside it`,
      );
    }
  }
  const types: unknown[] = Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type];
  for (const type of types) {
    if (typeof type !== 'string' || !JSON_SCHEMA_TYPES.has(type)) {
      return invalidArgument(
        `Invalid JSON schema at ${at || 'the root'}: unknown type ${JSON.stringify(type)}`,
      );
    }
  }
  for (const [keyword, value] of Object.entries(node)) {
    for (const [child, childAt] of subschemas(keyword, value, at)) {
      const error = validateJsonSchemaNode(child, root, childAt);
      if (error !== undefined) return error;
    }
  }
  return undefined;
}

function subschemas(keyword: string, value: unknown, at: string): Array<[unknown, string]> {
  const join = (part: string) => (at === '' ? part : `${at}.${part}`);
  if (['properties', '$defs', 'definitions', 'patternProperties'].includes(keyword) && isObject(value)) {
    return Object.entries(value).map(([name, child]) => [child, join(`${keyword}.${name}`)]);
  }
  if (['anyOf', 'oneOf', 'allOf', 'prefixItems'].includes(keyword) && Array.isArray(value)) {
    return value.map((child, index) => [child, join(`${keyword}.${index}`)]);
  }
  if (['items', 'additionalProperties', 'not'].includes(keyword) && !Array.isArray(value)) {
    return [[value, join(keyword)]];
  }
  return [];
}

function resolve(root: Record<string, unknown>, reference: string): unknown {
  if (reference === '#') return root;
  if (!reference.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of reference.slice(2).split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (!isObject(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}
