/**
 * Holds back the streamed text of a reply while it may still be a call written as text (it starts
 * like one: `{`, `[`, a code fence, `<tool_call>`, `[TOOL_CALLS]`), so neither the chat nor `-p`
 * shows a call as if it were the answer. Any other reply streams as it comes; a held reply that
 * turns out to be text is passed on whole when the model call ends.
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
    const start = this.#held.trimStart();
    const mayBeCall =
      start === '' || CALL_OPENINGS.some((opening) => start.startsWith(opening) || opening.startsWith(start));
    if (!mayBeCall) this.release();
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
