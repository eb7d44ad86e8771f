/**
 * The prompt of a one-shot run, with what is piped to mcphost:
 *
 * - `-p -` reads the whole prompt from stdin (and waits for it, as `cat` would);
 * - `-p TEXT` (or a script) with a piped stdin asks TEXT, a blank line, then stdin's content:
 *   `git diff | mcphost -p "review this"`.
 *
 * A terminal is never read for `-p TEXT`, and a stdin that ends at once (CI jobs, `</dev/null`)
 * counts as empty. A pipe that stays open without sending anything (a parent process that never
 * closes it) is given up after {@link STDIN_GRACE_MS}, so that mcphost cannot hang on it.
 */
import type { Readable } from 'node:stream';
import { CANCELLED, untilAborted } from '../util/abort.js';
import { AbortedError, ConfigError } from '../core/errors.js';
import { definedProperties } from '../util/defined-properties.js';

/** How long `-p TEXT` waits for the first byte of a piped stdin before going on without it. */
export const STDIN_GRACE_MS = 3_000;

/** Starts a timer and gives a function that cancels it (injected so tests control time). */
export type StartTimer = (callback: () => void, ms: number) => () => void;

const realTimer: StartTimer = (callback, ms) => {
  const timer = setTimeout(callback, ms);
  return () => clearTimeout(timer);
};

/** What a piped stdin gave. */
export type PipedInput =
  /** A terminal, or a stdin that ended (or failed) without data. */
  | { readonly kind: 'none' }
  /** Everything that was piped, up to its end. */
  | { readonly kind: 'text'; readonly text: string }
  /** Nothing arrived within the grace period; stdin was let go. */
  | { readonly kind: 'silent' };

function isTerminal(stream: Readable): boolean {
  return (stream as { isTTY?: boolean }).isTTY === true;
}

/**
 * Reads stdin to its end. With `graceMs`, gives up (`silent`) when no byte came within that time;
 * once data flows, it waits for the end however long that takes.
 */
export function readInput(
  stdin: Readable,
  options: { readonly graceMs?: number; readonly startTimer?: StartTimer } = {},
): Promise<PipedInput> {
  if (stdin.readableEnded || stdin.destroyed) return Promise.resolve({ kind: 'none' });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let cancelTimer = (): void => undefined;
    const settle = (result: PipedInput): void => {
      cancelTimer();
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      stdin.off('close', onEnd);
      stdin.off('error', onEnd);
      resolve(result);
    };
    const onData = (chunk: Buffer | string): void => {
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
      cancelTimer();
    };
    const onEnd = (): void => {
      settle(
        chunks.length === 0
          ? { kind: 'none' }
          : { kind: 'text', text: Buffer.concat(chunks).toString('utf8') },
      );
    };
    stdin.on('data', onData);
    stdin.once('end', onEnd);
    stdin.once('close', onEnd);
    // A closed or broken stdin (EBADF, EIO) is no input rather than a failure.
    stdin.once('error', onEnd);
    if (options.graceMs !== undefined) {
      cancelTimer = (options.startTimer ?? realTimer)(() => {
        if (chunks.length > 0) return;
        settle({ kind: 'silent' });
        // Let go of it, or the open handle would keep the process alive.
        stdin.destroy();
      }, options.graceMs);
    }
  });
}

/** Where the prompt comes from, and how to tell the user about stdin. */
export interface PromptSource {
  /** `-p`'s value (`-` for stdin), or the prompt of a script file. */
  readonly prompt: string;
  /** False when stdin is not ours to read (`--no-exit`: it feeds the chat that follows). */
  readonly readStdin: boolean;
  readonly stdin: Readable;
  /** A note for the user (dropped under --quiet). */
  readonly note: (message: string) => void;
  readonly graceMs?: number;
  readonly startTimer?: StartTimer;
  /** Ctrl-C or a signal while stdin is read: stop reading and throw AbortedError. */
  readonly signal?: AbortSignal;
}

/** Rejects with AbortedError as soon as `signal` aborts, else settles as `pending` does. */
async function unlessAborted<T>(pending: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  const value = await untilAborted(pending, signal);
  if (value === CANCELLED) throw new AbortedError('cancelled while reading stdin');
  return value;
}

/** The prompt to send: `-p`'s text, stdin's, or both. Throws a ConfigError when there is none. */
export async function composePrompt(source: PromptSource): Promise<string> {
  if (source.prompt === '-') {
    const input = await unlessAborted(readInput(source.stdin), source.signal);
    const text = input.kind === 'text' ? input.text.trimEnd() : '';
    if (text.trim() === '') throw new ConfigError('-p -', 'stdin was empty: there is no prompt to send');
    return text;
  }
  let piped = '';
  if (source.readStdin && !isTerminal(source.stdin)) {
    const input = await unlessAborted(
      readInput(source.stdin, {
        graceMs: source.graceMs ?? STDIN_GRACE_MS,
        ...definedProperties({ startTimer: source.startTimer }),
      }),
      source.signal,
    );
    if (input.kind === 'text') piped = input.text.trimEnd();
    if (input.kind === 'silent') {
      source.note(
        `nothing came on stdin within ${((source.graceMs ?? STDIN_GRACE_MS) / 1000).toFixed(0)}s; going on without it (use </dev/null to skip the wait, or -p - to wait for stdin)`,
      );
    }
  }
  const prompt = [source.prompt, piped].filter((part) => part.trim() !== '').join('\n\n');
  if (prompt === '') throw new ConfigError('-p', 'the prompt is empty');
  return prompt;
}
