import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { composePrompt, readInput, type StartTimer } from '../../src/cli/stdin.js';
import { ConfigError } from '../../src/core/errors.js';

/** A timer the test fires by hand. */
function manualTimer(): { start: StartTimer; fire: () => void; started: () => number } {
  let pending: (() => void) | undefined;
  let count = 0;
  return {
    start: (callback) => {
      count++;
      pending = callback;
      return () => {
        pending = undefined;
      };
    },
    fire: () => pending?.(),
    started: () => count,
  };
}

function pipe(...chunks: string[]): PassThrough {
  const stream = new PassThrough();
  for (const chunk of chunks) stream.write(chunk);
  stream.end();
  return stream;
}

describe('composePrompt', () => {
  const notes: string[] = [];
  const note = (message: string) => notes.push(message);

  it('-p - reads the whole prompt from stdin', async () => {
    expect(
      await composePrompt({ prompt: '-', readStdin: true, stdin: pipe('what is ', '2+2?\n'), note }),
    ).toBe('what is 2+2?');
  });

  it('-p - with an empty stdin is a usage error', async () => {
    await expect(composePrompt({ prompt: '-', readStdin: true, stdin: pipe(), note })).rejects.toThrow(
      ConfigError,
    );
    await expect(composePrompt({ prompt: '-', readStdin: true, stdin: pipe('\n \n'), note })).rejects.toThrow(
      '-p -: stdin was empty',
    );
  });

  it('-p TEXT with piped content asks TEXT, a blank line, then the content', async () => {
    const stdin = pipe('diff --git a/x b/x\n+new line\n');
    expect(await composePrompt({ prompt: 'review this', readStdin: true, stdin, note })).toBe(
      'review this\n\ndiff --git a/x b/x\n+new line',
    );
  });

  it('-p TEXT with a stdin that ends at once (CI, </dev/null) is TEXT alone', async () => {
    expect(await composePrompt({ prompt: 'hi', readStdin: true, stdin: pipe(), note })).toBe('hi');
  });

  it('does not read stdin when it belongs to the chat (--no-exit) or is a terminal', async () => {
    const kept = pipe('/quit\n');
    expect(await composePrompt({ prompt: 'hi', readStdin: false, stdin: kept, note })).toBe('hi');
    expect(kept.readableLength).toBeGreaterThan(0);
    const terminal = Object.assign(new PassThrough(), { isTTY: true });
    // A terminal is never waited on: this would hang if it were read.
    expect(await composePrompt({ prompt: 'hi', readStdin: true, stdin: terminal, note })).toBe('hi');
  });

  it('gives up on a pipe that stays open and silent, and says so', async () => {
    notes.length = 0;
    const timer = manualTimer();
    const silent = new PassThrough();
    const prompt = composePrompt({
      prompt: 'hi',
      readStdin: true,
      stdin: silent,
      note,
      startTimer: timer.start,
    });
    await Promise.resolve();
    timer.fire();
    expect(await prompt).toBe('hi');
    expect(silent.destroyed).toBe(true);
    expect(notes).toEqual([expect.stringContaining('nothing came on stdin within 3s')]);
  });

  it('once data flows, waits for the end however long it takes', async () => {
    const timer = manualTimer();
    const slow = new PassThrough();
    const input = readInput(slow, { graceMs: 10, startTimer: timer.start });
    slow.write('part one, ');
    await new Promise((resolve) => setImmediate(resolve));
    timer.fire();
    slow.end('part two');
    expect(await input).toEqual({ kind: 'text', text: 'part one, part two' });
    expect(timer.started()).toBe(1);
  });

  it('treats a broken stdin as empty', async () => {
    const broken = new PassThrough();
    const input = readInput(broken);
    broken.destroy(Object.assign(new Error('read EBADF'), { code: 'EBADF' }));
    expect(await input).toEqual({ kind: 'none' });
  });
});
