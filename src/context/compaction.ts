/**
 * Compaction: the older part of a conversation is replaced by a summary the model writes from a
 * fixed template, and the recent turns stay as they were. A later compaction updates the earlier
 * summary (it is the first message of what gets summarized). The split never separates a tool call
 * from its result: it falls before a user message, or before a model message that follows results.
 */
import type { AssistantMessage, Message, UserMessage } from '../core/types.js';
import { estimateMessageTokens, estimateTextTokens } from './tokens.js';

/** The first line of the message that holds a summary: how a later compaction recognises it. */
export const SUMMARY_HEADING = '[mcphost: summary of the earlier part of this conversation]';

/** The model's answer to the summary, so that the turns kept verbatim may begin with a user message. */
export const SUMMARY_ACKNOWLEDGEMENT = 'Understood. I will continue from this summary.';

/**
 * The instructions given to the model to write (or update) the summary. Documented in
 * docs/long-conversations.md; changing them changes what survives a compaction.
 */
export const SUMMARY_TEMPLATE = `Write a summary of the conversation above, to replace it. The conversation will go on from your summary and the most recent turns, which are kept as they are, so keep everything needed to carry on and nothing else.

If the conversation begins with an earlier summary, update it: keep what still holds, change what changed, and add what happened since. Do not summarize the summary.

Use exactly these sections, in this order (write "none" under a section with nothing in it):

## Goal
What the user wants overall, in their own terms, with any constraints they set.

## Decisions
What was decided or agreed, and why, including approaches that were tried and rejected.

## Files and resources
Every file, path, URL, identifier or resource that was read, created or changed, with what matters about each.

## Facts learned
Results of tool calls and other findings that later work depends on (exact values, names, errors).

## Open tasks
What is left to do, in order, and what was being done when this summary was written.

Answer with the summary only.`;

/** A message that holds a summary written by an earlier compaction. */
export function isSummaryMessage(message: Message | undefined): boolean {
  const first = message?.role === 'user' ? message.content[0] : undefined;
  return first?.type === 'text' && first.text.startsWith(SUMMARY_HEADING);
}

/** Where a compaction would cut, and what it would replace. */
export interface CompactionPlan {
  /** Index of the first message kept verbatim. */
  readonly split: number;
  /** Messages the summary replaces (the earlier summary and its acknowledgement included). */
  readonly older: readonly Message[];
  /** Messages kept verbatim (never empty: the request still ends with the last one). */
  readonly recent: readonly Message[];
}

/** True when the history may be cut before `index` without separating a call from its result. */
function canSplitAt(messages: readonly Message[], index: number): boolean {
  const message = messages[index];
  if (message === undefined || index === 0) return false;
  if (message.role === 'user') return !isSummaryMessage(message);
  return message.role === 'assistant' && messages[index - 1]?.role === 'tool';
}

/** How many leading messages are an earlier summary and its acknowledgement. */
function summaryPrefixLength(messages: readonly Message[]): number {
  if (!isSummaryMessage(messages[0])) return 0;
  return messages[1]?.role === 'assistant' && isAcknowledgement(messages[1]) ? 2 : 1;
}

function isAcknowledgement(message: AssistantMessage): boolean {
  const first = message.content[0];
  return message.content.length === 1 && first?.type === 'text' && first.text === SUMMARY_ACKNOWLEDGEMENT;
}

/**
 * Plans a compaction that keeps about `keepRecentTokens` of recent turns verbatim: the earliest
 * clean cut whose recent part fits, else the latest clean cut. `undefined` when there is nothing
 * new to summarize (no clean cut after an earlier summary).
 */
export function planCompaction(
  messages: readonly Message[],
  keepRecentTokens: number,
): CompactionPlan | undefined {
  const prefix = summaryPrefixLength(messages);
  let recentTokens = 0;
  let fitting: number | undefined;
  let latest: number | undefined;
  for (let index = messages.length - 1; index > prefix; index--) {
    const message = messages[index];
    if (message === undefined) continue;
    recentTokens += estimateMessageTokens(message);
    if (!canSplitAt(messages, index)) continue;
    latest ??= index;
    if (recentTokens <= keepRecentTokens) fitting = index;
  }
  const split = fitting ?? latest;
  if (split === undefined) return undefined;
  return { split, older: messages.slice(0, split), recent: messages.slice(split) };
}

