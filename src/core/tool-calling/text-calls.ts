/**
 * Tool calls a model wrote as text instead of through its vendor's tool-calling channel: Gemma 3
 * behind LM Studio or a llama.cpp server, Qwen and Hermes models without their tool parser, Mistral
 * models whose `[TOOL_CALLS]` token came out as text. An answer is taken as calls only when it is
 * nothing but calls, each of a tool that was offered, in one of these forms (docs/local-models.md):
 *
 * - a JSON object `{"name": …, "arguments": {…}}` (or `"parameters"`, Llama 3's word), or an array
 *   of them, alone or in one fenced code block (```` ```json ````);
 * - one or more `<tool_call>{…}</tool_call>` (Qwen 2.5/3, Hermes), separated by white space only;
 * - Mistral's `[TOOL_CALLS][{…}, …]` (v3 tokenizer) and `[TOOL_CALLS]name[ARGS]{…}` (v11 and later),
 *   the latter possibly repeated.
 *
 * Anything else stays text: prose around the JSON, an object with other keys, a name not offered.
 * Pure functions: the Runner decides when to apply them (never under `toolCalling: none`).
 */
import { hostToolCallId } from '../model-output.js';
import type { AssistantContent, FinishReason, ToolCallBlock } from '../types.js';

/** One call read from text, before it gets an id. */
export interface TextCall {
  readonly name: string;
  readonly input: Readonly<Record<string, unknown>>;
}

/** The calls `text` consists of, or undefined when it is anything else. */
export function parseTextCalls(text: string, offered: ReadonlySet<string>): readonly TextCall[] | undefined {
  const trimmed = text.trim();
  if (trimmed === '' || offered.size === 0) return undefined;
  const calls = readForm(trimmed);
  if (calls === undefined || calls.length === 0) return undefined;
  return calls.every((call) => offered.has(call.name)) ? calls : undefined;
}

function readForm(text: string): TextCall[] | undefined {
  if (text.startsWith('[TOOL_CALLS]')) return readMistral(text);
  if (text.startsWith('<tool_call>')) return readTagged(text);
  const fenced = /^```(?:json|tool_call|tool_code)?[ \t]*\n([\s\S]*?)\n?[ \t]*```$/.exec(text);
  if (fenced !== null) return readJsonCalls(fenced[1] ?? '');
  return readJsonCalls(text);
}

/** `<tool_call>{…}</tool_call>` one or more times, with nothing but white space around them. */
function readTagged(text: string): TextCall[] | undefined {
  const pattern = /\s*<tool_call>([\s\S]*?)<\/tool_call>\s*/gy;
  const calls: TextCall[] = [];
  let end = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    const call = readJsonCalls(match[1] ?? '');
    if (call === undefined || call.length !== 1) return undefined;
    calls.push(...call);
    end = pattern.lastIndex;
  }
  return end === text.length ? calls : undefined;
}

/** `[TOOL_CALLS][…]`, or `[TOOL_CALLS]name[ARGS]{…}` one or more times. */
function readMistral(text: string): TextCall[] | undefined {
  const body = text.slice('[TOOL_CALLS]'.length).trim();
  if (body.startsWith('[')) return readJsonCalls(body);
  const calls: TextCall[] = [];
  for (const part of text.split('[TOOL_CALLS]').slice(1)) {
    const at = part.indexOf('[ARGS]');
    if (at === -1) return undefined;
    const name = part.slice(0, at).trim();
    const input = parseJson(part.slice(at + '[ARGS]'.length).trim());
    if (!/^[A-Za-z_][A-Za-z0-9_-]*$/.test(name) || !isObject(input)) return undefined;
    calls.push({ name, input });
  }
  return calls;
}

/** A call object, or an array of call objects, as JSON and nothing else. */
function readJsonCalls(text: string): TextCall[] | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return undefined;
  const value = parseJson(trimmed);
  const items = Array.isArray(value) ? value : [value];
  const calls: TextCall[] = [];
  for (const item of items) {
    const call = asCall(item);
    if (call === undefined) return undefined;
    calls.push(call);
  }
  return calls;
}

/**
 * `{"name", "arguments"}` with no other keys: an object with more is some other JSON (a quoted
 * record, an answer) and stays text. Arguments may come as a JSON string (OpenAI's wire form).
 */
function asCall(value: unknown): TextCall | undefined {
  if (!isObject(value)) return undefined;
  const keys = Object.keys(value);
  const argumentsKey = keys.find((key) => key === 'arguments' || key === 'parameters');
  if (keys.length !== 2 || argumentsKey === undefined || typeof value.name !== 'string') return undefined;
  let input = value[argumentsKey];
  if (typeof input === 'string') input = parseJson(input);
  return isObject(input) ? { name: value.name, input } : undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A reply that is only text made of calls of offered tools, as those calls (ids made here); any
 * other reply unchanged. The text was streamed already; the history keeps the calls, which every
 * provider then sends back in its own form.
 */
export function withTextCalls<Reply extends TextCallReply>(
  reply: Reply,
  offered: ReadonlySet<string>,
): Reply {
  if (reply.toolCalls.length > 0) return reply;
  const text = reply.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
  const calls = parseTextCalls(text, offered);
  if (calls === undefined) return reply;
  const blocks: ToolCallBlock[] = calls.map((call) => ({
    type: 'tool-call',
    id: hostToolCallId(),
    name: call.name,
    input: call.input,
  }));
  return { ...reply, content: blocks, toolCalls: blocks, finishReason: 'tool-calls' };
}

/** What {@link withTextCalls} reads and rewrites of a model reply. */
export interface TextCallReply {
  readonly content: readonly AssistantContent[];
  readonly toolCalls: readonly ToolCallBlock[];
  readonly finishReason: FinishReason;
}
