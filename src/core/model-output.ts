/**
 * Model output is untrusted too. Before any tool runs, each tool call the model sent is checked and,
 * where needed, repaired so that the history stays valid for every vendor:
 *
 * - an id that is missing, empty, malformed (Anthropic accepts only `^[a-zA-Z0-9_-]+$`) or already
 *   used in this conversation (Anthropic: "`tool_use` ids must be unique") is replaced by a host-made
 *   id. The call and its result both carry the new id, so the pair stays matched in every later
 *   request; no vendor needs its own id back once the answer has been received.
 * - a name that is empty, too long or has characters no vendor accepts (control characters, spaces…)
 *   is replaced in the history by {@link INVALID_TOOL_NAME}, and the call is answered with an error.
 * - arguments nested deeper than {@link MAX_ARGUMENT_DEPTH} or larger than {@link MAX_ARGUMENT_BYTES}
 *   are dropped (serialising them again would crash or flood every later request) and the call is
 *   answered with an error.
 *
 * A refused call never reaches a server: the Runner answers it with the error text given here.
 */
import type { AssistantContent, ToolCallBlock } from './types.js';
import { randomBytes } from 'node:crypto';

/** What every vendor accepts as a tool-call id (Anthropic's rule is the strictest; 64 for OpenAI). */
export const VALID_TOOL_CALL_ID = /^[a-zA-Z0-9_-]{1,64}$/;
/** What every vendor accepts as a function name in the history (Gemini's rule is the strictest). */
const VALID_HISTORY_NAME = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/;
/** The name a call with an unusable name gets in the history. */
export const INVALID_TOOL_NAME = 'invalid_tool_name';
/** Deeper arguments are refused (no tool schema needs this; JSON.stringify overflows at a few thousand). */
export const MAX_ARGUMENT_DEPTH = 64;
/** Larger arguments are refused (UTF-16 code units of their JSON, roughly bytes). */
export const MAX_ARGUMENT_BYTES = 1_000_000;

/** A host-made tool-call id: valid for every vendor, unique across saved and reloaded sessions. */
export function hostToolCallId(): string {
  return `mcphost_${randomBytes(12).toString('hex')}`;
}

/** The checked tool calls of one reply. */
export interface CheckedToolCalls {
  /** The reply's content with repaired calls in place of the originals. */
  readonly content: readonly AssistantContent[];
  readonly toolCalls: readonly ToolCallBlock[];
  /** Calls that must not run, by (new) id: the error text the model gets instead. */
  readonly refused: ReadonlyMap<string, string>;
  /** Calls whose id was replaced: new id → the id as the model sent it. */
  readonly replacedIds: ReadonlyMap<string, string>;
}

/**
 * Checks a reply's tool calls. `usedIds` holds the ids already in the conversation; the ids given
 * out here are added to it. `makeId` is injected by tests.
 */
export function checkToolCalls(
  content: readonly AssistantContent[],
  usedIds: Set<string>,
  makeId: () => string = hostToolCallId,
): CheckedToolCalls {
  const refused = new Map<string, string>();
  const replacedIds = new Map<string, string>();
  const checked = content.map((block): AssistantContent => {
    if (block.type !== 'tool-call') return block;
    let call: ToolCallBlock = block;
    const id: unknown = call.id;
    if (typeof id !== 'string' || !VALID_TOOL_CALL_ID.test(id) || usedIds.has(id)) {
      let fresh = makeId();
      while (usedIds.has(fresh)) fresh = makeId();
      replacedIds.set(fresh, typeof id === 'string' ? id : '');
      call = { ...call, id: fresh };
    }
    usedIds.add(call.id);
    const name: unknown = call.name;
    if (typeof name !== 'string' || !VALID_HISTORY_NAME.test(name)) {
      refused.set(
        call.id,
        `The tool name ${describeName(name)} is not a valid tool name, so nothing was run. Use one of the tools offered, by its exact name.`,
      );
      call = { ...call, name: INVALID_TOOL_NAME };
    }
    const argumentsProblem = problemWithArguments(call.input);
    if (argumentsProblem !== undefined) {
      if (!refused.has(call.id)) {
        refused.set(call.id, `The arguments for ${call.name} ${argumentsProblem}, so the tool was not run.`);
      }
      const { rawInput: _dropped, ...rest } = call;
      call = { ...rest, input: {} };
    }
    return call;
  });
  const toolCalls = checked.filter((block): block is ToolCallBlock => block.type === 'tool-call');
  return { content: checked, toolCalls, refused, replacedIds };
}

/** The ids of every tool call already in a conversation. */
export function toolCallIdsIn(
  messages: ReadonlyArray<{ readonly role: string; readonly content: readonly unknown[] }>,
): Set<string> {
  const ids = new Set<string>();
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const block of message.content) {
      if (isToolCall(block)) ids.add(block.id);
    }
  }
  return ids;
}

function isToolCall(block: unknown): block is ToolCallBlock {
  return typeof block === 'object' && block !== null && (block as { type?: unknown }).type === 'tool-call';
}

/** Why arguments are refused, or undefined. Walks iteratively: the input may be too deep to recurse. */
export function problemWithArguments(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return 'were not a JSON object';
  const stack: Array<{ value: unknown; depth: number }> = [{ value: input, depth: 1 }];
  let size = 0;
  while (stack.length > 0) {
    const { value, depth } = stack.pop() as { value: unknown; depth: number };
    if (typeof value === 'string') size += value.length + 2;
    else if (typeof value !== 'object' || value === null) size += 8;
    else {
      if (depth > MAX_ARGUMENT_DEPTH) return `were nested more than ${MAX_ARGUMENT_DEPTH} levels deep`;
      const entries = Array.isArray(value) ? value.map((item) => ['', item] as const) : Object.entries(value);
      for (const [key, item] of entries) {
        size += key.length + 4;
        stack.push({ value: item, depth: depth + 1 });
      }
    }
    if (size > MAX_ARGUMENT_BYTES) return `were larger than ${MAX_ARGUMENT_BYTES} bytes`;
  }
  return undefined;
}

/** A model's name for the model to read: quoted, control and invisible characters as escapes, cut. */
function describeName(name: unknown): string {
  if (typeof name !== 'string') return '(missing)';
  if (name === '') return '(empty)';
  const shown = name.length > 80 ? `${name.slice(0, 80)}…` : name;
  return JSON.stringify(shown).replace(
    /[\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
