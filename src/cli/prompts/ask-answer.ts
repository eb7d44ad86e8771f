/**
 * Asking one question on the chat's terminal, as every prompt here does: an ended input, a failed
 * question or a cancelled run all mean "no answer", which each prompt turns into its safe answer.
 */
import { CANCELLED, untilAborted } from '../../util/abort.js';
import { definedProperties } from '../../util/defined-properties.js';

/** A way to talk to the user. */
export interface PromptIO {
  /**
   * Shows `question` and resolves with the line the user typed. Rejects when input has ended, or
   * when `options.signal` aborts (an implementation may ignore the signal: the answer is then
   * no longer waited for, but the question stays on screen).
   */
  readonly ask: (
    question: string,
    options?: { readonly signal?: AbortSignal; readonly toolCallId?: string },
  ) => Promise<string>;
  /** Shows text (the caller's terminal). */
  readonly write: (text: string) => void;
}

/** Answers not understood before a prompt gives up and takes its safe answer. */
export const MAX_ATTEMPTS = 3;

/** The line typed, or `undefined` when input ended, the question failed, or `signal` aborted first. */
export async function askOnce(
  io: PromptIO,
  question: string,
  options: { readonly signal?: AbortSignal; readonly toolCallId?: string } = {},
): Promise<string | undefined> {
  if (options.signal?.aborted === true) return undefined;
  const answered = io.ask(question, options).then(
    (text) => text,
    () => undefined,
  );
  // Also raced here, for a terminal that ignores the signal.
  const answer = await untilAborted(answered, options.signal);
  return answer === CANCELLED ? undefined : answer;
}

/** What became of a question asked until its answer is understood. */
export type UnderstoodAnswer<T> =
  | { readonly kind: 'understood'; readonly answer: T }
  /** Input ended or the run was cancelled. */
  | { readonly kind: 'no-answer' }
  /** {@link MAX_ATTEMPTS} answers, none understood. */
  | { readonly kind: 'gave-up' };

/** Asks until `parse` understands the line typed, saying `retry` after each one it does not. */
export async function askUntilUnderstood<T>(
  io: PromptIO,
  question: {
    readonly text: string;
    readonly signal?: AbortSignal;
    /** The tool call the question is about (the chat shows it beside the question). */
    readonly toolCallId?: string;
    readonly parse: (typed: string) => T | undefined;
    readonly retry: string;
  },
): Promise<UnderstoodAnswer<T>> {
  const options = definedProperties({ signal: question.signal, toolCallId: question.toolCallId });
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const typed = await askOnce(io, question.text, options);
    if (typed === undefined) return { kind: 'no-answer' };
    const answer = question.parse(typed);
    if (answer !== undefined) return { kind: 'understood', answer };
    io.write(question.retry);
  }
  return { kind: 'gave-up' };
}
