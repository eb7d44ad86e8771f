/** The two shapes of a built-in tool's answer: text, or an error the model reads. */
import type { CallToolResult } from '@modelcontextprotocol/server';

/** A successful answer of one text block. */
export function textResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}

/** A failed call: the model reads `message` (tool failures are data, not exceptions). */
export function errorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** The message of anything thrown, for an error result. */
export function describeThrown(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
