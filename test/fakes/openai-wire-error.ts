/** OpenAI's error body and the small helpers the fake's validation shares. */

/** An OpenAI error, as the body `{"error": {...}}` carries it. */
export interface OpenAIWireError {
  readonly status: number;
  readonly message: string;
  readonly type: string;
  readonly param: string | null;
  readonly code: string | null;
}

const NAME_PATTERN = /^[a-zA-Z0-9_-]+$/;
const MAX_NAME_LENGTH = 64;

/** A 400 `invalid_request_error`, the way the real API words it. */
export function invalid(message: string, param: string | null, code: string | null = null): OpenAIWireError {
  return { status: 400, message, type: 'invalid_request_error', param, code };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** The tool-name rule, checked on tool definitions and on the calls in the history alike. */
export function validateName(name: unknown, param: string): OpenAIWireError | undefined {
  if (typeof name !== 'string')
    return invalid(
      `Invalid type for '${param}': expected a string, but got ${typeName(name)} instead.`,
      param,
      'invalid_type',
    );
  if (name.length > MAX_NAME_LENGTH) {
    return invalid(
      `Invalid '${param}': string too long. Expected a string with maximum length ${MAX_NAME_LENGTH}, but got a string with length ${name.length} instead.`,
      param,
      'string_above_max_length',
    );
  }
  if (!NAME_PATTERN.test(name)) {
    return invalid(
      `Invalid '${param}': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
      param,
      'invalid_value',
    );
  }
  return undefined;
}
