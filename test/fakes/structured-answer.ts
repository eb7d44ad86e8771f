/**
 * The check both model fakes make of a structured answer: a scripted value must be valid against
 * the schema the request carried (Ollama's `format`, OpenAI's `response_format`), so a test cannot
 * pass with a schema that would refuse what the model writes under it.
 */
import type { IncomingMessage } from 'node:http';
import type { OpenAIWireError } from './openai-validation.js';

/** Why `value` is not valid against `schema` (or there is no schema), or undefined. */
export async function schemaProblem(
  schema: unknown,
  value: unknown,
  where: string,
): Promise<string | undefined> {
  if (typeof schema !== 'object' || schema === null) return `the request has no ${where} schema`;
  const { Ajv } = await import('ajv');
  const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
  if (validate(value)) return undefined;
  return `the scripted answer does not match the request's ${where}: ${new Ajv().errorsText(validate.errors)}`;
}

/** The same for an OpenAI request body's `response_format` (`json_schema`). */
export function responseFormatProblem(
  body: Record<string, unknown>,
  value: unknown,
): Promise<string | undefined> {
  const format = body.response_format as { type?: unknown; json_schema?: { schema?: unknown } } | undefined;
  const schema = format?.type === 'json_schema' ? format.json_schema?.schema : undefined;
  return schemaProblem(schema, value, 'json_schema response_format');
}

/** OpenAI's 401s: no key, or a wrong one. */
export function checkAuthorization(
  incoming: IncomingMessage,
  apiKey: string | undefined,
): OpenAIWireError | undefined {
  if (apiKey === undefined) return undefined;
  const header = incoming.headers.authorization;
  if (header === undefined || !header.startsWith('Bearer ')) {
    return {
      status: 401,
      message:
        "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY). You can obtain an API key from https://platform.openai.com/account/api-keys.",
      type: 'invalid_request_error',
      param: null,
      code: null,
    };
  }
  const given = header.slice('Bearer '.length);
  if (given === apiKey) return undefined;
  return {
    status: 401,
    message: `Incorrect API key provided: ${given.slice(0, 3)}***${given.slice(-4)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
    type: 'invalid_request_error',
    param: null,
    code: 'invalid_api_key',
  };
}
