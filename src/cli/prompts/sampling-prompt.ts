/**
 * The chat's review of a server's sampling request: before it is sent, the server, its system
 * prompt, messages and token limit; before the answer goes back, the answer. Either may be refused,
 * with a reason the server is told.
 */
import type { SamplingDecision, SamplingReview } from '../../core/questions.js';
import { stripControlCharacters } from '../../safety/output-limits.js';
import { askOnce, type PromptIO } from './ask-answer.js';

/** Characters of one message shown; the rest is summarised (the model gets all of it). */
const MAX_SHOWN_CHARACTERS = 2000;

/** What the user is shown before the question. */
export function describeSamplingReview(review: Omit<SamplingReview, 'signal'>): string {
  const server = stripControlCharacters(review.server);
  const request = review.request;
  const lines: string[] = [];
  if (review.stage === 'request') {
    lines.push(`Server "${server}" asks to use the model (sampling). Nothing of it enters the conversation.`);
    if (typeof request.systemPrompt === 'string') lines.push(`  system:     ${shown(request.systemPrompt)}`);
    if (Array.isArray(request.messages)) {
      for (const message of request.messages as ReadonlyArray<{ role?: unknown; text?: unknown }>) {
        lines.push(`  ${String(message.role).padEnd(10)}  ${shown(String(message.text))}`);
      }
    }
    lines.push(`  max tokens: ${String(request.maxTokens)}`);
  } else {
    const result = review.result ?? {};
    lines.push(
      `The model answered server "${server}"'s request (${stripControlCharacters(String(result.model))}):`,
    );
    lines.push(`  ${shown(typeof result.text === 'string' ? result.text : '')}`);
  }
  return `${lines.join('\n')}\n`;
}

function shown(text: string): string {
  const clean = stripControlCharacters(text).replace(/\n/g, '\n              ');
  return clean.length <= MAX_SHOWN_CHARACTERS
    ? clean
    : `${clean.slice(0, MAX_SHOWN_CHARACTERS)}… (${clean.length - MAX_SHOWN_CHARACTERS} more characters)`;
}

/** `UserQuestions.reviewSampling` for the chat. */
export function createSamplingReview(io: PromptIO): (review: SamplingReview) => Promise<SamplingDecision> {
  return async (review) => {
    io.write(describeSamplingReview(review));
    const question =
      review.stage === 'request'
        ? 'Send it to the model? [y] yes  [n] no (n REASON tells the server why): '
        : 'Return this answer to the server? [y] yes  [n] no: ';
    const typed = await askOnce(io, question, { signal: review.signal });
    if (typed === undefined) return { kind: 'deny', reason: 'no answer' };
    const match = /^\s*(y|yes|n|no)\b\s*:?\s*(.*)$/is.exec(typed);
    if (match !== null && /^y/i.test(match[1] ?? '')) return { kind: 'allow' };
    const reason = match?.[2]?.trim() ?? '';
    return reason === '' ? { kind: 'deny' } : { kind: 'deny', reason };
  };
}
