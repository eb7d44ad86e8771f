import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_TOOL_RESULT_BYTES,
  limitToolResult,
  stripControlCharacters,
} from '../../src/safety/output-limits.js';
import type { ToolResultBlock } from '../../src/types.js';

function result(...content: ToolResultBlock['content']): ToolResultBlock {
  return { type: 'tool-result', toolCallId: 'c1', toolName: 'x__y', content, isError: false };
}

function textOf(block: ToolResultBlock['content'][number] | undefined): string {
  if (block?.type !== 'text') throw new Error('expected a text block');
  return block.text;
}

describe('stripControlCharacters', () => {
  it.each([
    ['\x1b[31mred\x1b[0m text', 'red text'],
    ['\x1b[2J\x1b[Hcleared', 'cleared'],
    ['\x1b]0;evil title\x07after', 'after'],
    ['\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\', 'link'],
    ['bell\x07 and backspace\x08 and nul\x00', 'bell and backspace and nul'],
    ['windows\r\nlines', 'windows\nlines'],
    ['progress 10%\rprogress 100%', 'progress 10%progress 100%'],
    ['tabs\tand\nnewlines stay', 'tabs\tand\nnewlines stay'],
    ['C1 \x9b31mcsi', 'C1 csi'],
    ['trojan \u202eevil\u202c source', 'trojan evil source'],
    ['émoji 👍 and ünïcödé stay', 'émoji 👍 and ünïcödé stay'],
  ])('%j → %j', (input, expected) => {
    expect(stripControlCharacters(input)).toBe(expected);
  });
});

describe('limitToolResult', () => {
  it('leaves a result under the cap as it is', () => {
    const small = result({ type: 'text', text: 'hello' });
    const limited = limitToolResult(small, 10);
    expect(limited.result).toBe(small);
    expect(limited).toMatchObject({ textBytes: 5, cutBytes: 0 });
  });

  it('cuts an oversized result to its beginning and says how much was left out', () => {
    const big = 'a'.repeat(250_000);
    const limited = limitToolResult(result({ type: 'text', text: big }), DEFAULT_MAX_TOOL_RESULT_BYTES);
    expect(limited.textBytes).toBe(250_000);
    expect(limited.cutBytes).toBe(150_000);
    expect(textOf(limited.result.content[0])).toBe('a'.repeat(100_000));
    expect(textOf(limited.result.content[1])).toContain(
      'this result was cut to its first 100000 of 250000 bytes (150000 bytes left out)',
    );
    expect(limited.result.isError).toBe(false);
  });

  it('never splits a character', () => {
    // "é" is two bytes: a cap of 5 bytes keeps two of them (4 bytes), not half of the third.
    const limited = limitToolResult(result({ type: 'text', text: 'ééé' }), 5);
    expect(textOf(limited.result.content[0])).toBe('éé');
    expect(limited.cutBytes).toBe(2);
  });

  it('spends the budget across blocks in order and keeps images', () => {
    const image = { type: 'image' as const, mimeType: 'image/png', data: 'AAAA' };
    const limited = limitToolResult(
      result(
        { type: 'text', text: '12345' },
        image,
        { type: 'text', text: '67890' },
        { type: 'text', text: 'zzz' },
      ),
      7,
    );
    expect(limited.result.content.slice(0, 3)).toEqual([
      { type: 'text', text: '12345' },
      image,
      { type: 'text', text: '67' },
    ]);
    expect(textOf(limited.result.content[3])).toContain('first 7 of 13 bytes (6 bytes left out)');
    expect(limited.result.content).toHaveLength(4);
  });
});
