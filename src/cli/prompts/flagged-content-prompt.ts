/**
 * The chat's question under the `ask` injection policy: a tool result (or an attached resource, a
 * prompt) looks like a prompt injection, and the user decides what the model gets — the content,
 * the content with the flagged passages removed, or a note that it was withheld. Asked through the
 * same terminal as tool approvals (`PromptIO`), one question at a time (the core's QuestionQueue).
 */
import type { FlaggedContentDecision, FlaggedContentReview } from '../../core/questions.js';
import { stripControlCharacters } from '../../safety/output-limits.js';
import { revealHiddenCharacters } from '../../safety/injection.js';
import { askUntilUnderstood, type PromptIO } from './ask-answer.js';

/** Lines of the excerpt shown; the rest is summarised. */
const MAX_EXCERPT_LINES = 12;
/** `s`/`show`/`y`, `r`/`redact`, `w`/`withhold`/`n` (any case); undefined for anything else. */
export function parseFlaggedContentAnswer(text: string): FlaggedContentDecision | undefined {
  const word = text.trim().toLowerCase();
  if (['s', 'show', 'y', 'yes', 'p', 'pass'].includes(word)) return { kind: 'show' };
  if (['r', 'redact'].includes(word)) return { kind: 'redact' };
  if (['w', 'withhold', 'n', 'no'].includes(word)) return { kind: 'withhold' };
  return undefined;
}

/** What is shown before the question: where it came from, what was found, an excerpt. */
export function describeFlaggedContent(review: FlaggedContentReview): string {
  const clean = (text: string) => stripControlCharacters(revealHiddenCharacters(text));
  const excerptLines = clean(review.preview).split('\n');
  const shown = excerptLines.slice(0, MAX_EXCERPT_LINES);
  const more =
    excerptLines.length > MAX_EXCERPT_LINES
      ? [`… (${excerptLines.length - MAX_EXCERPT_LINES} more lines)`]
      : [];
  const lines = [
    'This content looks like a prompt injection; the model has not seen it yet.',
    `  from:      ${clean(review.source)}`,
    ...(review.server === undefined || review.server === '' ? [] : [`  server:    ${clean(review.server)}`]),
    ...review.findings.map(
      (finding, index) => `  ${index === 0 ? 'found:  ' : '        '}   ${clean(finding)}`,
    ),
    '  excerpt:',
    ...[...shown, ...more].map((line) => `  │ ${line}`),
  ];
  return `${lines.join('\n')}\n`;
}

export const FLAGGED_CONTENT_QUESTION =
  'Give it to the model? [s] show it  [r] redact the flagged parts  [w] withhold it: ';

/**
 * `UserQuestions.reviewFlaggedContent` on the chat's terminal. An answer not understood is asked
 * again (a few times, then withheld); ended input, or a run cancelled while asking, withholds.
 */
export function createFlaggedContentPrompt(
  io: PromptIO,
): (review: FlaggedContentReview) => Promise<FlaggedContentDecision> {
  return async (review) => {
    io.write(describeFlaggedContent(review));
    const asked = await askUntilUnderstood(io, {
      text: FLAGGED_CONTENT_QUESTION,
      signal: review.signal,
      parse: parseFlaggedContentAnswer,
      retry: 'Please answer s, r or w.\n',
    });
    if (asked.kind === 'understood') return asked.answer;
    if (asked.kind === 'gave-up') io.write('No usable answer: withheld.\n');
    return { kind: 'withhold' };
  };
}
