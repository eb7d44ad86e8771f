/**
 * The ACP tool kind of a tool (how an editor shows it: an icon, a diff view, a terminal): from the
 * tool's own name first, its annotations second. Names are what servers agree on most
 * (`read_file`, `write_file`, `search_files`, `fetch`, `bash`); annotations say little more than
 * read-only or not.
 */
import type { ToolKind } from '@agentclientprotocol/sdk';
import type { ToolHints } from '../safety/tool-hints.js';

/** Words of a tool name, in order of precedence: the first group with a match decides. */
const NAME_KINDS: ReadonlyArray<readonly [ToolKind, RegExp]> = [
  ['delete', /(^|_|-)(delete|remove|rm|unlink|rmdir)(_|-|$)/],
  ['move', /(^|_|-)(move|rename|mv)(_|-|$)/],
  ['edit', /(^|_|-)(write|edit|create|update|replace|patch|append|insert|mkdir|save)(_|-|$)/],
  ['execute', /(^|_|-)(bash|shell|exec|execute|run|command|terminal|eval)(_|-|$)/],
  ['fetch', /(^|_|-)(fetch|http|url|download|browse|web)(_|-|$)/],
  ['search', /(^|_|-)(search|find|grep|glob|query|lookup)(_|-|$)/],
  ['read', /(^|_|-)(read|get|list|show|cat|view|open|stat|info|tree)(_|-|$)/],
  ['think', /(^|_|-)(think|thinking|reason|plan)(_|-|$)/],
];

/** The kind of a tool, by its own name on its server (the exposed name when unknown). */
export function toolKindOf(tool: string, hints: ToolHints | undefined): ToolKind {
  const name = tool.toLowerCase();
  for (const [kind, pattern] of NAME_KINDS) {
    // A read-only tool never shows as a change, whatever its name says.
    if (hints?.readOnly === true && (kind === 'delete' || kind === 'move' || kind === 'edit')) continue;
    if (pattern.test(name)) return kind;
  }
  if (hints?.readOnly === true) return 'read';
  return 'other';
}

/** Whether a kind changes files (what the accept-edits mode lets through without asking). */
export function isEditKind(kind: ToolKind): boolean {
  return kind === 'edit' || kind === 'move';
}
