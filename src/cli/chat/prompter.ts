/**
 * Asking the user something in the middle of a turn (a tool call to approve, say). The chat
 * implements {@link Prompter} on its own readline: the spinner pauses, the question is shown as a
 * prompt, the answer is the next line typed, and the turn resumes.
 */
import type { Completion } from './completion-candidates.js';

export interface AskOptions {
  /** Cancels the question (the answer promise rejects with an AbortedError). */
  readonly signal?: AbortSignal;
  /**
   * The tool call the question is about (its approval): the chat leaves the time the user takes
   * to answer out of that call's duration.
   */
  readonly toolCallId?: string;
  /** Tab completion of the answer (readline's `[candidates, the part they complete]`). */
  readonly complete?: (partial: string) => Promise<Completion>;
}

/**
 * Structurally a `PromptIO` of src/cli/prompts/approval-prompt.ts, so the tool approval prompt can use the
 * chat's terminal as it is.
 */
export interface Prompter {
  /**
   * Shows `question` and resolves with the line the user types (without its newline). Rejects with
   * an AbortedError when the user presses Ctrl-C (which also stops the turn), `signal` aborts, or
   * the input has ended.
   */
  ask(question: string, options?: AskOptions): Promise<string>;
  /** Shows text (what the question is about) with the spinner out of the way. */
  write(text: string): void;
}

/**
 * A {@link Prompter} that exists before the chat does, so code set up before it (a tool approval
 * policy) can hold it; the chat binds itself to it while it runs. Asking while nothing is bound
 * rejects: there is no terminal to ask on (`-p` mode), so the caller must decide without asking.
 */
export class PrompterSlot implements Prompter {
  #target: Prompter | undefined;

  /** Makes `target` answer questions; returns the function that unbinds it. */
  bind(target: Prompter): () => void {
    this.#target = target;
    return () => {
      if (this.#target === target) this.#target = undefined;
    };
  }

  /** True while a chat can answer. */
  get bound(): boolean {
    return this.#target !== undefined;
  }

  ask(question: string, options?: AskOptions): Promise<string> {
    if (this.#target === undefined) {
      return Promise.reject(new Error('cannot ask: no interactive chat is running'));
    }
    return this.#target.ask(question, options);
  }

  /** Writes through the chat; without one, the text is dropped (the question that follows fails). */
  write(text: string): void {
    this.#target?.write(text);
  }
}
