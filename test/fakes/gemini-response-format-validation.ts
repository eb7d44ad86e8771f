/**
 * Gemini's structured output as the real API checks it (`generationConfig`): the schema fields
 * `responseSchema` (OpenAPI subset) and `responseJsonSchema` (JSON Schema) are exclusive and need
 * JSON mode (`responseMimeType: application/json`); each is checked like a function's parameters
 * (gemini-schema-validation.ts); and Gemini 2.x refuses JSON mode beside function declarations
 * ("Function calling with a response mime type: 'application/json' is unsupported"), which
 * Gemini 3 accepts.
 */
import { validateJsonSchemaParameters, validateOpenApiParameters } from './gemini-schema-validation.js';
import type { FakeGeminiError } from './gemini-validation.js';

const invalidArgument = (message: string): FakeGeminiError => ({
  code: 400,
  status: 'INVALID_ARGUMENT',
  message,
});

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const MIME_TYPES = new Set(['text/plain', 'application/json', 'text/x.enum']);

export function validateResponseFormat(
  config: Record<string, unknown>,
  tools: unknown,
  gemini3: boolean,
): FakeGeminiError | undefined {
  const { responseMimeType: mimeType, responseSchema, responseJsonSchema } = config;
  if (mimeType !== undefined && (typeof mimeType !== 'string' || !MIME_TYPES.has(mimeType))) {
    return invalidArgument(
      `* GenerateContentRequest.generation_config.response_mime_type: allowed mimetypes are \`text/plain\`, \`application/json\`, \`text/x.enum\`. ${JSON.stringify(mimeType)} is not supported.\n`,
    );
  }
  if (responseSchema !== undefined && responseJsonSchema !== undefined) {
    return invalidArgument(
      '* GenerateContentRequest.generation_config.response_json_schema: response_json_schema and response_schema cannot both be set.\n',
    );
  }
  const schemaField = responseJsonSchema !== undefined ? 'response_json_schema' : 'response_schema';
  if ((responseSchema !== undefined || responseJsonSchema !== undefined) && mimeType !== 'application/json') {
    return invalidArgument(
      `* GenerateContentRequest.generation_config.${schemaField}: ${schemaField} is only supported with response_mime_type application/json.\n`,
    );
  }
  const path = `generation_config.${schemaField}`;
  // An answer may be any JSON value (a tool's parameters must be an object): only an object root is
  // walked with the parameters' rules here.
  const schemaProblem =
    responseJsonSchema !== undefined
      ? isObject(responseJsonSchema) && responseJsonSchema.type !== 'object'
        ? undefined
        : validateJsonSchemaParameters(responseJsonSchema, path)
      : responseSchema !== undefined
        ? validateOpenApiParameters(responseSchema, path)
        : undefined;
  if (schemaProblem !== undefined) return schemaProblem;
  const declaresFunctions =
    Array.isArray(tools) && tools.some((tool) => isObject(tool) && Array.isArray(tool.functionDeclarations));
  if (mimeType === 'application/json' && declaresFunctions && !gemini3) {
    return invalidArgument("Function calling with a response mime type: 'application/json' is unsupported");
  }
  return undefined;
}
