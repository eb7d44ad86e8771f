/** Pure pieces of the pool: line splitting, stderr tail, child environment, restart backoff. */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { childEnvironment } from '../../src/mcp/environment.js';
import { LineSplitter, TailBuffer } from '../../src/mcp/lines.js';
import {
  MAX_CONSECUTIVE_FAILURES,
  restartDelay,
  RESTART_BACKOFF_MAX_MS,
} from '../../src/mcp/restart-policy.js';

describe('LineSplitter', () => {
  it('splits on LF and CRLF and keeps an unfinished line for later', () => {
    const splitter = new LineSplitter(1024);
    expect(splitter.push(Buffer.from('one\r\ntwo\nthr'))).toEqual(['one', 'two']);
    expect(splitter.push(Buffer.from('ee'))).toEqual([]);
    expect(splitter.push(Buffer.from('\n'))).toEqual(['three']);
    expect(splitter.flush()).toBeUndefined();
  });

  it('decodes a character split across chunks whole', () => {
    const bytes = Buffer.from('héllo\n');
    const splitter = new LineSplitter(1024);
    expect(splitter.push(bytes.subarray(0, 2))).toEqual([]);
    expect(splitter.push(bytes.subarray(2))).toEqual(['héllo']);
  });

  it('gives the last line without a newline on flush', () => {
    const splitter = new LineSplitter(1024);
    splitter.push(Buffer.from('a\nlast'));
    expect(splitter.flush()).toBe('last');
  });

  it('drops a line over the limit up to its newline, says how long it was, and reads on', () => {
    const splitter = new LineSplitter(8);
    expect(splitter.push(Buffer.from('ok\n12345'))).toEqual(['ok']);
    expect(splitter.push(Buffer.from('67890'))).toEqual([]);
    expect(splitter.push(Buffer.from('abc\r\nnext\n'))).toEqual([
      { kind: 'oversize', bytes: 14, head: '1234567890abc\r', tail: '1234567890abc\r' },
      'next',
    ]);
    expect(splitter.push(Buffer.from('123456789\nlast\n'))).toEqual([
      { kind: 'oversize', bytes: 9, head: '123456789', tail: '123456789' },
      'last',
    ]);
    expect(splitter.flush()).toBeUndefined();
  });
});

describe('TailBuffer', () => {
  it('keeps the last lines, oldest first, cutting long ones', () => {
    const tail = new TailBuffer(2, 5);
    for (const line of ['one', 'two', 'three-and-more']) tail.add(line);
    expect(tail.snapshot()).toEqual(['two', 'three…']);
  });

  it('keeps the cut of a long line, not the whole line behind it', () => {
    setFlagsFromString('--expose-gc');
    const collectGarbage = runInNewContext('gc') as () => void;
    collectGarbage();
    const before = process.memoryUsage().heapUsed;
    const tail = new TailBuffer(20);
    // 20 lines of 200 KB: 4 MB if each kept 1,000 characters as a view into its whole line.
    for (let index = 0; index < 20; index++) tail.add(String.fromCharCode(97 + index).repeat(200_000));
    collectGarbage();
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(1024 * 1024);
    expect(tail.snapshot()[19]).toBe(`${'t'.repeat(1000)}…`);
  });
});

describe('childEnvironment', () => {
  const parent = {
    PATH: '/usr/bin',
    HOME: '/home/me',
    LC_TIME: 'en_GB.UTF-8',
    ANTHROPIC_API_KEY: 'sk-ant',
    AWS_SECRET_ACCESS_KEY: 'secret',
    HTTPS_PROXY: 'http://user:pass@proxy',
    TERM: '() { :; }; echo pwned',
    UNSET: undefined,
  };

  it('keeps only what a program needs, plus the configured variables', () => {
    expect(
      childEnvironment(parent, { env: { TOKEN: 'server-own', HOME: '/srv' }, inheritEnv: false }),
    ).toEqual({
      PATH: '/usr/bin',
      HOME: '/srv',
      LC_TIME: 'en_GB.UTF-8',
      TOKEN: 'server-own',
    });
  });

  it('passes everything with inheritEnv', () => {
    expect(childEnvironment(parent, { env: { EXTRA: '1' }, inheritEnv: true })).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/me',
      LC_TIME: 'en_GB.UTF-8',
      ANTHROPIC_API_KEY: 'sk-ant',
      AWS_SECRET_ACCESS_KEY: 'secret',
      HTTPS_PROXY: 'http://user:pass@proxy',
      TERM: '() { :; }; echo pwned',
      EXTRA: '1',
    });
  });
});

describe('restartDelay', () => {
  it('restarts at once after one failure, then doubles from one second, capped', () => {
    expect([1, 2, 3, 4].map((failures) => restartDelay(failures))).toEqual([0, 1_000, 2_000, 4_000]);
    expect(restartDelay(40)).toBe(RESTART_BACKOFF_MAX_MS);
    expect(MAX_CONSECUTIVE_FAILURES).toBe(3);
  });
});
