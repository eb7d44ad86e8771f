/**
 * A tool call as the editor sees it: `tool_call` when the model asks for it, `tool_call_update`
 * with its result. Shared by a running turn and a replayed conversation (`session/load`).
 */
import type { ToolCall, ToolCallContent, ToolCallLocation, ToolCallUpdate } from '@agentclientprotocol/sdk';
import type { ToolCallBlock, ToolResultBlock } from '../core/types.js';
import type { ToolHints } from '../safety/tool-hints.js';
import { toolKindOf } from './tool-kind.js';

/** Where an exposed tool name leads (the pool's `locate`), when known. */
export type LocateTool = (
  exposedName: string,
) => { readonly server: string; readonly tool: string; readonly hints?: ToolHints } | undefined;

/** Arguments that name what a call works on, shown in its title. */
const SUBJECT_KEYS = ['path', 'file', 'filePath', 'command', 'url', 'query', 'pattern', 'name'] as const;
const TITLE_SUBJECT_LIMIT = 80;

/** The `tool_call` of a call the model made (`pending`: it may still ask for permission). */
export function toolCallOf(call: ToolCallBlock, locate: LocateTool): ToolCall {
  const location = locate(call.name);
  const tool = location?.tool ?? call.name;
  const subject = subjectOf(call.input);
  const locations = locationsOf(call.input);
  return {
    toolCallId: call.id,
    title: `${location === undefined ? '' : `${location.server}: `}${tool}${subject === undefined ? '' : ` ${subject}`}`,
    kind: toolKindOf(tool, location?.hints),
    status: 'pending',
    rawInput: call.input,
    ...(locations.length === 0 ? {} : { locations }),
  };
}

/** The `tool_call_update` that ends a call: its status and what it returned. */
export function toolResultUpdateOf(result: ToolResultBlock): ToolCallUpdate {
  const content = result.content.map((block): ToolCallContent =>
    block.type === 'text'
      ? { type: 'content', content: { type: 'text', text: block.text } }
      : { type: 'content', content: { type: 'image', mimeType: block.mimeType, data: block.data } },
  );
  return {
    toolCallId: result.toolCallId,
    status: result.isError ? 'failed' : 'completed',
    content,
  };
}

function subjectOf(input: Readonly<Record<string, unknown>>): string | undefined {
  for (const key of SUBJECT_KEYS) {
    const value = input[key];
    if (typeof value !== 'string' || value === '') continue;
    const line = value.replace(/\s+/g, ' ').trim();
    return line.length > TITLE_SUBJECT_LIMIT ? `${line.slice(0, TITLE_SUBJECT_LIMIT - 1)}…` : line;
  }
  return undefined;
}

/** Absolute paths among the arguments, for the editor to follow (ACP paths are absolute). */
function locationsOf(input: Readonly<Record<string, unknown>>): ToolCallLocation[] {
  const paths = ['path', 'file', 'filePath', 'source', 'destination']
    .map((key) => input[key])
    .filter((value): value is string => typeof value === 'string' && value.startsWith('/'));
  return paths.map((path) => ({ path }));
}
