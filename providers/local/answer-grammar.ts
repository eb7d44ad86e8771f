/**
 * Structured output for the embedded model: node-llama-cpp's JSON-schema grammar
 * (`llama.createGrammarForJsonSchema`), which makes even a random-weight model write JSON that
 * parses and fits the schema's shape. node-llama-cpp refuses a grammar together with `functions`
 * ("Using both grammar and functions is not supported yet"), so it applies only on a step without
 * tools (the Runner's answer step, or a run without tools). The schema is cleaned to the grammar's
 * subset like a tool's (schema.ts): optional properties are generated as `null`, taken out
 * afterwards at every level ({@link dropOmittedAnswerProperties}); keywords the grammar lacks
 * (`pattern`, `minimum`…) are dropped, and the Runner's check still holds the answer to them.
 */
import type { LlamaGrammar, LlamaModel } from 'node-llama-cpp';
import type { ChatRequest, JsonSchema } from '../../src/core/types.js';
import { cleanSchemaForLlama, dropOmittedProperties } from './schema.js';

/** The grammar for a step's answer, and the schema it was made for. */
export interface AnswerGrammar {
  readonly grammar: LlamaGrammar;
  readonly schema: JsonSchema;
}

/** A grammar when the step asks for JSON and offers no tools; undefined otherwise. */
export async function answerGrammar(
  model: LlamaModel,
  request: ChatRequest,
): Promise<AnswerGrammar | undefined> {
  const format = request.responseFormat;
  if (format === undefined || request.tools.length > 0) return undefined;
  switch (format.type) {
    case 'text':
      return undefined;
    case 'json-schema': {
      // The cleaned schema is what the grammar's own types describe; they cannot be named here.
      const cleaned = cleanSchemaForLlama(format.schema) as Parameters<
        LlamaModel['llama']['createGrammarForJsonSchema']
      >[0];
      return { grammar: await model.llama.createGrammarForJsonSchema(cleaned), schema: format.schema };
    }
    default: {
      const unexpected: never = format;
      throw new TypeError(`unknown response format ${JSON.stringify(unexpected)}`);
    }
  }
}

/**
 * The answer's text with the `null`s of omitted optional properties removed, at every level; the
 * text as written when it does not parse (the Runner then says why).
 */
export function answerText(text: string, schema: JsonSchema): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text;
  }
  return JSON.stringify(dropOmittedAnswerProperties(value, schema));
}

/** {@link dropOmittedProperties} applied through nested objects and arrays. */
export function dropOmittedAnswerProperties(value: unknown, schema: unknown): unknown {
  if (!isObject(schema)) return value;
  if (Array.isArray(value)) {
    return isObject(schema.items)
      ? value.map((item) => dropOmittedAnswerProperties(item, schema.items))
      : value;
  }
  if (!isObject(value) || !isObject(schema.properties)) return value;
  const properties = schema.properties;
  const kept = dropOmittedProperties(value, schema);
  return Object.fromEntries(
    Object.entries(kept).map(([name, item]) => [name, dropOmittedAnswerProperties(item, properties[name])]),
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
