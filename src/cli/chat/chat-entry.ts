/**
 * What ChatInput reads (src/cli/chat/chat-input.ts): the entries of the chat, typed or posted, and
 * Tab's bounded wait for a completer.
 */
import type { Completion } from './completion-candidates.js';

/**
 * The longest a Tab waits for suggestions (a server's `completion/complete`): readline holds the
 * keys typed meanwhile, so a slow server must not hold them long. A later answer is dropped.
 */
export const DEFAULT_COMPLETION_WAIT_MS = 1_000;

/** An entry as the input keeps it. */
export interface Entry {
  readonly text: string;
  /** Typed while muted, so not on screen yet. */
  readonly unseen: boolean;
  /** Who sent it, when it was not typed (an MCP App's message): the chat shows it, never as a command. */
  readonly from?: string;
  /** A posted entry's text for the model, when it is not `text` (what is shown). */
  readonly prompt?: string;
}

/** An entry of the chat: typed at the prompt, or posted by someone else (`ChatInput.post`). */
export type ChatEntry =
  | { readonly kind: 'typed'; readonly text: string }
  | { readonly kind: 'posted'; readonly text: string; readonly from: string; readonly prompt: string };

export function chatEntryOf(entry: Entry): ChatEntry {
  return entry.from === undefined
    ? { kind: 'typed', text: entry.text }
    : { kind: 'posted', text: entry.text, from: entry.from, prompt: entry.prompt ?? entry.text };
}

/** Answers readline's Tab from `source` within `waitMs`, with nothing after that (a late answer is dropped). */
export function completeWithin(
  source: ((line: string) => Completion | Promise<Completion>) | undefined,
  line: string,
  waitMs: number,
  callback: (error: null, result: Completion) => void,
): void {
  let answered = false;
  const answer = (result: Completion): void => {
    if (answered) return; // Too late: the Tab was already answered with nothing.
    answered = true;
    clearTimeout(timer);
    callback(null, result);
  };
  const timer = setTimeout(() => {
    answer([[], line]);
  }, waitMs);
  if (source === undefined) {
    answer([[], line]);
    return;
  }
  Promise.resolve()
    .then(() => source(line))
    .then(answer, () => {
      answer([[], line]);
    });
}
