/**
 * The request rules the real Gemini API (`generativelanguage.googleapis.com/v1beta`) enforces, for
 * the fake server. Each returns the error the real service answers with (status, Google status
 * name, message as close to the real one as known), or undefined when the request passes.
 * Schema rules live in gemini-schema-validation.ts.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { validateResponseFormat } from './gemini-response-format-validation.js';
import { validateJsonSchemaParameters, validateOpenApiParameters } from './gemini-schema-validation.js';
import { validateSignatures, validateTurnOrder } from './gemini-turn-validation.js';

export { signatureKey } from './gemini-turn-validation.js';

/** An error the fake answers with, in Google's shape. */
export interface FakeGeminiError {
  readonly code: number;
  /** Google's canonical status name, e.g. `INVALID_ARGUMENT`. */
  readonly status: string;
  readonly message: string;
  readonly details?: readonly unknown[];
}

/** What the validator needs to know beyond the request. */
export interface GeminiValidationContext {
  /** Gemini 3 mode: thought signatures this fake issued, by call (name + arguments). */
  readonly issuedSignatures?: ReadonlyMap<string, readonly string[]>;
  /** Gemini 3 models take `functionResponse.parts`; older ones reject it. */
  readonly gemini3: boolean;
}

export const invalidArgument = (message: string): FakeGeminiError => ({
  code: 400,
  status: 'INVALID_ARGUMENT',
  message,
});

/** `x-goog-api-key` (what the SDK sends) or `?key=`; as the real API: 403 without, 400 when wrong. */
export function validateApiKey(
  headers: IncomingHttpHeaders,
  query: URLSearchParams,
  expected: string,
): FakeGeminiError | undefined {
  const header = headers['x-goog-api-key'];
  const key = (typeof header === 'string' ? header : undefined) ?? query.get('key') ?? undefined;
  if (key === undefined || key === '') {
    return {
      code: 403,
      status: 'PERMISSION_DENIED',
      message:
        "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
    };
  }
  if (key === expected) return undefined;
  return {
    code: 400,
    status: 'INVALID_ARGUMENT',
    message: 'API key not valid. Please pass a valid API key.',
    details: [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'API_KEY_INVALID',
        domain: 'googleapis.com',
        metadata: { service: 'generativelanguage.googleapis.com' },
      },
    ],
  };
}

/** Gemini's function name rule: a letter or underscore, then letters, digits, `_ . : -`; 64 at most. */
export const GEMINI_FUNCTION_NAME = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/;

const DATA_FIELDS = [
  'text',
  'inlineData',
  'fileData',
  'functionCall',
  'functionResponse',
  'executableCode',
  'codeExecutionResult',
];
const PART_FIELDS = new Set([
  ...DATA_FIELDS,
  'thought',
  'thoughtSignature',
  'videoMetadata',
  'mediaResolution',
  'partMetadata',
]);
const BODY_FIELDS = new Set([
  'contents',
  'tools',
  'toolConfig',
  'safetySettings',
  'systemInstruction',
  'generationConfig',
  'cachedContent',
  'labels',
  'serviceTier',
]);
const DECLARATION_FIELDS = new Set([
  'name',
  'description',
  'behavior',
  'parameters',
  'parametersJsonSchema',
  'response',
  'responseJsonSchema',
]);

type Json = Record<string, unknown>;

/** Validates a `generateContent` / `streamGenerateContent` body. */
export function validateGenerateContentBody(
  body: unknown,
  context: GeminiValidationContext,
): FakeGeminiError | undefined {
  if (!isObject(body)) return invalidArgument('Invalid JSON payload received.');
  for (const key of Object.keys(body)) {
    if (!BODY_FIELDS.has(key)) return unknownName(key, '');
  }
  if (!Array.isArray(body.contents) || body.contents.length === 0) {
    return invalidArgument('* GenerateContentRequest.contents: contents is not specified\n');
  }
  const contents: unknown[] = body.contents;
  return (
    validateSystemInstruction(body.systemInstruction) ??
    validateTools(body.tools) ??
    validateGenerationConfig(body.generationConfig) ??
    (isObject(body.generationConfig)
      ? validateResponseFormat(body.generationConfig, body.tools, context.gemini3)
      : undefined) ??
    contents.reduce<FakeGeminiError | undefined>(
      (found, content, index) => found ?? validateContent(content, index, contents, context),
      undefined,
    ) ??
    validateSignatures(contents, context)
  );
}

