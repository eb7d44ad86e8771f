/**
 * The chat's question under the `toolChanges: ask` policy: a server changed a tool's definition
 * since it was pinned, and the user decides whether the model gets the new one (and it is pinned)
 * or the tool is withheld for the session. Asked through the same terminal as tool approvals
 * (`PromptIO`), one question at a time (the core's QuestionQueue).
 */
import type { ToolChangeDecision, ToolChangeReview } from '../../core/questions.js';
import { stripControlCharacters } from '../../safety/output-limits.js';
import { revealHiddenCharacters } from '../../safety/injection.js';
import { askUntilUnderstood, type PromptIO } from './ask-answer.js';

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
    const asked = await askUntilUnderstood(io, {
      text: TOOL_CHANGE_QUESTION,
      signal: review.signal,
      parse: parseToolChangeAnswer,
      retry: 'Please answer y or n.\n',
    });
    if (asked.kind === 'understood') return asked.answer;
    if (asked.kind === 'gave-up') io.write('No usable answer: the tool is withheld.\n');
    return { kind: 'block' };
  };
}
