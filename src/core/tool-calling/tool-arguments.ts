/**
 * Arguments checked against the tool's input schema before the call goes out, in native and
 * prompted mode alike: a small model's call that misses a required field or sends a string for a
 * number gets an error result naming the problems (at most {@link MAX_PROBLEMS}), which it can act
 * on, instead of a server's stack trace or a silent wrong call. A schema ajv cannot compile is not
 * checked here (the server still checks its own input).
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { describeSchemaError, validatorFor } from '../structured-output.js';
import type { JsonSchema, ToolCallBlock, ToolSpec } from '../types.js';

/** Problems named in one error result, at most (the rest are counted). */
const MAX_PROBLEMS = 6;

const compiled = new WeakMap<JsonSchema, Promise<ValidateFunction | undefined>>();

/** The error text for each call whose arguments fail its tool's schema, by call id. */
export async function argumentProblems(
  calls: readonly ToolCallBlock[],
  tools: readonly ToolSpec[],
  skip: ReadonlyMap<string, string>,
): Promise<Map<string, string>> {
  const problems = new Map<string, string>();
  for (const call of calls) {
    // The host's own tools (no `__`: the tool search, `skill`) answer bad input in their own words.
    if (skip.has(call.id) || call.rawInput !== undefined || !call.name.includes('__')) continue;
    const tool = tools.find((candidate) => candidate.name === call.name);
    if (tool === undefined) continue;
    const validate = await validatorOf(tool.inputSchema);
    if (validate === undefined || validate(call.input)) continue;
    problems.set(call.id, describe(call.name, validate.errors ?? []));
  }
  return problems;
}

function validatorOf(schema: JsonSchema): Promise<ValidateFunction | undefined> {
  let validator = compiled.get(schema);
  if (validator === undefined) {
    validator = validatorFor(schema).catch(() => undefined);
    compiled.set(schema, validator);
  }
  return validator;
}

function describe(name: string, errors: readonly ErrorObject[]): string {
  const lines = [
    ...new Set(
      errors.map((error) => {
        const where =
          error.instancePath === '' ? 'arguments' : `arguments${error.instancePath.replaceAll('/', '.')}`;
        return `${where} ${describeSchemaError(error)}`;
      }),
    ),
  ];
  const shown = lines.slice(0, MAX_PROBLEMS);
  if (lines.length > MAX_PROBLEMS) shown.push(`and ${lines.length - MAX_PROBLEMS} more problems`);
  return `The arguments for ${name} do not match its input schema, so the tool was not run: ${shown.join('; ')}. Call it again with corrected arguments.`;
}
