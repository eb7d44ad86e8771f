/** Rendering the answer: block cuts, rows on screen, the streaming rewrite, markdown, sanitizing. */
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { helpText } from '../../src/cli/chat/slash-commands.js';
import { fitColumns } from '../../src/cli/chat/markdown-table.js';
import { AnswerStream } from '../../src/cli/chat/answer-stream.js';
import { createMarkdownRenderer, type MarkdownRenderer } from '../../src/cli/chat/markdown.js';
import { completeBlocksEnd } from '../../src/cli/chat/markdown-blocks.js';
import { oneLine, sanitizeText, shorten } from '../../src/cli/chat/sanitize.js';
import { createStyle } from '../../src/cli/chat/style.js';
import { rowsOf } from '../../src/cli/chat/text-rows.js';

const ESC = '\u001B';

describe('completeBlocksEnd', () => {
  it('cuts after a blank line once the next block has begun', () => {
    expect(completeBlocksEnd('First paragraph.\n')).toBe(0);
    expect(completeBlocksEnd('First paragraph.\n\n')).toBe(0);
    expect(completeBlocksEnd('First paragraph.\n\nSecond ')).toBe('First paragraph.\n\n'.length);
    expect(completeBlocksEnd('# Title\ntext\n\nmore\n\nand ')).toBe('# Title\ntext\n\nmore\n\n'.length);
  });

  it('waits for the first word of the next block (`1` may become a list item)', () => {
    expect(completeBlocksEnd('- a\n- b\n\n1')).toBe(0);
    expect(completeBlocksEnd('Intro.\n\n1')).toBe(0);
    expect(completeBlocksEnd('Intro.\n\n1. ')).toBe('Intro.\n\n'.length);
  });

  it('never cuts inside a fenced code block, blank lines and all', () => {
    const code = '```js\nconst a = 1;\n\nconst b = 2;\n';
    expect(completeBlocksEnd(`${code}\nx`)).toBe(0);
    expect(completeBlocksEnd(`${code}\`\`\`\n\nAfter `)).toBe(`${code}\`\`\`\n\n`.length);
    // A shorter or different fence does not close it.
    expect(completeBlocksEnd('````\na\n```\n\nb\n')).toBe(0);
    expect(completeBlocksEnd('~~~\na\n```\n\nb\n')).toBe(0);
  });

  it('keeps a loose list and indented continuations together', () => {
    expect(completeBlocksEnd('1. one\n\n2. two\n\n3. three')).toBe(0);
    expect(completeBlocksEnd('- item\n\n  continued\n\nNext ')).toBe('- item\n\n  continued\n\n'.length);
    expect(completeBlocksEnd('- item\n\n    code\n')).toBe(0);
  });
});

describe('rowsOf', () => {
  it('counts wrapped rows, the row the cursor ends on, and wide characters', () => {
    expect(rowsOf('', 10)).toBe(1);
    expect(rowsOf('abc\n', 10)).toBe(2);
    expect(rowsOf('0123456789', 10)).toBe(1);
    expect(rowsOf('0123456789a', 10)).toBe(2);
    expect(rowsOf('0123456789\nx', 10)).toBe(2);
    // Six CJK characters are twelve columns.
    expect(rowsOf('日本語日本語', 10)).toBe(2);
    expect(rowsOf('a\n\nb', 10)).toBe(3);
  });
});

function recordingOutput(columns = 40, rows = 20) {
  const chunks: string[] = [];
  return {
    chunks,
    text: () => chunks.join(''),
    output: { write: (text: string) => void chunks.push(text), columns: () => columns, rows: () => rows },
  };
}

const bracket: MarkdownRenderer = (markdown) => `[${markdown.trim()}]`;

