/**
 * The Gemini fake's function-calling turn rules: calls follow a user turn, responses answer every
 * call, and (Gemini 3) signed calls carry their thought signature back. Used by gemini-validation.ts.
 */
import {
  invalidArgument,
  isObject,
  type FakeGeminiError,
  type GeminiValidationContext,
} from './gemini-validation.js';

type Json = Record<string, unknown>;

const partsOf = (content: unknown): Json[] =>
  isObject(content) && Array.isArray(content.parts) ? content.parts.filter(isObject) : [];
const callsOf = (content: unknown): Json[] =>
  partsOf(content).filter((part) => part.functionCall !== undefined);
const responsesOf = (content: unknown): Json[] =>
  partsOf(content).filter((part) => part.functionResponse !== undefined);

/** The function-calling turn rules: calls follow a user turn, responses answer every call. */
export function validateTurnOrder(
  content: Json,
  index: number,
  contents: readonly unknown[],
): FakeGeminiError | undefined {
  const previous = index > 0 ? contents[index - 1] : undefined;
  const previousRole = isObject(previous) ? previous.role : undefined;
  const calls = callsOf(content);
  if (calls.length > 0 && (content.role !== 'model' || previousRole !== 'user')) {
    return invalidArgument(
      'Please ensure that function call turn comes immediately after a user turn or after a function response turn.',
    );
  }
  const responses = responsesOf(content);
  if (responses.length === 0) return undefined;
  const previousCalls = callsOf(previous);
  if (content.role !== 'user' || previousRole !== 'model' || previousCalls.length === 0) {
    return invalidArgument(
      'Please ensure that function response turn comes immediately after a function call turn.',
    );
  }
  if (responses.length !== previousCalls.length) {
    return invalidArgument(
      'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.',
    );
  }
  const callNames = previousCalls.map((part) => (part.functionCall as Json).name).sort();
  const responseNames = responses.map((part) => (part.functionResponse as Json).name).sort();
  if (JSON.stringify(callNames) !== JSON.stringify(responseNames)) {
    return invalidArgument(
      `* GenerateContentRequest.contents[${index}]: function response names ${JSON.stringify(responseNames)} do not match the function calls ${JSON.stringify(callNames)}\n`,
    );
  }
  return undefined;
}

/** The key under which a call's issued signature is remembered. */
export function signatureKey(name: string, args: unknown): string {
  return `${name} ${stableJson(args ?? {})}`;
}

/**
 * Gemini 3: in the current turn (since the last user message that is not function responses),
 * every function call part that came with a signature must carry it back, unchanged.
 */
export function validateSignatures(
  contents: readonly unknown[],
  context: GeminiValidationContext,
): FakeGeminiError | undefined {
  const issued = context.issuedSignatures;
  if (issued === undefined || issued.size === 0) return undefined;
  let turnStart = 0;
  contents.forEach((content, index) => {
    if (isObject(content) && content.role === 'user' && responsesOf(content).length === 0) turnStart = index;
  });
  for (const [index, content] of contents.entries()) {
    if (index < turnStart) continue;
    for (const [position, part] of callsOf(content).entries()) {
      const call = part.functionCall as Json;
      const expected = issued.get(signatureKey(String(call.name), call.args));
      if (expected === undefined || expected.length === 0) continue;
      if (part.thoughtSignature === undefined) {
        return invalidArgument(
          `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`${String(call.name)}\` , position ${position + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
        );
      }
      if (typeof part.thoughtSignature !== 'string' || !expected.includes(part.thoughtSignature)) {
        return invalidArgument('Corrupted thought signature.');
      }
    }
  }
  return undefined;
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (isObject(value)) {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${stableJson(value[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}
