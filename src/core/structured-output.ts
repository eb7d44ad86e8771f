/**
 * Answers that match a JSON Schema (`--output-schema`, `RunOptions.outputSchema`).
 *
 * The Runner asks every model call of such a run for a JSON answer ({@link ResponseFormat}), tells
 * the model the schema in the system prompt (so a provider without native structured output, or a
 * step where the vendor cannot apply it beside tools, still knows what to write), and checks the
 * final answer here. An answer that does not parse or does not validate is answered with the
 * problems and asked for again, at most {@link DEFAULT_OUTPUT_SCHEMA_RETRIES} times, on a call
 * without tools (the model was done with them, and vendors that cannot combine constrained output
 * with tools, Gemini 2.x and node-llama-cpp, apply it there). Never valid: `StructuredOutputError`.
 *
 * Validation is ajv's (the validator the MCP SDK uses too), loaded on the first run with a schema:
 * a hand-written validator would cover a fraction of JSON Schema, and most runs never need one.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { ConfigError, messageOf } from './errors.js';
import type { JsonSchemaObject, ResponseFormat, UserMessage } from './types.js';

/** Follow-ups after an invalid answer before the run fails: three answers in all. */
export const DEFAULT_OUTPUT_SCHEMA_RETRIES = 2;

/**
 * The key a non-object answer is wrapped in. Every vendor's structured output (OpenAI's strict mode,
 * Anthropic's tool input, Gemini's and Ollama's schemas in practice) wants an object at the root, so
 * a schema with another root (an array, a string, an `anyOf`) is asked for as `{ "value": … }` and
 * the value is taken out before it is checked and returned.
 */
export const WRAPPED_ANSWER_KEY = 'value';

/** Problems listed in a follow-up or an error, at most (the rest are counted). */
const MAX_PROBLEMS = 8;

/** The outcome of checking one answer. */
export type AnswerCheck =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly problems: readonly string[] };

/** A compiled output schema: what to send, and the check of an answer. */
export interface OutputSchema {
  /** What each model call of the run carries. */
  readonly responseFormat: Extract<ResponseFormat, { type: 'json-schema' }>;
  /** Appended to the system prompt of every model call of the run. */
  readonly instruction: string;
  /** Parses and validates the final answer's text (unwrapping a wrapped answer). */
  check(text: string): AnswerCheck;
}

type Validator = ValidateFunction;
const compiled = new WeakMap<JsonSchemaObject, OutputSchema>();

/**
 * Compiles a schema (cached per schema object). Throws {@link ConfigError} with source
 * `outputSchema` when ajv cannot compile it; the CLI names the file instead.
 */
export async function compileOutputSchema(schema: JsonSchemaObject): Promise<OutputSchema> {
  const cached = compiled.get(schema);
  if (cached !== undefined) return cached;
  const given: unknown = schema; // a program in plain JavaScript may pass anything
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    throw new ConfigError('outputSchema', 'is not a JSON Schema object');
  }
  const wrapped = !isObjectRooted(schema);
  const sent: JsonSchemaObject = wrapped
    ? {
        type: 'object',
        properties: { [WRAPPED_ANSWER_KEY]: withoutDialect(schema) },
        required: [WRAPPED_ANSWER_KEY],
        additionalProperties: false,
      }
    : schema;
  let validate: Validator;
  try {
    validate = await validatorFor(schema);
  } catch (error) {
    throw new ConfigError('outputSchema', `is not a schema ajv can compile: ${messageOf(error)}`, {
      cause: error,
    });
  }
  const outputSchema: OutputSchema = {
    responseFormat: { type: 'json-schema', name: schemaName(schema), schema: sent },
    instruction:
      'Your final answer must be only a JSON value valid against this JSON Schema: no other text, ' +
      `no code fence.\n${JSON.stringify(sent)}`,
    check: (text) => checkAnswer(text, validate, wrapped),
  };
  compiled.set(schema, outputSchema);
  return outputSchema;
}

/** The follow-up sent after an invalid answer. */
export function followUpMessage(problems: readonly string[]): UserMessage {
  return {
    role: 'user',
    content: [
      {
        type: 'text',
        text:
          'Your answer did not match the required JSON Schema:\n' +
          problems.map((problem) => `- ${problem}`).join('\n') +
          '\nAnswer again with only the corrected JSON value.',
      },
    ],
  };
}