function validateSystemInstruction(instruction: unknown): FakeGeminiError | undefined {
  if (instruction === undefined) return undefined;
  if (!isObject(instruction) || !Array.isArray(instruction.parts) || instruction.parts.length === 0) {
    return invalidArgument(
      '* GenerateContentRequest.system_instruction.parts: contents.parts must not be empty.\n',
    );
  }
  return undefined;
}

function validateGenerationConfig(config: unknown): FakeGeminiError | undefined {
  if (!isObject(config)) return undefined;
  if (Array.isArray(config.stopSequences) && config.stopSequences.length > 5) {
    return invalidArgument(
      '* GenerateContentRequest.generation_config.stop_sequences: at most 5 stop sequences are allowed\n',
    );
  }
  return undefined;
}

/** The Gemini API's cap on function declarations in one request. */
export const MAX_FUNCTION_DECLARATIONS = 512;

function validateTools(tools: unknown): FakeGeminiError | undefined {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools))
    return invalidArgument("Invalid JSON payload received. Invalid value at 'tools'");
  const seen = new Set<string>();
  for (const [toolIndex, tool] of tools.entries()) {
    if (!isObject(tool))
      return invalidArgument(`Invalid JSON payload received. Invalid value at 'tools[${toolIndex}]'`);
    const declarations: unknown = tool.functionDeclarations;
    if (declarations === undefined) continue;
    if (!Array.isArray(declarations)) {
      return invalidArgument(
        `Invalid JSON payload received. Invalid value at 'tools[${toolIndex}].function_declarations'`,
      );
    }
    if (declarations.length > MAX_FUNCTION_DECLARATIONS) {
      // The real body, as gemini-cli users met it with many MCP servers (google-gemini/gemini-cli#19083).
      return invalidArgument(
        `The GenerateContentRequest proto is invalid:\n  * tools[${toolIndex}].function_declarations: [FIELD_INVALID] At most ${MAX_FUNCTION_DECLARATIONS} function declarations can be specified.`,
      );
    }
    for (const [index, declaration] of declarations.entries()) {
      const path = `tools[${toolIndex}].function_declarations[${index}]`;
      const error = validateDeclaration(declaration, path, seen);
      if (error !== undefined) return error;
    }
  }
  return undefined;
}

function validateDeclaration(
  declaration: unknown,
  path: string,
  seen: Set<string>,
): FakeGeminiError | undefined {
  if (!isObject(declaration))
    return invalidArgument(`Invalid JSON payload received. Invalid value at '${path}'`);
  for (const key of Object.keys(declaration)) {
    if (!DECLARATION_FIELDS.has(key)) return unknownName(key, path);
  }
  const name = declaration.name;
  if (typeof name !== 'string' || !GEMINI_FUNCTION_NAME.test(name)) {
    return invalidArgument(
      `* GenerateContentRequest.${path}.name: Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64.\n`,
    );
  }
  if (seen.has(name))
    return invalidArgument(
      `* GenerateContentRequest.${path}.name: Duplicate function declaration found: ${name}\n`,
    );
  seen.add(name);
  if (declaration.parameters !== undefined && declaration.parametersJsonSchema !== undefined) {
    return invalidArgument(
      `* GenerateContentRequest.${path}: parameters and parameters_json_schema are mutually exclusive; set only one of them.\n`,
    );
  }
  if (declaration.parameters !== undefined)
    return validateOpenApiParameters(declaration.parameters, `${path}.parameters`);
  if (declaration.parametersJsonSchema !== undefined) {
    return validateJsonSchemaParameters(declaration.parametersJsonSchema, `${path}.parameters_json_schema`);
  }
  return undefined;
}

