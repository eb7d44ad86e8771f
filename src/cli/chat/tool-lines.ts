/** How the chat shows a tool call and its result (colors on a rich display, plain text otherwise). */
import type { ToolCallRecord } from '../../core/events.js';
import type { ToolCallBlock } from '../../core/types.js';
import { argumentsText, formatSeconds, originNote, previewResult, type ToolOrigin } from '../activity.js';
import { oneLine, shorten } from './sanitize.js';
import type { Style } from './style.js';

export type { ToolOrigin } from '../activity.js';

/**
 * `→ server__tool {"arg":1}`; when the exposed name was shortened or disambiguated, the real tool
 * and server follow it: `→ srv__long_nam_1a2b (long name on my server) {…}`.
 */
export function toolCallLine(
  call: ToolCallBlock,
  origin: ToolOrigin | undefined,
  style: Style,
  columns: number,
): string {
  const name = oneLine(call.name);
  const note = originNote(name, origin);
  const room = Math.max(20, columns - 3 - name.length - note.length);
  return `${style.cyan('→')} ${style.bold(name)}${style.dim(note)} ${style.dim(argumentsText(call, room))}`;
}

/**
 * `  ← server__tool (0.1s) first line` (or `✗` for an error) and the next lines: the same shape as
 * `-p` prints, with the tool named, since the results of parallel calls arrive in any order.
 */
export function toolResultLines(record: ToolCallRecord, style: Style, columns: number): string {
  const failed = record.result.isError;
  const name = oneLine(record.call.name);
  const time = `(${formatSeconds(record.durationMs)})`;
  const preview = previewResult(
    record.result,
    undefined,
    Math.max(20, columns - 8 - name.length - time.length),
  );
  const [first = '(empty)', ...more] = preview.lines;
  const marker = failed ? style.red('✗') : style.green('←');
  const body = failed ? style.red(first) : first;
  const lines = [
    `  ${marker} ${style.dim(`${name} ${time}`)} ${body}`,
    ...more.map((line) => `    ${failed ? style.red(line) : line}`),
  ];
  if (preview.hiddenLines > 0) lines.push(`    ${style.dim(`… (${preview.hiddenLines} more lines)`)}`);
  return lines.join('\n');
}

/** What a running call last said of its progress (`notifications/progress`). */
export interface CallProgress {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/**
 * The spinner's words for the calls still running, with each one's progress when it sent some:
 * `running copy on files — 40% (4/10) copying…`.
 */
export function runningLabel(
  calls: readonly ToolCallBlock[],
  origins: ReadonlyMap<string, ToolOrigin>,
  progress: ReadonlyMap<string, CallProgress> = new Map(),
): string {
  const describe = (call: ToolCallBlock): string => {
    const origin = origins.get(call.name);
    const name =
      origin === undefined ? oneLine(call.name) : `${oneLine(origin.tool)} on ${oneLine(origin.server)}`;
    const reported = progress.get(call.id);
    return reported === undefined ? name : `${name} — ${progressText(reported)}`;
  };
  if (calls.length === 1 && calls[0] !== undefined) return `running ${describe(calls[0])}`;
  return shorten(`running ${calls.length} tools: ${calls.map(describe).join(', ')}`, 200);
}

/** `40% (4/10) copying…`, or `4 copying…` without a total. */
export function progressText(reported: CallProgress): string {
  const { progress, total } = reported;
  const amount =
    total !== undefined && total > 0
      ? `${Math.min(100, Math.max(0, Math.round((progress / total) * 100)))}% (${formatNumber(progress)}/${formatNumber(total)})`
      : formatNumber(progress);
  const message = reported.message === undefined ? '' : oneLine(reported.message).trim();
  return message === '' ? amount : `${amount} ${message}`;
}

function formatNumber(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}
