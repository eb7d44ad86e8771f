/**
 * `response_format` as the real Chat Completions API checks it: the type, the `json_schema` object
 * and its name, and — with `strict: true` — Structured Outputs' schema subset, refused with a 400
 * worded as OpenAI words it ("Invalid schema for response_format 'NAME': In context=(…), …"):
 * the root must be an object, every object must set `additionalProperties: false` and list every
 * property in `required`, and only the supported keywords may appear.
 */
import { invalid, isRecord, typeName, validateName, type OpenAIWireError } from './openai-wire-error.js';

/** The keywords OpenAI's strict mode documents as supported. */
const SUPPORTED_KEYWORDS: ReadonlySet<string> = new Set([
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

export function validateResponseFormat(format: unknown): OpenAIWireError | undefined {
  if (format === undefined) return undefined;
  if (!isRecord(format)) {
    return invalid(
      `Invalid type for 'response_format': expected an object, but got ${typeName(format)} instead.`,
      'response_format',
      'invalid_type',
    );
  }
  if (format.type === 'text' || format.type === 'json_object') return undefined;
  if (format.type !== 'json_schema') {
    return invalid(
      `Invalid value: '${String(format.type)}'. Supported values are: 'text', 'json_object', and 'json_schema'.`,
      'response_format.type',
      'invalid_value',
    );
  }
  const jsonSchema = format.json_schema;
  if (!isRecord(jsonSchema)) {
    return invalid(
      "Missing required parameter: 'response_format.json_schema'.",
      'response_format.json_schema',
      'missing_required_parameter',
    );
  }
  const nameProblem = validateName(jsonSchema.name, 'response_format.json_schema.name');
  if (nameProblem !== undefined) return nameProblem;
  if (jsonSchema.strict !== true) return undefined;
  const name = String(jsonSchema.name);
  const schema = jsonSchema.schema;
  if (!isRecord(schema) || schema.type !== 'object') {
    const got = isRecord(schema) ? JSON.stringify(schema.type ?? null) : 'null';
    return schemaError(name, [], `schema must be a JSON Schema of 'type: "object"', got 'type: ${got}'.`);
  }
  const problem = strictProblem(schema, []);
  return problem === undefined ? undefined : schemaError(name, problem.path, problem.detail);
}

function schemaError(name: string, path: readonly string[], detail: string): OpenAIWireError {
  const context = path.map((part) => `'${part}'`).join(', ');
  return invalid(
    `Invalid schema for response_format '${name}': In context=(${context}), ${detail}`,
    'response_format',
  );
}

type Problem = { readonly path: readonly string[]; readonly detail: string };

function strictProblem(node: unknown, path: readonly string[]): Problem | undefined {
  if (!isRecord(node)) return { path, detail: 'schema must be an object.' };
  for (const key of Object.keys(node)) {
    if (!SUPPORTED_KEYWORDS.has(key)) return { path, detail: `'${key}' is not permitted.` };
  }
  const types = Array.isArray(node.type) ? node.type : [node.type];
  if (types.includes('object') || 'properties' in node) {
    if (node.additionalProperties !== false) {
      return { path, detail: "'additionalProperties' is required to be supplied and to be false." };
    }
    const properties = isRecord(node.properties) ? node.properties : {};
    const required = Array.isArray(node.required) ? node.required : [];
    const missing = Object.keys(properties).find((key) => !required.includes(key));
    if (missing !== undefined) {
      return {
        path,
        detail: `'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`,
      };
    }
    for (const [key, child] of Object.entries(properties)) {
      const problem = strictProblem(child, [...path, 'properties', key]);
      if (problem !== undefined) return problem;
    }
  }
  if ('items' in node) {
    const problem = strictProblem(node.items, [...path, 'items']);
    if (problem !== undefined) return problem;
  }
  if (Array.isArray(node.anyOf)) {
    for (const [index, child] of node.anyOf.entries()) {
      const problem = strictProblem(child, [...path, 'anyOf', String(index)]);
      if (problem !== undefined) return problem;
    }
  }
  for (const key of ['$defs', 'definitions']) {
    const definitions = node[key];
    if (!isRecord(definitions)) continue;
    for (const [name, child] of Object.entries(definitions)) {
      const problem = strictProblem(child, [...path, key, name]);
      if (problem !== undefined) return problem;
    }
  }
  return undefined;
}