function checkAnswer(text: string, validate: Validator, wrapped: boolean): AnswerCheck {
  let parsed: unknown;
  try {
    parsed = JSON.parse(withoutCodeFence(text));
  } catch (error) {
    const shown =
      text.trim() === '' ? 'the answer was empty' : `the answer is not JSON (${messageOf(error)})`;
    return { ok: false, problems: [shown] };
  }
  let value = parsed;
  if (wrapped) {
    if (isWrapper(parsed)) {
      value = parsed[WRAPPED_ANSWER_KEY];
    } else if (!validate(parsed)) {
      // A step without native structured output may answer the bare value; that is accepted too.
      return { ok: false, problems: [`the answer must be an object with the key "${WRAPPED_ANSWER_KEY}"`] };
    }
  }
  if (validate(value)) return { ok: true, value };
  return { ok: false, problems: describeErrors(validate.errors ?? []) };
}

function isWrapper(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.keys(value).length === 1 &&
    WRAPPED_ANSWER_KEY in value
  );
}

/**
 * Models told "no code fence" still write one now and then; a fence around the whole answer is not
 * worth a follow-up. Anything else around the JSON is.
 */
function withoutCodeFence(text: string): string {
  const trimmed = text.trim();
  const fenced = /^```[a-zA-Z]*\n([\s\S]*?)\n?```$/.exec(trimmed);
  return fenced?.[1] ?? trimmed;
}

/** One schema problem in words after its place: ajv's message, and the key or values it concerns. */
export function describeSchemaError(error: ErrorObject): string {
  const extra =
    error.keyword === 'additionalProperties'
      ? `: "${String((error.params as { additionalProperty?: unknown }).additionalProperty)}"`
      : error.keyword === 'enum'
        ? `: ${JSON.stringify((error.params as { allowedValues?: unknown }).allowedValues)}`
        : '';
  return `${error.message ?? 'is invalid'}${extra}`;
}

function describeErrors(errors: readonly ErrorObject[]): string[] {
  const lines = errors.map((error) => {
    const where = error.instancePath === '' ? 'the answer' : error.instancePath;
    return `${where} ${describeSchemaError(error)}`;
  });
  const unique = [...new Set(lines)];
  if (unique.length <= MAX_PROBLEMS) return unique;
  return [...unique.slice(0, MAX_PROBLEMS), `and ${unique.length - MAX_PROBLEMS} more problems`];
}

/** An object root that every vendor takes as is: `type: "object"` and no union at the top. */
function isObjectRooted(schema: JsonSchemaObject): boolean {
  return schema.type === 'object' && !('anyOf' in schema) && !('oneOf' in schema) && !('allOf' in schema);
}

/** `$schema` belongs at the root only; nested under the wrapper it would be refused by some vendors. */
function withoutDialect(schema: JsonSchemaObject): JsonSchemaObject {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

/** The schema's `title`, cleaned to OpenAI's name rule, or `answer`. */
function schemaName(schema: JsonSchemaObject): string {
  const title = typeof schema.title === 'string' ? schema.title.replace(/[^a-zA-Z0-9_-]+/g, '_') : '';
  const name = title.replace(/^_+|_+$/g, '').slice(0, 64);
  return name === '' ? 'answer' : name;
}

/** ajv for the schema's dialect: 2020-12 and 2019-09 have their own classes; draft-07 otherwise. */
export async function validatorFor(schema: JsonSchemaObject): Promise<Validator> {
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
  const { default: addFormats } = await import('ajv-formats');
  const options = { allErrors: true, strict: false } as const;
  let ajv;
  if (dialect.includes('2020-12')) {
    const { Ajv2020 } = await import('ajv/dist/2020.js');
    ajv = new Ajv2020(options);
  } else if (dialect.includes('2019-09')) {
    const { Ajv2019 } = await import('ajv/dist/2019.js');
    ajv = new Ajv2019(options);
  } else {
    const { Ajv } = await import('ajv');
    ajv = new Ajv(options);
  }
  addFormats(ajv);
  return ajv.compile(schema);
}
