/** The one way the chat's prompts ask: once, or until the answer is understood. */
import { describe, expect, it } from 'vitest';
import {
  askOnce,
  askUntilUnderstood,
  MAX_ATTEMPTS,
  type PromptIO,
} from '../../src/cli/prompts/ask-answer.js';

/** A terminal that answers from a script, and rejects (input ended) when the script runs out. */
function scriptedIO(
  answers: readonly string[],
): PromptIO & { readonly written: string[]; readonly asked: string[] } {
  const queue = [...answers];
  const written: string[] = [];
  const asked: string[] = [];
  return {
    written,
    asked,
    ask: (question) => {
      asked.push(question);
      const next = queue.shift();
      return next === undefined ? Promise.reject(new Error('input ended')) : Promise.resolve(next);
    },
    write: (text) => written.push(text),
  };
}

const yesNo = (typed: string) => (typed === 'y' ? true : typed === 'n' ? false : undefined);

describe('askOnce', () => {
  it('gives the line typed, and undefined when input ended', async () => {
    expect(await askOnce(scriptedIO(['hello']), 'Q? ')).toBe('hello');
    expect(await askOnce(scriptedIO([]), 'Q? ')).toBeUndefined();
  });

  it('does not ask once the run is cancelled, and stops waiting when it is cancelled meanwhile', async () => {
    const io = scriptedIO(['never read']);
    expect(await askOnce(io, 'Q? ', { signal: AbortSignal.abort() })).toBeUndefined();
    expect(io.asked).toEqual([]);
    const controller = new AbortController();
    // A terminal that ignores the signal and never answers.
    const deaf: PromptIO = { ask: () => new Promise<string>(() => undefined), write: () => undefined };
    const pending = askOnce(deaf, 'Q? ', { signal: controller.signal });
    controller.abort();
    expect(await pending).toBeUndefined();
  });
});

describe('askUntilUnderstood', () => {
  it('asks again after an answer not understood, saying how to answer', async () => {
    const io = scriptedIO(['maybe', 'n']);
    const asked = await askUntilUnderstood(io, {
      text: 'Go? ',
      signal: new AbortController().signal,
      parse: yesNo,
      retry: 'Please answer y or n.\n',
    });
    expect(asked).toEqual({ kind: 'understood', answer: false });
    expect(io.asked).toEqual(['Go? ', 'Go? ']);
    expect(io.written).toEqual(['Please answer y or n.\n']);
  });

  it(`gives up after ${MAX_ATTEMPTS} answers not understood, and says no answer when input ends`, async () => {
    const signal = new AbortController().signal;
    const io = scriptedIO(['a', 'b', 'c', 'y']);
    expect(await askUntilUnderstood(io, { text: 'Go? ', signal, parse: yesNo, retry: 'again\n' })).toEqual({
      kind: 'gave-up',
    });
    expect(io.asked).toHaveLength(MAX_ATTEMPTS);
    expect(
      await askUntilUnderstood(scriptedIO(['a']), { text: 'Go? ', signal, parse: yesNo, retry: '' }),
    ).toEqual({
      kind: 'no-answer',
    });
  });
});
