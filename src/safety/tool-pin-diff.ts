/**
 * What changed between a pinned tool definition and the one a server offers now, as short lines a
 * person can read: the description's text (old and new), the schema's properties (added, removed,
 * changed), `required`, other schema keywords, and each annotation. Values are JSON, cut to a
 * length a terminal line can carry; the caller strips control characters before printing.
 */
import { canonicalJson } from '../util/canonical-json.js';
import type { PinnedDefinition } from './tool-pins.js';

/** A description longer than this is cut in the diff (the whole text is in the pin file). */
const MAX_TEXT_LENGTH = 400;
/** A JSON value longer than this is cut. */
const MAX_VALUE_LENGTH = 160;

/** The changes from `before` to `after`, one line each; empty when they are the same definition. */
export function describeDefinitionChange(before: PinnedDefinition, after: PinnedDefinition): string[] {
  const lines: string[] = [];
  if (before.title !== after.title) {
    lines.push(`title: ${quoted(before.title)} → ${quoted(after.title)}`);
  }
  if (before.description !== after.description) {
    // Two whole lines (not indented under a heading: a notice on stderr shows each line flush).
    lines.push(
      `description was: ${cut(before.description ?? '(none)', MAX_TEXT_LENGTH)}`,
      `description now: ${cut(after.description ?? '(none)', MAX_TEXT_LENGTH)}`,
    );
  }
  lines.push(...schemaChanges('input', before.inputSchema, after.inputSchema));
  lines.push(...schemaChanges('output', before.outputSchema, after.outputSchema));
  lines.push(...recordChanges('annotation', before.annotations ?? {}, after.annotations ?? {}));
  return lines;
}

type JsonRecord = Readonly<Record<string, unknown>>;

function schemaChanges(
  which: string,
  before: JsonRecord | undefined,
  after: JsonRecord | undefined,
): string[] {
  if (before === undefined && after === undefined) return [];
  if (before === undefined) return [`${which} schema added: ${value(after)}`];
  if (after === undefined) return [`${which} schema removed (was ${value(before)})`];
  const lines = recordChanges(`${which} property`, recordOf(before.properties), recordOf(after.properties));
  const required = (schema: JsonRecord) =>
    Array.isArray(schema.required) ? schema.required.map(String).sort() : [];
  const wasRequired = required(before);
  const nowRequired = required(after);
  if (canonicalJson(wasRequired) !== canonicalJson(nowRequired)) {
    lines.push(`${which} required: ${list(wasRequired)} → ${list(nowRequired)}`);
  }
  const rest = (schema: JsonRecord) =>
    Object.fromEntries(Object.entries(schema).filter(([key]) => key !== 'properties' && key !== 'required'));
  lines.push(...recordChanges(`${which} schema "`, rest(before), rest(after)).map(closeQuote));
  return lines;
}

/** One line per key added, removed or changed between two objects, in key order. */
function recordChanges(label: string, before: JsonRecord, after: JsonRecord): string[] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  const lines: string[] = [];
  for (const key of keys) {
    const had = Object.hasOwn(before, key);
    const has = Object.hasOwn(after, key);
    if (had && !has) lines.push(`${label} ${key} removed (was ${value(before[key])})`);
    else if (!had && has) lines.push(`${label} ${key} added: ${value(after[key])}`);
    else if (canonicalJson(before[key]) !== canonicalJson(after[key])) {
      lines.push(`${label} ${key}: ${value(before[key])} → ${value(after[key])}`);
    }
  }
  return lines;
}

/** `input schema " additionalProperties: …` → `input schema "additionalProperties": …`. */
function closeQuote(line: string): string {
  return line.replace(/" (\S+)(:| added| removed)/, '"$1"$2');
}

function recordOf(value: unknown): JsonRecord {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as JsonRecord) : {};
}

function value(json: unknown): string {
  return cut(canonicalJson(json), MAX_VALUE_LENGTH);
}

function quoted(text: string | undefined): string {
  return text === undefined ? '(none)' : JSON.stringify(cut(text, MAX_VALUE_LENGTH));
}

function list(items: readonly string[]): string {
  return items.length === 0 ? '(none)' : items.join(', ');
}

function cut(text: string, length: number): string {
  const oneLine = text.replace(/\s*\n\s*/g, ' ⏎ ');
  return oneLine.length <= length ? oneLine : `${oneLine.slice(0, length - 1)}…`;
}
