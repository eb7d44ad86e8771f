/** One-line descriptions of tool activity, for stderr in `-p` mode and for the chat. */
import type { ToolCallRecord } from '../events.js';
import type { ToolCallBlock } from '../types.js';

const MAX_ARGUMENTS_LENGTH = 160;
const MAX_RESULT_LINES = 3;
const MAX_RESULT_LINE_LENGTH = 200;

/** `→ server__tool {"path":"/tmp"}` with long arguments cut. */
export function describeToolCall(call: ToolCallBlock): string {
  const argumentsText = call.rawInput ?? JSON.stringify(call.input);
  return `→ ${call.name} ${shorten(argumentsText, MAX_ARGUMENTS_LENGTH)}`;
}

/** The first lines of a result, marked as an error when it failed. */
export function describeToolResult(record: ToolCallRecord): string {
  const text = record.result.content
    .map((block) => (block.type === 'text' ? block.text : `[image ${block.mimeType}]`))
    .join('\n');
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const shown = lines.slice(0, MAX_RESULT_LINES).map((line) => shorten(line, MAX_RESULT_LINE_LENGTH));
  if (lines.length > MAX_RESULT_LINES) shown.push(`… (${lines.length - MAX_RESULT_LINES} more lines)`);
  const marker = record.result.isError ? '✗' : '←';
  const seconds = (record.durationMs / 1000).toFixed(1);
  const body = shown.length === 0 ? '(empty)' : shown.join('\n    ');
  return `  ${marker} ${record.call.name} (${seconds}s) ${body}`;
}

function shorten(text: string, limit: number): string {
  const oneLine = text.replace(/\s+/g, ' ');
  return oneLine.length <= limit ? oneLine : `${oneLine.slice(0, limit - 1)}…`;
}
