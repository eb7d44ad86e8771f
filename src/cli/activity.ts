/**
 * Tool activity as text: a call's arguments on one line, the first lines of a result. Shared by
 * `-p` mode (one line each on stderr) and the chat (which adds colors). Everything that came from
 * a model or a server is sanitized: no escape sequence from outside reaches the terminal.
 */
import type { ToolCallRecord } from '../core/events.js';
import type { ToolCallBlock, ToolResultBlock } from '../core/types.js';
import { oneLine, sanitizeText, shorten } from './chat/sanitize.js';
import { blocksAsText } from '../util/content-text.js';
import { problemWithArguments } from '../core/model-output.js';

/** Default cut for arguments shown on one line. */
export const MAX_ARGUMENTS_LENGTH = 160;
/** Result lines shown before "… (N more lines)". */
export const MAX_RESULT_LINES = 3;
/** Default cut for one result line. */
export const MAX_RESULT_LINE_LENGTH = 200;

/** The arguments as one line of JSON (or the raw text the model sent), cut to `limit`. */
export function argumentsText(call: ToolCallBlock, limit = MAX_ARGUMENTS_LENGTH): string {
  // Only the start is shown: cut before cleaning, so a megabyte of arguments costs no more than a line.
  const raw = call.rawInput ?? showableJson(call.input);
  return shorten(oneLine(raw.slice(0, limit * 4)), limit);
}

/**
 * The arguments as JSON, unless they are too deep or too big to serialise safely (the Runner refuses
 * such calls, but a loaded session or a library caller may still hold them).
 */
function showableJson(input: unknown): string {
  const problem = problemWithArguments(input);
  if (problem !== undefined && problem !== 'were not a JSON object') return `(arguments that ${problem})`;
  try {
    return JSON.stringify(input);
  } catch {
    return '(arguments that cannot be shown)';
  }
}

/** What a result shows: its first non-empty lines, cut, and how many more there were. */
export interface ResultPreview {
  readonly lines: readonly string[];
  readonly hiddenLines: number;
}

export function previewResult(
  result: ToolResultBlock,
  maxLines = MAX_RESULT_LINES,
  lineLength = MAX_RESULT_LINE_LENGTH,
): ResultPreview {
  const text = blocksAsText(result.content);
  const lines = sanitizeText(text)
    .split('\n')
    .map((line) => line.replace(/\s+$/, '').replace(/\t/g, '  '))
    .filter((line) => line.trim() !== '');
  return {
    lines: lines.slice(0, maxLines).map((line) => shorten(line, lineLength)),
    hiddenLines: Math.max(0, lines.length - maxLines),
  };
}

/** The server and the tool's own name behind an exposed `server__tool` name. */
export interface ToolOrigin {
  readonly server: string;
  readonly tool: string;
}

/**
 * ` (read_text_file on file_system)` when the exposed name is not simply `server__tool` (it was
 * shortened or disambiguated with a hash), so the user sees which tool really ran; else empty.
 */
export function originNote(exposedName: string, origin: ToolOrigin | undefined): string {
  if (origin === undefined || `${origin.server}__${origin.tool}` === exposedName) return '';
  return ` (${oneLine(origin.tool)} on ${oneLine(origin.server)})`;
}

/** `→ server__tool {"path":"/tmp"}` with long arguments cut, and the real name when it differs. */
export function describeToolCall(call: ToolCallBlock, origin?: ToolOrigin): string {
  return `→ ${oneLine(call.name)}${originNote(call.name, origin)} ${argumentsText(call)}`;
}

/** The first lines of a result, marked as an error when it failed. */
export function describeToolResult(record: ToolCallRecord): string {
  const preview = previewResult(record.result);
  const shown = [...preview.lines];
  if (preview.hiddenLines > 0) shown.push(`… (${preview.hiddenLines} more lines)`);
  const marker = record.result.isError ? '✗' : '←';
  const body = shown.length === 0 ? '(empty)' : shown.join('\n    ');
  return `  ${marker} ${oneLine(record.call.name)} (${formatSeconds(record.durationMs)}) ${body}`;
}

/** `0.4s`, `12s`, `2m05s`. */
export function formatSeconds(milliseconds: number): string {
  const seconds = milliseconds / 1000;
  if (seconds < 10) return `${seconds.toFixed(1)}s`;
  if (seconds < 60) return `${Math.floor(seconds)}s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes}m${String(Math.floor(seconds % 60)).padStart(2, '0')}s`;
}
