import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_TOOL_IMAGE_BYTES,
  DEFAULT_MAX_TOOL_RESULT_BYTES,
  DEFAULT_MAX_TOOL_RESULT_IMAGE_BYTES,
  limitToolImages,
  limitToolResult,
  stripControlCharacters,
} from '../../src/safety/output-limits.js';
import { sanitizeText } from '../../src/cli/chat/sanitize.js';
import type { ToolResultBlock } from '../../src/core/types.js';

function result(...content: ToolResultBlock['content']): ToolResultBlock {
  return { type: 'tool-result', toolCallId: 'c1', toolName: 'x__y', content, isError: false };
}

function textOf(block: ToolResultBlock['content'][number] | undefined): string {
  if (block?.type !== 'text') throw new Error('expected a text block');
  return block.text;
}

describe('stripControlCharacters (and the chat sanitizeText, which is the same)', () => {
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
    ['\x1bP1$r0m\x1b\\after DCS', 'after DCS'],
    ['\x1b_apc payload\x1b\\ and \x1b^pm\x1b\\done', ' and done'],
    ['\x1b(0charset \x1b7saved\x1b8 \x1bcreset', 'charset saved reset'],
    ['\x1b[?25l\x1b[38;2;255;0;0mtruecolor\x1b[m', 'truecolor'],
    ['title \x1b]2;a title with spaces\x07shown', 'title shown'],
    ['isolates \u2066a\u2069 \u2067b\u2069 \u202ac\u202c', 'isolates a b c'],
    ['del\x7f and C1 \x85next\x9c', 'del and C1 next'],
    ['unterminated \x1b[31', 'unterminated 31'],
  ])('%j → %j', (input, expected) => {
    expect(stripControlCharacters(input)).toBe(expected);
    expect(sanitizeText(input)).toBe(expected);
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

describe('limitToolImages', () => {
  const image = (characters: number, mimeType = 'image/png') => ({
    type: 'image' as const,
    mimeType,
    data: 'A'.repeat(characters),
  });

  it('keeps images within both caps as they are', () => {
    const small = result({ type: 'text', text: 'a chart' }, image(400));
    const limited = limitToolImages(small, { maxImageBytes: 1000, maxTotalImageBytes: 2000 });
    expect(limited.result).toBe(small);
    expect(limited.droppedImages).toBe(0);
  });

  it('replaces an image over the per-image cap with a note saying what was left out and why', () => {
    const limited = limitToolImages(
      result({ type: 'text', text: 'before' }, image(1200, 'image/jpeg'), image(8)),
      {
        maxImageBytes: 1000,
        maxTotalImageBytes: 10_000,
      },
    );
    expect(limited.droppedImages).toBe(1);
    expect(limited.result.content[0]).toEqual({ type: 'text', text: 'before' });
    expect(textOf(limited.result.content[1])).toBe(
      '[mcphost: an image (image/jpeg, 1200 bytes as base64) was left out: it is over the limit of 1000 bytes for one image.]',
    );
    expect(limited.result.content[2]).toEqual(image(8));
    expect(limited.result.content).toHaveLength(3);
  });

  it('drops the images that would go over the total cap of one result, keeping the earlier ones', () => {
    const limited = limitToolImages(result(image(600), image(600), image(300)), {
      maxImageBytes: 1000,
      maxTotalImageBytes: 1000,
    });
    expect(limited.droppedImages).toBe(1);
    expect(limited.result.content[0]).toEqual(image(600));
    expect(textOf(limited.result.content[1])).toContain(
      'was left out: the images of this result would be over the limit of 1000 bytes for all of them',
    );
    expect(limited.result.content[2]).toEqual(image(300));
  });

  it('by default, drops an image over 5 MB (what Anthropic accepts) and caps a result at two such images', () => {
    expect(DEFAULT_MAX_TOOL_IMAGE_BYTES).toBe(5 * 1024 * 1024);
    expect(DEFAULT_MAX_TOOL_RESULT_IMAGE_BYTES).toBe(10 * 1024 * 1024);
    const limited = limitToolImages(
      result(image(DEFAULT_MAX_TOOL_IMAGE_BYTES + 4), image(DEFAULT_MAX_TOOL_IMAGE_BYTES)),
    );
    expect(limited.result.content.map((block) => block.type)).toEqual(['text', 'image']);
    expect(limited.droppedImages).toBe(1);
  });
});