function validateContent(
  content: unknown,
  index: number,
  contents: readonly unknown[],
  context: GeminiValidationContext,
): FakeGeminiError | undefined {
  const path = `contents[${index}]`;
  if (!isObject(content)) return invalidArgument(`Invalid JSON payload received. Invalid value at '${path}'`);
  const role = content.role;
  if (role !== undefined && role !== 'user' && role !== 'model') {
    return invalidArgument('Please use a valid role: user, model.');
  }
  if (!Array.isArray(content.parts) || content.parts.length === 0) {
    return invalidArgument(`* GenerateContentRequest.${path}.parts: contents.parts must not be empty.\n`);
  }
  for (const [partIndex, part] of content.parts.entries()) {
    const error = validatePart(part, `${path}.parts[${partIndex}]`, context);
    if (error !== undefined) return error;
  }
  return validateTurnOrder(content, index, contents);
}

function validatePart(
  part: unknown,
  path: string,
  context: GeminiValidationContext,
): FakeGeminiError | undefined {
  if (!isObject(part)) return invalidArgument(`Invalid JSON payload received. Invalid value at '${path}'`);
  for (const key of Object.keys(part)) {
    if (!PART_FIELDS.has(key)) return unknownName(key, path);
  }
  const set = DATA_FIELDS.filter((field) => part[field] !== undefined);
  if (set.length === 0) {
    return invalidArgument(
      `* GenerateContentRequest.${path}.data: required oneof field 'data' must have one initialized field\n`,
    );
  }
  if (set.length > 1) {
    return invalidArgument(
      `Invalid JSON payload received. Oneof field 'data' is already set. Cannot set '${set[1]}'`,
    );
  }
  const { inlineData, functionCall, functionResponse } = part;
  if (inlineData !== undefined) {
    if (!isObject(inlineData) || typeof inlineData.mimeType !== 'string' || inlineData.mimeType === '') {
      return invalidArgument(
        `* GenerateContentRequest.${path}.inline_data.mime_type: mime_type is required\n`,
      );
    }
    if (typeof inlineData.data !== 'string' || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(inlineData.data)) {
      return invalidArgument(
        `Invalid value at '${path}.inline_data.data' (TYPE_BYTES), Base64 decoding failed`,
      );
    }
  }
  if (
    functionCall !== undefined &&
    (!isObject(functionCall) || typeof functionCall.name !== 'string' || functionCall.name === '')
  ) {
    return invalidArgument(`* GenerateContentRequest.${path}.function_call.name: Name cannot be empty.\n`);
  }
  if (functionResponse !== undefined) {
    if (
      !isObject(functionResponse) ||
      typeof functionResponse.name !== 'string' ||
      functionResponse.name === ''
    ) {
      return invalidArgument(
        `* GenerateContentRequest.${path}.function_response.name: Name cannot be empty.\n`,
      );
    }
    // `response` is a google.protobuf.Struct: required, and a JSON object (not a string or a list).
    if (!isObject(functionResponse.response)) {
      return invalidArgument(
        `Invalid value at '${path}.function_response.response' (type.googleapis.com/google.protobuf.Struct), ${JSON.stringify(functionResponse.response ?? null)}`,
      );
    }
    if (functionResponse.parts !== undefined && !context.gemini3) {
      return invalidArgument('function_response.parts is not supported for this model.');
    }
  }
  return undefined;
}

function unknownName(key: string, path: string): FakeGeminiError {
  return invalidArgument(
    `Invalid JSON payload received. Unknown name "${key}" at '${path}': Cannot find field.`,
  );
}

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