describe('AnswerStream', () => {
  it('on a plain display writes the text as it comes, and nothing else', () => {
    const screen = recordingOutput();
    const answer = new AnswerStream(screen.output, false, () => bracket);
    answer.write('\n\nHello ');
    answer.write('**world**.\n\nSecond');
    answer.finish('render');
    expect(screen.chunks).toEqual(['Hello ', '**world**.\n\nSecond', '\n']);
    expect(screen.text()).not.toContain(ESC);
  });

  it('on a rich display replaces each finished block by its rendering', () => {
    const screen = recordingOutput();
    const answer = new AnswerStream(screen.output, true, () => bracket);
    answer.write('One line.\n\nTwo ');
    // Three rows on screen ("One line.", "", "Two "): back up two, clear, write the rendering.
    expect(screen.chunks).toEqual(['One line.\n\nTwo ', `\r${ESC}[2A${ESC}[J[One line.]\n\nTwo `]);
    answer.write('\nlines.');
    answer.finish('render');
    expect(screen.chunks.slice(2)).toEqual(['\nlines.', `\r${ESC}[1A${ESC}[J[Two \nlines.]\n`]);
  });

  it('counts wrapped rows when backing up', () => {
    const screen = recordingOutput(10);
    const answer = new AnswerStream(screen.output, true, () => bracket);
    answer.write('0123456789abcdefghij-xyz');
    answer.finish('render');
    expect(screen.chunks[1]).toBe(`\r${ESC}[2A${ESC}[J[0123456789abcdefghij-xyz]\n`);
  });

  it('leaves a block taller than the terminal raw (the cursor cannot reach the scrollback)', () => {
    const screen = recordingOutput(40, 3);
    const answer = new AnswerStream(screen.output, true, () => bracket);
    answer.write('a\nb\nc\nd\n\nNext ');
    answer.write('block');
    answer.finish('render');
    expect(screen.chunks.slice(0, 2)).toEqual(['a\nb\nc\nd\n\nNext ', 'block']);
    // The short last block is still rendered.
    expect(screen.chunks[2]).toBe(`\r${ESC}[J[Next block]\n`);
  });

  it('leaves text written before a resize raw', () => {
    const screen = recordingOutput();
    const answer = new AnswerStream(screen.output, true, () => bracket);
    answer.write('Before resize.\n\nAft ');
    // That cut happened before the resize: rendered.
    expect(screen.chunks).toHaveLength(2);
    answer.terminalResized();
    answer.write('er.\n\nLast ');
    answer.finish('render');
    // "Aft " was on screen when the terminal changed: its block stays raw; the next is rendered.
    expect(screen.chunks.slice(2)).toEqual(['er.\n\nLast ', `\r${ESC}[J[Last]\n`]);
  });

  it('stays raw while the renderer is loading, and when cancelled', () => {
    const screen = recordingOutput();
    const loading = new AnswerStream(screen.output, true, () => undefined);
    loading.write('Para.\n\nMore');
    loading.finish('render');
    const cancelled = new AnswerStream(screen.output, true, () => bracket);
    cancelled.write('Partial');
    cancelled.finish('raw');
    expect(screen.text()).toBe('Para.\n\nMore\nPartial\n');
  });

  it('strips escape sequences the model sends', () => {
    const screen = recordingOutput();
    const answer = new AnswerStream(screen.output, false, () => undefined);
    answer.write(`safe ${ESC}[2J${ESC}]0;title\u0007text\u009b31m`);
    answer.finish('raw');
    // 0x9B is an 8-bit CSI: `\u009b31m` goes whole.
    expect(screen.text()).toBe('safe text\n');
  });
});

describe('markdown rendering', () => {
  it('renders headings, emphasis, lists, tables and code for the terminal', () => {
    const render = createMarkdownRenderer(createStyle(true));
    const output = render(
      '# Title\n\nSome **bold** and `code`.\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```\nplain code\n```',
      60,
    );
    const lines = output.split('\n');
    expect(lines[0]).toBe(`${ESC}[1m${ESC}[35mTitle${ESC}[39m${ESC}[22m`);
    expect(output).toContain(`Some ${ESC}[1mbold${ESC}[22m and ${ESC}[33mcode${ESC}[39m.`);
    expect(output).toContain('  * one\n  * two');
    // The header row is bold.
    expect(output).toContain(`┌───┬───┐\n│ ${ESC}[1ma${ESC}[22m │ ${ESC}[1mb${ESC}[22m │`);
    expect(output).toContain('plain code');
    expect(output).not.toMatch(/\n$/);
  });

  it('renders bold and code inside list items too', () => {
    const render = createMarkdownRenderer(createStyle(true));
    const output = render('- **bold** item\n- `code` item\n\n1. first **one**', 60);
    expect(output).toContain(`* ${ESC}[1mbold${ESC}[22m item`);
    expect(output).toContain(`* ${ESC}[33mcode${ESC}[39m item`);
    expect(output).toContain(`1. first ${ESC}[1mone${ESC}[22m`);
    expect(output).not.toContain('**');
  });

  it('wraps paragraphs at the width', () => {
    const render = createMarkdownRenderer(createStyle(false));
    const output = render('word '.repeat(30).trim(), 20);
    for (const line of output.split('\n')) expect(line.length).toBeLessThanOrEqual(20);
    expect(output.split('\n').length).toBeGreaterThan(5);
  });
});