/** The history after a compaction: the summary (with its acknowledgement when needed), then `recent`. */
export function compactedHistory(summary: string, recent: readonly Message[]): Message[] {
  const summaryMessage: UserMessage = {
    role: 'user',
    content: [{ type: 'text', text: `${SUMMARY_HEADING}\n\n${summary.trim()}` }],
  };
  const acknowledgement: AssistantMessage = {
    role: 'assistant',
    content: [{ type: 'text', text: SUMMARY_ACKNOWLEDGEMENT }],
  };
  return recent[0]?.role === 'assistant'
    ? [summaryMessage, ...recent]
    : [summaryMessage, acknowledgement, ...recent];
}

/** The most of one tool result or tool input shown to the summarizer, in characters. */
const TRANSCRIPT_BLOCK_CHARACTERS = 2_000;

function clip(text: string): string {
  if (text.length <= TRANSCRIPT_BLOCK_CHARACTERS) return text;
  const half = TRANSCRIPT_BLOCK_CHARACTERS / 2;
  return `${text.slice(0, half)}\n[… ${text.length - TRANSCRIPT_BLOCK_CHARACTERS} characters left out …]\n${text.slice(-half)}`;
}

/** One message as transcript lines. */
function transcriptOf(message: Message): string {
  const lines: string[] = [];
  for (const block of message.content) {
    switch (block.type) {
      case 'text':
        lines.push(
          isSummaryMessage(message)
            ? `EARLIER SUMMARY:\n${block.text.slice(SUMMARY_HEADING.length).trim()}`
            : `${message.role === 'user' ? 'USER' : 'ASSISTANT'}: ${block.text}`,
        );
        break;
      case 'image':
        lines.push(`USER: [an image, ${block.mimeType}]`);
        break;
      case 'tool-call':
        lines.push(`ASSISTANT called ${block.name}(${clip(block.rawInput ?? JSON.stringify(block.input))})`);
        break;
      case 'tool-result': {
        const text = block.content.map((part) =>
          part.type === 'text' ? part.text : `[an image, ${part.mimeType}]`,
        );
        lines.push(
          `RESULT of ${block.toolName}${block.isError ? ' (failed)' : ''}: ${clip(text.join('\n'))}`,
        );
        break;
      }
      default: {
        const unexpected: never = block;
        throw new TypeError(`unknown block ${JSON.stringify(unexpected)}`);
      }
    }
  }
  return lines.join('\n');
}

/**
 * The request text for the summarizer: the older part as a plain transcript (so that no vendor's
 * rules on message order or tool pairing apply), then the template, then the user's focus if any.
 * At most `maxTokens`: when the transcript is longer, its oldest turns after the earlier summary
 * are left out, with a line that says so.
 */
export function summaryRequestText(
  older: readonly Message[],
  options: { readonly focus?: string; readonly maxTokens: number },
): string {
  const focus =
    options.focus === undefined || options.focus.trim() === ''
      ? ''
      : `\n\nThe user asked this summary to focus on: ${options.focus.trim()}`;
  const instructions = `\n\n---\n\n${SUMMARY_TEMPLATE}${focus}`;
  const parts = older.map(transcriptOf);
  let budget = options.maxTokens - estimateTextTokens(instructions);
  const kept: string[] = [];
  const keepFirst = isSummaryMessage(older[0]) ? 1 : 0;
  if (keepFirst === 1) budget -= estimateTextTokens(parts[0] ?? '');
  let index = parts.length - 1;
  for (; index >= keepFirst; index--) {
    const part = parts[index] ?? '';
    const cost = estimateTextTokens(part);
    if (cost > budget) break;
    budget -= cost;
    kept.unshift(part);
  }
  const omitted = index - keepFirst + 1;
  if (omitted > 0) kept.unshift(`[… ${omitted} older messages left out: they did not fit …]`);
  if (keepFirst === 1) kept.unshift(parts[0] ?? '');
  return `Here is a conversation between a user and an assistant that uses tools:\n\n${kept.join('\n\n')}${instructions}`;
}
