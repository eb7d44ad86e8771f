/**
 * The chat's question under the `toolChanges: ask` policy: a server changed a tool's definition
 * since it was pinned, and the user decides whether the model gets the new one (and it is pinned)
 * or the tool is withheld for the session. Asked through the same terminal as tool approvals
 * (`PromptIO`), one question at a time (the core's QuestionQueue).
 */
import type { ToolChangeDecision, ToolChangeReview } from '../../core/questions.js';
import { stripControlCharacters } from '../../safety/output-limits.js';
import { revealHiddenCharacters } from '../../safety/injection.js';
import { CANCELLED, untilAborted } from '../../util/abort.js';
import type { PromptIO } from './approval-prompt.js';

/** Answers not understood before we give up and withhold the tool. */
const MAX_ATTEMPTS = 3;

/** `y`/`yes`/`a`/`accept`, `n`/`no`/`b`/`block` (any case); undefined for anything else. */
export function parseToolChangeAnswer(text: string): ToolChangeDecision | undefined {
  const word = text.trim().toLowerCase();
  if (['y', 'yes', 'a', 'accept'].includes(word)) return { kind: 'accept' };
  if (['n', 'no', 'b', 'block'].includes(word)) return { kind: 'block' };
  return undefined;
}

/** What is shown before the question: which tool, and what changed (the server's words made safe). */
export function describeToolChange(review: ToolChangeReview): string {
  const clean = (text: string) => stripControlCharacters(revealHiddenCharacters(text));
  return [
    `Server "${clean(review.server)}" changed its tool "${clean(review.tool)}" since it was pinned; the model has not seen the new definition:`,
    ...review.changes.map((line) => `  │ ${clean(line)}`),
    '',
  ].join('\n');
}

export const TOOL_CHANGE_QUESTION =
  'Use the new definition? [y] yes, and pin it  [n] no, withhold the tool: ';

/**
 * `UserQuestions.reviewToolChange` on the chat's terminal. An answer not understood is asked again
 * (a few times, then withheld); ended input, or a run cancelled while asking, withholds.
 */
export function createToolChangePrompt(
  io: PromptIO,
): (review: ToolChangeReview) => Promise<ToolChangeDecision> {
  return async (review) => {
    io.write(describeToolChange(review));
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      if (review.signal.aborted) return { kind: 'block' };
      const typed = await untilAborted(
        io.ask(TOOL_CHANGE_QUESTION, { signal: review.signal }).then(
          (text) => text,
          () => undefined,
        ),
        review.signal,
      );
      if (typed === undefined || typed === CANCELLED) return { kind: 'block' };
      const answer = parseToolChangeAnswer(typed);
      if (answer !== undefined) return answer;
      io.write('Please answer y or n.\n');
    }
    io.write('No usable answer: the tool is withheld.\n');
    return { kind: 'block' };
  };
}