describe('sanitizeText', () => {
  it('removes CSI, OSC, C1 controls and bidi overrides, keeping newlines and tabs', () => {
    const dirty = `a${ESC}[31mred${ESC}[0m\r\nb\u0007${ESC}]8;;http://x${ESC}\\link${ESC}]8;;${ESC}\\\tc\u202Egnp.exe\u0000`;
    expect(sanitizeText(dirty)).toBe('ared\nblink\tcgnp.exe');
  });

  it('makes one line and cuts without splitting surrogate pairs', () => {
    expect(oneLine(' a\n\n b\t c ')).toBe('a b c');
    expect(shorten('abcdef', 4)).toBe('abc…');
    expect(shorten('😀😀😀', 2)).toBe('😀…');
    expect(shorten('😀😀', 2)).toBe('😀😀');
  });
});

describe('markdown tables and /help fit the terminal', () => {
  const table =
    '| Name | Size | Description |\n|:-----|-----:|:-----------:|\n' +
    `| alpha | 1 | ${'a long description of the thing '.repeat(4).trim()} |\n| b | 12345 | short |`;

  it('narrows a wide table to the width, widest column first, at any width', () => {
    const render = createMarkdownRenderer(createStyle(false));
    for (const width of [200, 100, 60, 30, 12]) {
      const lines = render(table, width).split('\n');
      for (const line of lines) expect(stringWidth(line), `${width}: ${line}`).toBeLessThanOrEqual(width);
      // Nothing is lost: every word of the description is still there.
      expect(render(table, width).match(/thing/g)).toHaveLength(4);
    }
    // At 60 columns the table keeps its borders, Name and Size their natural widths.
    const sixty = render(table, 60).split('\n');
    expect(sixty[0]).toMatch(/^┌───────┬───────┬─+┐$/);
    expect(stringWidth(sixty[0] ?? '')).toBe(60);
  });

  it('aligns columns as the delimiter row says', () => {
    const render = createMarkdownRenderer(createStyle(false));
    const lines = render(table, 80).split('\n');
    // Size is right-aligned: the numbers end at the column's right edge.
    expect(lines.find((line) => line.includes('alpha'))).toMatch(/│ alpha │ {5}1 │/);
    expect(lines.find((line) => line.includes('12345'))).toMatch(/│ b {5}│ 12345 │/);
    // Description is centred.
    expect(lines.find((line) => line.includes('short'))).toMatch(/│ {10,}short {10,}│$/);
  });

  it('lists a table too wide for narrow columns as header: value lines', () => {
    const render = createMarkdownRenderer(createStyle(false));
    const output = render(table, 12);
    expect(output).not.toContain('┌');
    expect(output).toContain('Name: alpha\nSize: 1\n');
    expect(fitColumns([10, 10, 10], 9)).toBeUndefined();
    expect(fitColumns([5, 40, 8], 30)).toEqual([5, 17, 8]);
  });

  it('wraps /help to the terminal, wide or narrow', () => {
    for (const width of [200, 80, 50, 30]) {
      const lines = helpText(createStyle(false), width).split('\n');
      for (const line of lines) expect(line.length, `${width}: ${line}`).toBeLessThanOrEqual(width);
    }
    // Wide: the keys paragraph is not cut at 95 columns.
    const wide = helpText(createStyle(false), 200).split('\n');
    expect(wide.find((line) => line.startsWith('Keys:'))?.length).toBeGreaterThan(150);
  });
});
