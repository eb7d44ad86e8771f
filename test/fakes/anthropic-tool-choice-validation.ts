/**
 * `tool_choice` as the real Messages API checks it: one of `auto`, `any`, `tool` (with the `name`
 * of a tool in the request) and `none`; a choice that forces a tool needs tools, and is refused
 * beside extended thinking.
 */
import type { FakeApiError } from './anthropic-validation.js';

const invalid = (message: string): FakeApiError => ({ status: 400, type: 'invalid_request_error', message });

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function validateToolChoice(body: Record<string, unknown>): FakeApiError | undefined {
  const choice = body.tool_choice;
  if (choice === undefined) return undefined;
  if (!isObject(choice)) return invalid('tool_choice: Input should be a valid dictionary or object');
  const type = choice.type;
  if (type !== 'auto' && type !== 'any' && type !== 'tool' && type !== 'none') {
    return invalid(
      "tool_choice: Input tag '" +
        String(type) +
        "' found using 'type' does not match any of the expected tags: 'auto', 'any', 'tool', 'none'",
    );
  }
  const tools = Array.isArray(body.tools) ? body.tools : [];
  if (type === 'tool' && typeof choice.name !== 'string')
    return invalid('tool_choice.tool.name: Field required');
  if ((type === 'any' || type === 'tool') && tools.length === 0) {
    return invalid('tool_choice may only be specified while providing tools.');
  }
  if (type === 'tool' && !tools.some((tool) => isObject(tool) && tool.name === choice.name)) {
    return invalid(`Tool '${String(choice.name)}' not found in provided tools`);
  }
  const thinking = body.thinking;
  if ((type === 'any' || type === 'tool') && isObject(thinking) && thinking.type === 'enabled') {
    return invalid('Thinking may not be enabled when tool_choice forces tool use.');
  }
  return undefined;
}
