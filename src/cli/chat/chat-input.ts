/**
 * The chat's input, on one readline: prompts, multi-line entries, type-ahead, Ctrl-C and Ctrl-D,
 * and questions asked in the middle of a turn.
 *
 * - The input is visible only while it is asked for ({@link ChatInput.next}, {@link ChatInput.ask});
 *   the rest of the time readline's echo is muted (see MuteableOutput), so keys typed while a turn
 *   runs do not land in the answer. A line entered then is queued, and shown with the prompt when
 *   its turn comes; an unfinished one waits in the next prompt.
 * - Multi-line entries: a line ending in `\` continues on the next. Pasted text is kept together:
 *   the terminal is asked for bracketed paste (`ESC[?2004h`), so a paste arrives between
 *   `paste-start` and `paste-end` keys (Node's keypress parser knows them), and the lines inside
 *   it are collected until the user presses Enter after the paste. A terminal without bracketed
 *   paste sends each pasted line as if typed: end lines with `\` there.
 * - readline keeps one history entry per line; a multi-line entry replaces its pieces with one
 *   entry, and answers to questions are taken back out.
 */
import { createInterface, type Interface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import stringWidth from 'string-width';
import { AbortedError } from '../../core/errors.js';
import type { Completion } from './completion.js';
import { MuteableOutput } from './muteable-output.js';
import {
  chatEntryOf,
  completeWithin,
  DEFAULT_COMPLETION_WAIT_MS,
  type ChatEntry,
  type Entry,
} from './chat-entry.js';
import type { AskOptions } from './prompter.js';
import type { Style } from './style.js';
import { definedProperties } from '../../util/defined-properties.js';

const BRACKETED_PASTE_ON = '\u001B[?2004h';
const BRACKETED_PASTE_OFF = '\u001B[?2004l';

export interface ChatInputOptions {
  readonly input: Readable;
  readonly output: Writable;
  /** readline's terminal mode: line editing, keys, history (both ends are terminals). */
  readonly terminal: boolean;
  /** Earlier entries, oldest first (the persistent history). */
  readonly history: readonly string[];
  readonly historySize?: number;
  /** Tab completion at the prompt; may answer later (bounded by `completionWaitMs`). */
  readonly completer?: (line: string) => Completion | Promise<Completion>;
  /** Default {@link DEFAULT_COMPLETION_WAIT_MS}. */
  readonly completionWaitMs?: number;
  readonly style: Style;
  /** Ctrl-C while no prompt is shown (a turn or a command is running) or during a question. */
  readonly onInterrupt: () => void;
  /** Ctrl-D while no prompt is shown (a terminal only; a pipe's end just means no more lines). */
  readonly onEnd: () => void;
  /**
   * A line entered while no prompt is shown (a turn runs): true when it was handled at once (a
   * command that only shows something, such as `/tasks`), so it is not queued for later.
   */
  readonly onLineDuringTurn?: (text: string) => boolean;
}

interface PendingQuestion {
  readonly resolve: (answer: string) => void;
  readonly reject: (error: Error) => void;
  /** Tab completion of this answer; without it, Tab completes nothing during a question. */
  readonly complete?: (partial: string) => Promise<Completion>;
}

interface ReadlineInternals {
  history?: unknown;
  prevRows?: unknown;
}

export class ChatInput {
  readonly #options: ChatInputOptions;
  readonly #output: MuteableOutput;
  readonly #readline: Interface;
  readonly #entries: Entry[] = [];
  #waiter: ((entry: Entry | undefined) => void) | undefined;
  #question: PendingQuestion | undefined;
  #questions: Promise<unknown> = Promise.resolve();
  /** Counts Ctrl-Cs, so questions queued before one are dropped. */
  #interruptions = 0;
  #prompt = '> ';
  #parts: string[] = [];
  #historyBeforeParts: string[] | undefined;
  #pasting = false;
  #interruptedAtPrompt = false;
  #ended = false;
  readonly #onKeypress = (_text: string | undefined, key: { name?: string; ctrl?: boolean } | undefined) => {
    if (key?.name === 'paste-start') this.#pasting = true;
    else if (key?.name === 'paste-end') this.#pasting = false;
    if (!(key?.ctrl === true && key.name === 'c')) this.#interruptedAtPrompt = false;
  };

  constructor(options: ChatInputOptions) {
    this.#options = options;
    this.#output = new MuteableOutput(options.output);
    this.#output.muted = true;
    this.#readline = createInterface({
      input: options.input,
      output: this.#output,
      terminal: options.terminal,
      history: [...options.history].reverse(),
      historySize: options.historySize ?? 1000,
      removeHistoryDuplicates: true,
      tabSize: 4,
      ...(options.completer === undefined
        ? {}
        : {
            completer: (line: string, callback: (error: null, result: Completion) => void) => {
              this.#complete(line, callback);
            },
          }),
    });
    this.#readline.on('line', (line) => {
      // Node 24's readline gives a recalled multi-line history entry back with `\r` between its
      // lines (Node 20 with the `\n` we kept); a typed line holds no `\r`, Enter ends it.
      this.#onLine(line.replaceAll('\r', '\n'));
    });
    this.#readline.on('SIGINT', () => {
      this.#onInterrupt();
    });
    this.#readline.on('close', () => {
      this.#onClose();
    });
    if (options.terminal) {
      // After readline's own listener: a paste's `return` keys reach us flagged as pasted.
      options.input.on('keypress', this.#onKeypress);
      options.output.write(BRACKETED_PASTE_ON);
    }
  }

  /** True once the input has ended (Ctrl-D, end of a pipe, or {@link close}). */
  get ended(): boolean {
    return this.#ended;
  }

  /** The next entry's text, with `prompt` shown; undefined when the input has ended. */
  async next(prompt: string): Promise<string | undefined> {
    return (await this.nextEntry(prompt))?.text;
  }

  /** The next entry, typed or posted, with `prompt` shown; undefined when the input has ended. */
  nextEntry(prompt: string): Promise<ChatEntry | undefined> {
    this.#prompt = prompt;
    const queued = this.#entries.shift();
    if (queued !== undefined) {
      if (queued.unseen && queued.from === undefined) this.#echo(queued.text);
      return Promise.resolve(chatEntryOf(queued));
    }
    if (this.#ended) return Promise.resolve(undefined);
    this.#showPrompt(prompt);
    return new Promise((resolve) => {
      this.#waiter = (entry) => {
        resolve(entry === undefined ? undefined : chatEntryOf(entry));
      };
    });
  }

  /**
   * An entry that was not typed (an MCP App's message, a new turn). At an idle prompt it is taken at
   * once: the prompt line goes, and what was typed on it waits in the next prompt. Otherwise (a
   * turn runs, a question is open) it waits its turn after the lines entered before it.
   */
  post(text: string, from: string, prompt = text): void {
    if (this.#ended) return;
    this.#entries.push({ text, unseen: true, from, prompt });
    this.#takePosted();
  }

  /** At an idle prompt, a posted entry waiting is taken in the prompt's place (its line goes). */
  #takePosted(): boolean {
    const [waiter, posted] = [this.#waiter, this.#entries[0]];
    if (waiter === undefined || this.#question !== undefined || posted?.from === undefined) return false;
    this.#entries.shift();
    this.#waiter = undefined;
    if (this.#options.terminal && !this.#output.muted) this.#options.output.write('\r\u001b[2K');
    this.#output.muted = true;
    waiter(posted);
    return true;
  }

  /** Asks a question on the input and resolves with the answer line. Questions take turns. */
  ask(question: string, options: AskOptions = {}): Promise<string> {
    const interruptions = this.#interruptions;
    const asked = this.#questions.then(() => {
      if (this.#interruptions !== interruptions) throw new AbortedError('cancelled by Ctrl-C');
      return this.#askNow(question, options);
    });
    this.#questions = asked.catch(() => undefined);
    return asked;
  }

  /** Ends the input: readline closes, the terminal leaves bracketed paste mode. */
  /**
   * Prints `text` (whole lines) for the user while the prompt may be on screen: the prompt line is
   * cleared first and drawn again after, with what was typed so far, so the two do not run together.
   */
  printAbove(text: string): void {
    const atPrompt = this.#waiter !== undefined && !this.#output.muted && this.#options.terminal;
    if (atPrompt) this.#options.output.write('\r\u001b[2K');
    this.#options.output.write(text);
    if (atPrompt) this.#readline.prompt(true);
  }

  close(): void {
    this.#readline.close();
  }

  /** Answers readline's Tab from the question's or the prompt's completer, within the wait. */
  #complete(line: string, callback: (error: null, result: Completion) => void): void {
    const question = this.#question;
    const source = question === undefined ? this.#options.completer : question.complete;
    completeWithin(source, line, this.#options.completionWaitMs ?? DEFAULT_COMPLETION_WAIT_MS, callback);
  }

  #askNow(question: string, options: AskOptions): Promise<string> {
    const { signal } = options;
    if (this.#ended) return Promise.reject(new AbortedError('the chat has ended'));
    if (signal?.aborted === true) return Promise.reject(new AbortedError());
    // Type-ahead must not answer a question the user has not seen.
    this.#clearLine();
    const history = this.#history();
    const saved = history === undefined ? undefined : [...history];
    return new Promise<string>((resolve, reject) => {
      const onAbort = () => {
        this.#question = undefined;
        reject(new AbortedError());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#question = {
        ...definedProperties({ complete: options.complete }),
        resolve: (answer) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(answer);
        },
        reject: (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      this.#showPrompt(question);
    }).finally(() => {
      this.#output.muted = true;
      if (history !== undefined && saved !== undefined) history.splice(0, history.length, ...saved);
      // Asked while the prompt waited (an app's tool call between turns): the prompt comes back,
      // or a message posted meanwhile takes its place.
      setImmediate(() => {
        if (this.#takePosted() || this.#waiter === undefined || this.#question !== undefined) return;
        if (!this.#ended) this.#showPrompt(this.#prompt);
      });
    });
  }

  #onLine(line: string): void {
    const question = this.#question;
    if (question !== undefined) {
      this.#question = undefined;
      // As for an entry: without a terminal the answer is written after its question.
      if (!this.#options.terminal) this.#options.output.write(`${line}\n`);
      question.resolve(line);
      return;
    }
    if (this.#pasting || (line.endsWith('\\') && !line.endsWith('\\\\'))) {
      if (this.#parts.length === 0) this.#historyBeforeParts = [...(this.#history() ?? [])];
      this.#parts.push(this.#pasting ? line : line.slice(0, -1));
      if (this.#output.muted) this.#readline.setPrompt(this.#continuationPrompt());
      else this.#showPrompt(this.#continuationPrompt(), false);
      return;
    }
    // A paste that ended with a newline leaves an empty last line: it is not part of the entry.
    const text = [...this.#parts, line].join('\n').replace(/\n+$/, '');
    if (this.#parts.length > 0) this.#keepAsOneHistoryEntry(text);
    this.#parts = [];
    this.#interruptedAtPrompt = false;
    const entry: Entry = { text, unseen: this.#output.muted };
    this.#output.muted = true;
    const waiter = this.#waiter;
    this.#waiter = undefined;
    if (waiter === undefined) {
      if (this.#options.onLineDuringTurn?.(text) === true) return;
      this.#entries.push(entry);
      return;
    }
    // Without a terminal nothing echoes the line: write it after its prompt, for a transcript.
    if (!this.#options.terminal) this.#options.output.write(`${text}\n`);
    waiter(entry);
  }

  #onInterrupt(): void {
    this.#interruptions++;
    const question = this.#question;
    if (question !== undefined) {
      this.#question = undefined;
      // End the question's line as at the prompt (`^C`, then a newline): what comes next (the
      // spinner, the cancelled call) starts on a line of its own instead of over the question.
      if (this.#options.terminal) {
        this.#readline.write(null, { ctrl: true, name: 'e' });
        this.#options.output.write(`${this.#options.style.dim('^C')}\n`);
      }
      question.reject(new AbortedError('cancelled by Ctrl-C'));
      this.#options.onInterrupt();
      return;
    }
    if (this.#waiter === undefined) {
      this.#options.onInterrupt();
      return;
    }
    // At the prompt: Ctrl-C drops what was typed; on an empty prompt, twice in a row quits.
    const typed = this.#readline.line !== '' || this.#parts.length > 0;
    // To the end of the line on screen, so `^C` follows what was typed; then forget it.
    this.#readline.write(null, { ctrl: true, name: 'e' });
    this.#clearLine();
    this.#parts = [];
    if (typed) {
      this.#options.output.write(`${this.#options.style.dim('^C')}\n`);
    } else if (this.#interruptedAtPrompt) {
      this.close();
      return;
    } else {
      this.#interruptedAtPrompt = true;
      this.#options.output.write(`\n${this.#options.style.dim('(press Ctrl-C again or Ctrl-D to quit)')}\n`);
    }
    this.#showPrompt(this.#prompt);
  }

  #onClose(): void {
    const wasWaiting = this.#waiter !== undefined;
    this.#ended = true;
    if (this.#options.terminal) {
      this.#options.input.off('keypress', this.#onKeypress);
      this.#options.output.write(BRACKETED_PASTE_OFF);
      // Ctrl-D means leave now, not after what was typed ahead.
      this.#entries.length = 0;
    }
    this.#output.detach();
    const question = this.#question;
    this.#question = undefined;
    question?.reject(new AbortedError('the chat has ended'));
    const waiter = this.#waiter;
    this.#waiter = undefined;
    if (wasWaiting && this.#options.terminal) this.#options.output.write('\n');
    waiter?.(undefined);
    if (!wasWaiting && this.#options.terminal) this.#options.onEnd();
  }

  /** Shows a prompt (and whatever was typed ahead) and lets readline echo again. */
  #showPrompt(prompt: string, resetCursor = true): void {
    this.#output.muted = false;
    this.#readline.setPrompt(prompt);
    // readline moves up by the rows its last (muted) redraw took; none of it is on screen.
    const internals = this.#readline as unknown as ReadlineInternals;
    if (resetCursor && typeof internals.prevRows === 'number') internals.prevRows = 0;
    this.#readline.prompt(true);
  }

  #continuationPrompt(): string {
    const width = stringWidth(stripVTControlCharacters(this.#prompt));
    return this.#options.style.dim(`${'…'.padStart(Math.max(1, width - 1))} `);
  }

  /** Shows an entry typed while muted as if it had just been typed at the prompt. */
  #echo(text: string): void {
    const continuation = this.#continuationPrompt();
    this.#options.output.write(`${this.#prompt}${text.split('\n').join(`\n${continuation}`)}\n`);
  }

  /** Empties readline's line without drawing anything. */
  #clearLine(): void {
    // Without a terminal there is no line being edited, and readline's write(null, key) throws.
    if (!this.#options.terminal) return;
    const muted = this.#output.muted;
    this.#output.muted = true;
    this.#readline.write(null, { ctrl: true, name: 'e' });
    this.#readline.write(null, { ctrl: true, name: 'u' });
    this.#output.muted = muted;
  }

  /** readline's history (newest first), when it keeps one (terminal mode). */
  #history(): string[] | undefined {
    const history = (this.#readline as unknown as ReadlineInternals).history;
    return Array.isArray(history) && history.every((item) => typeof item === 'string') ? history : undefined;
  }

  #keepAsOneHistoryEntry(text: string): void {
    const history = this.#history();
    const before = this.#historyBeforeParts;
    this.#historyBeforeParts = undefined;
    if (history === undefined || before === undefined) return;
    const kept = [text, ...before.filter((item) => item !== text)].slice(
      0,
      this.#options.historySize ?? 1000,
    );
    history.splice(0, history.length, ...kept);
  }
}
