/**
 * Compaction: the older part of a conversation is replaced by a summary the model writes from a
 * fixed template, and the recent turns stay as they were. A later compaction updates the earlier
 * summary (it is the first message of what gets summarized). The split never separates a tool call
 * from its result: it falls before a user message, or before a model message that follows results.
 */
import type { AssistantMessage, Message, UserMessage } from '../core/types.js';
import { CHARACTERS_PER_TOKEN, estimateMessageTokens, estimateTextTokens } from './tokens.js';

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

/** What {@link summaryRequests} needs. */
export interface SummaryRequestOptions {
  /** What the user asked the summary to focus on (`/compact FOCUS`). */
  readonly focus?: string | undefined;
  /** The most tokens one request's text may take. */
  readonly maxTokens: number;
  /** The most tokens a summary may take: each request keeps room for the summary so far. */
  readonly summaryTokens: number;
}

/**
 * The summarizer's work, in parts that each fit: the earlier summary (if the older part begins
 * with one), and the rest of the transcript cut into pieces of at most
 * `maxTokens − instructions − summaryTokens` (a message larger than that is itself cut). The
 * first request carries the earlier summary; each next one carries the summary written so far
 * instead; so every turn reaches a request, and no request is larger than `maxTokens` (unless
 * the window is smaller than the template itself: see {@link MIN_PART_TOKENS}).
 */
export class SummaryRequests {
  /** The earlier summary's text, when the older part begins with one: the first summary so far. */
  readonly earlierSummary: string | undefined;
  readonly #pieces: readonly string[];
  readonly #instructions: string;
  readonly #maxTokens: number;
  #next = 0;

  constructor(older: readonly Message[], options: SummaryRequestOptions) {
    const focus =
      options.focus === undefined || options.focus.trim() === ''
        ? ''
        : `\n\nThe user asked this summary to focus on: ${options.focus.trim()}`;
    this.#instructions = `\n\n---\n\n${SUMMARY_TEMPLATE}${focus}`;
    this.#maxTokens = options.maxTokens;
    const pieceTokens = Math.max(MIN_PART_TOKENS, this.#freeTokens() - options.summaryTokens);
    const prefix = summaryPrefixLength(older);
    this.earlierSummary = prefix > 0 ? summaryText(older[0]) : undefined;
    this.#pieces = older.slice(prefix).flatMap((message) => splitToFit(transcriptOf(message), pieceTokens));
  }

  /** Whether every piece of the transcript has been handed out. */
  get done(): boolean {
    return this.#next >= this.#pieces.length;
  }

  /**
   * The next request's text: the summary so far (the earlier summary, then each answer), then as
   * many pieces as fit beside it and the template (at least one).
   */
  next(summarySoFar: string | undefined): string {
    const first = this.#next === 0;
    const head = summarySoFar === undefined ? [] : [`EARLIER SUMMARY:\n${summarySoFar}`];
    let budget = Math.max(MIN_PART_TOKENS, this.#freeTokens() - estimateTextTokens(head.join('')));
    const taken: string[] = [];
    while (this.#next < this.#pieces.length) {
      const piece = this.#pieces[this.#next] ?? '';
      const cost = estimateTextTokens(`${piece}\n\n`);
      if (taken.length > 0 && cost > budget) break;
      budget -= cost;
      taken.push(piece);
      this.#next += 1;
    }
    // Only a conversation summarized in parts says so: one that fits reads as it always did.
    const note = first && this.done ? '' : PART_NOTE;
    return `${REQUEST_HEADER}${note}:\n\n${[...head, ...taken].join('\n\n')}${this.#instructions}`;
  }

  /** Tokens of a request left for the summary so far and the pieces. */
  #freeTokens(): number {
    return this.#maxTokens - estimateTextTokens(`${REQUEST_HEADER}${PART_NOTE}:\n\n${this.#instructions}`);
  }
}

/** The text of a summary message, without its heading. */
function summaryText(message: Message | undefined): string {
  const first = message?.content[0];
  return first?.type === 'text' ? first.text.slice(SUMMARY_HEADING.length).trim() : '';
}

/**
 * The least transcript a request carries. Only a window figure smaller than the template itself
 * (a vendor refused a tiny request) gets there; cutting finer would then make hundreds of calls
 * that cannot fit either.
 */
const MIN_PART_TOKENS = 512;

const REQUEST_HEADER = 'Here is a conversation between a user and an assistant that uses tools';

/** Said when the conversation is summarized in parts. */
const PART_NOTE =
  ' (it is too long for one request, so it comes in parts, oldest first; the summary of the parts before this one comes first, as the earlier summary)';

/** A transcript part cut into pieces of at most `maxTokens` (at line breaks where there are some). */
function splitToFit(text: string, maxTokens: number): string[] {
  if (estimateTextTokens(`${text}\n\n`) <= maxTokens) return [text];
  const maxCharacters = Math.max(1, maxTokens * CHARACTERS_PER_TOKEN - 2);
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > maxCharacters) {
    const lineBreak = rest.lastIndexOf('\n', maxCharacters);
    const cut = lineBreak > maxCharacters / 2 ? lineBreak : maxCharacters;
    pieces.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  if (rest !== '') pieces.push(rest);
  return pieces;
}
