/**
 * The CLI fuzz run in chunks: `--from I` gives runs I… of the same seed's sequence, the exit-3
 * causes are normalised to one row per cause, and the JSON lines of chunks add up to the tally of
 * the whole run.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { answersFrom } from '../bench/fuzz-cli.js';
import {
  emptyTally,
  exitCause,
  NO_ERROR_LINE,
  normaliseCause,
  record,
  summaryLines,
  sumTallies,
  type RunRecord,
} from '../support/cli-fuzz-summary.js';
import { generatedAnswer, streamKind, type GeneratedAnswer } from '../support/vendor-stream-fuzz.js';

describe('answersFrom', () => {
  it('gives runs I… of the sequence that sampling from 0 gives, across batches', () => {
    const all = fc.sample(generatedAnswer, { numRuns: 150, seed: 99 });
    expect(JSON.stringify([...answersFrom(99, 20, 130)])).toBe(JSON.stringify(all.slice(20)));
    expect(JSON.stringify([...answersFrom(99, 0, 5)])).toBe(JSON.stringify(all.slice(0, 5)));
  });

  it('gives nothing for no runs', () => {
    expect([...answersFrom(1, 40, 0)]).toEqual([]);
  });
});

describe('normaliseCause', () => {
  it('makes one row of lines that differ in numbers, ids and quoted text', () => {
    const lines = [
      'mcphost: anthropic: the stream broke off: unexpected event "content_block_delta" at index 3',
      "mcphost: anthropic: the stream broke off: unexpected event 'message_stop' at index 12",
    ];
    expect(new Set(lines.map(normaliseCause)).size).toBe(1);
    expect(normaliseCause(lines[0] ?? '')).toBe(
      'mcphost: anthropic: the stream broke off: unexpected event <text> at index <n>',
    );
    expect(normaliseCause('mcphost: tool call toolu_01ABC has no id after call_9')).toBe(
      'mcphost: tool call <id> has no id after <id>',
    );
  });

  it('keeps words with digits inside them', () => {
    expect(normaliseCause('mcphost: gemini-2.5-flash said 429')).toBe('mcphost: gemini-<n>-flash said <n>');
  });
});

describe('exitCause', () => {
  it('takes the mcphost: line among other stderr lines', () => {
    expect(exitCause('⚠ note\nmcphost: openai: the stream ended early (3 chunks)\n')).toBe(
      'mcphost: openai: the stream ended early (<n> chunks)',
    );
  });

  it('passes over retry notes before the error', () => {
    expect(
      exitCause(
        'mcphost: the answer was cut off: the Anthropic API stream ended before message_stop — retrying in 0.5s (retry 1)\n' +
          'mcphost: the answer was cut off: the Anthropic API stream ended before message_stop\n',
      ),
    ).toBe('mcphost: the answer was cut off: the Anthropic API stream ended before message_stop');
  });

  it('says when there is no such line, or more than one', () => {
    expect(exitCause('Error: boom\n')).toBe(NO_ERROR_LINE);
    expect(exitCause('mcphost: a\nmcphost: b\n')).toBe('(several mcphost: lines) mcphost: a');
    expect(exitCause('→ good__echo {}\nmcphost: bad body:\n  <html>\n')).toBe(
      '(more lines after the mcphost: line) mcphost: bad body:',
    );
  });
});

const runsOfOneSeed: RunRecord[] = [
  { vendor: 'anthropic', exit: '0', continued: true },
  { vendor: 'openai', exit: '3', continued: false, stderr: 'mcphost: cut at 4\n', stream: 'cut' },
  { vendor: 'google', exit: '3', continued: false, stderr: 'mcphost: cut at 9\n', stream: 'reordered' },
  { vendor: 'ollama', exit: '1', continued: false, failure: 'seed 5 run 3 (ollama, exit 1): exit 1: x' },
  { vendor: 'anthropic', exit: '3', continued: false, stderr: 'mcphost: cut at 1\n', stream: 'cut' },
];

describe('the tally and its JSON line', () => {
  it('counts exits and exit-3 causes by stream kind', () => {
    const tally = emptyTally(5, 0, 5);
    for (const run of runsOfOneSeed) record(tally, run);
    expect(tally.exits).toEqual({ '0': 1, '1': 1, '3': 3 });
    expect(tally.exit3Causes).toEqual({ 'mcphost: cut at <n>': { total: 3, cut: 2, reordered: 1 } });
    const lines = summaryLines(tally, 1, 2);
    expect(lines.some((line) => line.includes('    3 (0/2/1) mcphost: cut at <n>'))).toBe(true);
    expect(lines).toContain('  replay one: FUZZ_SEED=5 FUZZ_ONLY=<run> npm run fuzz -- --cli 1');
    expect(JSON.parse(lines.at(-1) ?? '')).toEqual({ fuzz: 'cli', ...tally });
  });

  it('sums the JSON lines of chunks to the tally of the whole run', () => {
    const whole = emptyTally(5, 0, 5);
    for (const run of runsOfOneSeed) record(whole, run);
    const first = emptyTally(5, 0, 2);
    const second = emptyTally(5, 2, 3);
    runsOfOneSeed.forEach((run, index) => record(index < 2 ? first : second, run));
    const jsonLine = (tally: typeof whole) => summaryLines(tally, 1, 2).at(-1) ?? '';
    // In any order.
    const sum = sumTallies([jsonLine(second), jsonLine(first)]);
    expect(sum).toEqual(whole);
  });

  it('refuses chunks that overlap or leave a gap', () => {
    const line = (from: number, runs: number) => summaryLines(emptyTally(1, from, runs), 1, 2).at(-1) ?? '';
    expect(() => sumTallies([line(0, 10), line(5, 10)])).toThrow(
      'fuzz --sum: the chunk from run 5 overlaps the chunk before it',
    );
    expect(() => sumTallies([line(20, 5), line(0, 10)])).toThrow(
      'fuzz --sum: the chunk from run 20 leaves runs 10…19 out',
    );
  });

  it('refuses lines of another seed or shape, naming the line', () => {
    const line = (seed: number, from = 0) => summaryLines(emptyTally(seed, from, 1), 1, 2).at(-1) ?? '';
    expect(() => sumTallies([line(1), line(2, 1)])).toThrow('fuzz --sum: seed 2 differs from 1');
    expect(() => sumTallies([line(1), '{"fuzz":"cli","seed":1}'])).toThrow(
      /^fuzz --sum: line 2 is not a fuzz --cli summary \(from: /,
    );
    expect(() => sumTallies(['nope'])).toThrow('fuzz --sum: line 1 is not JSON');
  });
});

describe('streamKind', () => {
  const answer: GeneratedAnswer = {
    text: ['a', 'b'],
    calls: [],
    cutAt: undefined,
    swap: undefined,
    afterEnd: false,
  };

  it('tells a whole stream from a cut or reordered one', () => {
    expect(streamKind('openai', answer)).toBe('whole');
    expect(streamKind('openai', { ...answer, cutAt: 1 })).toBe('cut');
    expect(streamKind('openai', { ...answer, swap: [0, 2] })).toBe('reordered');
  });

  it('calls a cut past the end, or a swap of a position with itself, whole', () => {
    expect(streamKind('anthropic', { ...answer, cutAt: 30 })).toBe('whole');
    expect(streamKind('google', { ...answer, swap: [1, 1] })).toBe('whole');
  });
});
