/**
 * Holds back the streamed text of a reply while it may still be a call written as text (it starts
 * like one: `{`, `[`, a code fence, `<tool_call>`, `[TOOL_CALLS]`), so neither the chat nor `-p`
 * shows a call as if it were the answer. Any other reply streams as it comes; a held reply is let go
 * as soon as it can no longer be nothing but a call (a JSON value or a fenced block with more text
 * after it, a fence of another language), else passed on whole when the model call ends.
 */
import type { RunnerEvent } from '../events.js';
import type { ToolSpec } from '../types.js';
import { withTextCalls, type TextCallReply } from './text-calls.js';

const CALL_OPENINGS = ['{', '[', '```', '<tool_call>', '[TOOL_CALLS]'];

export class TextCallHold {
  readonly #emit: (event: RunnerEvent) => void;
  #held = '';
  #holding: boolean;

  /** `holding` false (a step without tools): everything passes straight to `emit`. */
  constructor(emit: (event: RunnerEvent) => void, holding = true) {
    this.#emit = emit;
    this.#holding = holding;
  }

  /** The listener to stream the model call to. */
  readonly emit = (event: RunnerEvent): void => {
    if (event.type !== 'text-delta' || !this.#holding) {
      this.#emit(event);
      return;
    }
    this.#held += event.text;
    if (!mayStillBeCall(this.#held.trimStart())) this.release();
  };

  /** The reply with calls written as text read out of it; the held text dropped if so, else passed on. */
  settle<Reply extends TextCallReply>(replied: Reply, offered: readonly ToolSpec[]): Reply {
    const reply = withTextCalls(replied, new Set(offered.map((tool) => tool.name)));
    if (reply === replied) this.release();
    else this.drop();
    return reply;
  }

  /** The reply is text: what was held goes on, and the rest streams. */
  release(): void {
    this.#holding = false;
    if (this.#held !== '') this.#emit({ type: 'text-delta', text: this.#held });
    this.#held = '';
  }

  /** The reply was calls: what was held is not shown. */
  drop(): void {
    this.#holding = false;
    this.#held = '';
  }
}

/** The info strings of a fence text-calls.ts reads calls from. */
const CALL_FENCES = new Set(['', 'json', 'tool_call', 'tool_code']);

/**
 * False once `start` (the held text, leading white space removed) cannot be a reply that is only
 * calls in a form text-calls.ts reads. The tagged and Mistral forms are held to the end: they may
 * repeat, and prose rarely starts with them.
 */
function mayStillBeCall(start: string): boolean {
  if (start === '') return true;
  if (!CALL_OPENINGS.some((opening) => start.startsWith(opening) || opening.startsWith(start))) return false;
  if (start.startsWith('<') || start.startsWith('[TOOL_CALLS]') || '[TOOL_CALLS]'.startsWith(start))
    return true;
  if (start.startsWith('```')) {
    const infoEnd = start.indexOf('\n');
    if (infoEnd === -1) return true;
    if (!CALL_FENCES.has(start.slice(3, infoEnd).trim().toLowerCase())) return false;
    const close = start.indexOf('```', infoEnd);
    return close === -1 || start.slice(close + 3).trim() === '';
  }
  const end = jsonValueEnd(start);
  return end === undefined || start.slice(end).trim() === '';
}

/** Where the JSON object or array at the start of `text` ends, or undefined while it is open. */
function jsonValueEnd(text: string): number | undefined {
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (inString) {
      if (escaped) escaped = false;
      else if (char === '\\') escaped = true;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{' || char === '[') depth++;
    else if (char === '}' || char === ']') {
      depth--;
      if (depth === 0) return index + 1;
    }
  }
  return undefined;
}
