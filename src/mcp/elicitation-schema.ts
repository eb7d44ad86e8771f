/**
 * The form of a form-mode elicitation: the flat object schema of the MCP spec read as a list of
 * fields a person can be asked one by one, and the check of an answer against the schema.
 */
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import type { JsonObject } from '../core/questions.js';
import { definedProperties } from '../util/defined-properties.js';

/** A choice of an enum field: the value sent, and the label shown. */
export interface FieldOption {
  readonly value: string;
  readonly label: string;
}

interface FieldBase {
  /** The property name (the key of the answer). */
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly required: boolean;
}

/** One field of a form. A tagged union: switch on `kind`. */
export type FormField = FieldBase &
  (
    | {
        readonly kind: 'string';
        readonly format?: string;
        readonly minLength?: number;
        readonly maxLength?: number;
        readonly default?: string;
      }
    | {
        readonly kind: 'number';
        readonly integer: boolean;
        readonly minimum?: number;
        readonly maximum?: number;
        readonly default?: number;
      }
    | { readonly kind: 'boolean'; readonly default?: boolean }
    | { readonly kind: 'enum'; readonly options: readonly FieldOption[]; readonly default?: string }
    | {
        readonly kind: 'multi-enum';
        readonly options: readonly FieldOption[];
        readonly minItems?: number;
        readonly maxItems?: number;
        readonly default?: readonly string[];
      }
  );

/** The form, or why it cannot be shown as one. */
export type FormReading =
  | { readonly ok: true; readonly fields: readonly FormField[] }
  | { readonly ok: false; readonly reason: string };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

/** The options of `enum` (+ legacy `enumNames`) or `oneOf`/`anyOf` of `{ const, title }`. */
function optionsOf(schema: Record<string, unknown>): FieldOption[] | undefined {
  if (Array.isArray(schema.enum)) {
    const names = Array.isArray(schema.enumNames) ? schema.enumNames : [];
    if (!schema.enum.every((value) => typeof value === 'string')) return undefined;
    return schema.enum.map((value: string, index) => ({ value, label: text(names[index]) ?? value }));
  }
  const choices = schema.oneOf ?? schema.anyOf;
  if (!Array.isArray(choices)) return undefined;
  const options: FieldOption[] = [];
  for (const choice of choices) {
    if (!isObject(choice) || typeof choice.const !== 'string') return undefined;
    options.push({ value: choice.const, label: text(choice.title) ?? choice.const });
  }
  return options;
}

function readField(name: string, schema: unknown, required: boolean): FormField | string {
  if (!isObject(schema)) return `property "${name}" is not a schema`;
  const base: FieldBase = {
    name,
    required,
    ...definedProperties({ title: text(schema.title), description: text(schema.description) }),
  };
  const options = optionsOf(schema);
  switch (schema.type) {
    case 'string': {
      if (options !== undefined) {
        const fallback = text(schema.default);
        return { ...base, kind: 'enum', options, ...definedProperties({ default: fallback }) };
      }
      if (schema.enum !== undefined || schema.oneOf !== undefined || schema.anyOf !== undefined) {
        return `property "${name}" has choices that are not strings`;
      }
      return {
        ...base,
        kind: 'string',
        ...definedProperties({
          format: text(schema.format),
          minLength: num(schema.minLength),
          maxLength: num(schema.maxLength),
          default: text(schema.default),
        }),
      };
    }
    case 'number':
    case 'integer':
      return {
        ...base,
        kind: 'number',
        integer: schema.type === 'integer',
        ...definedProperties({
          minimum: num(schema.minimum),
          maximum: num(schema.maximum),
          default: num(schema.default),
        }),
      };
    case 'boolean':
      return {
        ...base,
        kind: 'boolean',
        ...definedProperties({ default: typeof schema.default === 'boolean' ? schema.default : undefined }),
      };
    case 'array': {
      const items = isObject(schema.items) ? optionsOf(schema.items) : undefined;
      if (items === undefined) return `property "${name}" is an array of something other than choices`;
      const fallback = Array.isArray(schema.default)
        ? schema.default.filter((value) => typeof value === 'string')
        : undefined;
      return {
        ...base,
        kind: 'multi-enum',
        options: items,
        ...definedProperties({
          minItems: num(schema.minItems),
          maxItems: num(schema.maxItems),
          default: fallback,
        }),
      };
    }
    default:
      return `property "${name}" has type ${JSON.stringify(schema.type ?? null)}, which a form cannot ask for`;
  }
}

/** Reads a requested schema as form fields, or says why it cannot be one (nested objects, refs…). */
export function readForm(schema: JsonObject): FormReading {
  if (schema.type !== 'object' || !isObject(schema.properties)) {
    return { ok: false, reason: 'the requested schema is not an object with properties' };
  }
  const required = Array.isArray(schema.required)
    ? schema.required.filter((name) => typeof name === 'string')
    : [];
  const fields: FormField[] = [];
  for (const [name, property] of Object.entries(schema.properties)) {
    const field = readField(name, property, required.includes(name));
    if (typeof field === 'string') return { ok: false, reason: field };
    fields.push(field);
  }
  return { ok: true, fields };
}

/** The answer made of every field's default, or undefined when a required field has none. */
export function defaultAnswer(fields: readonly FormField[]): JsonObject | undefined {
  const answer: Record<string, unknown> = {};
  for (const field of fields) {
    if (field.default !== undefined) answer[field.name] = field.default;
    else if (field.required) return undefined;
  }
  return answer;
}

// One validator for the process: ajv compiles each schema, and it is the SDK's own (with formats).
let validator: AjvJsonSchemaValidator | undefined;

/** Checks an answer against the requested schema: undefined when it fits, else what is wrong. */
export function checkAnswer(schema: JsonObject, content: JsonObject): string | undefined {
  validator ??= new AjvJsonSchemaValidator();
  const result = validator.getValidator(schema)(content);
  return result.valid ? undefined : result.errorMessage;
}
