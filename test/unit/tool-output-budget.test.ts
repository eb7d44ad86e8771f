/** The tool-output budget: head and tail with a note, the whole text saved to a file, images limited. */
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyToolOutputBudget } from '../../src/context/tool-output-budget.js';
import type { ToolResultBlock } from '../../src/core/types.js';

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'mcphost-budget-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

const resultOf = (...content: ToolResultBlock['content']): ToolResultBlock => ({
  type: 'tool-result',
  toolCallId: 'c1',
  toolName: 'fs__read_file',
  content,
  isError: false,
});

describe('applyToolOutputBudget', () => {
  it('leaves a result within budget as it is', async () => {
    const result = resultOf({ type: 'text', text: 'small' });
    expect(await applyToolOutputBudget(result, { maxTextBytes: 100, saveFolder: folder })).toEqual({
      result,
      textBytes: 5,
      cutBytes: 0,
      droppedImages: 0,
    });
    expect(await readdir(folder)).toEqual([]);
  });

  it('keeps the head and the tail, and saves the whole text to a file the note names', async () => {
    const lines = Array.from({ length: 20_000 }, (_, index) => `line ${index}`).join('\n');
    const saveFolder = join(folder, 'state', 'tool-output');
    const budgeted = await applyToolOutputBudget(resultOf({ type: 'text', text: lines }), {
      maxTextBytes: 1_000,
      saveFolder,
      now: () => Date.parse('2026-01-02T03:04:05.678Z'),
    });
    const text = budgeted.result.content[0]?.type === 'text' ? budgeted.result.content[0].text : '';
    expect(text.startsWith('line 0\nline 1\n')).toBe(true);
    expect(text.endsWith('line 19998\nline 19999')).toBe(true);
    expect(budgeted.savedTo).toMatch(/2026-01-02T03-04-05-678Z-fs__read_file-[0-9a-f]{6}\.txt$/);
    expect(text).toContain(`The whole result is saved in ${budgeted.savedTo}`);
    expect(text).toContain(
      `[mcphost: this result is ${Buffer.byteLength(lines).toLocaleString('en-US')} bytes`,
    );
    expect(await readFile(budgeted.savedTo ?? '', 'utf8')).toBe(lines);
    expect((await stat(budgeted.savedTo ?? '')).mode & 0o777).toBe(0o600);
    // The kept text is the budget (the note aside).
    expect(budgeted.textBytes - budgeted.cutBytes).toBeLessThanOrEqual(1_000);
    expect(budgeted.cutBytes).toBeGreaterThan(Buffer.byteLength(lines) - 1_000 - 1);
  });

  it('never splits a character, and says so when the file cannot be written', async () => {
    const blocked = join(folder, 'a-file');
    await writeFile(blocked, 'in the way');
    const budgeted = await applyToolOutputBudget(resultOf({ type: 'text', text: 'é'.repeat(5_000) }), {
      maxTextBytes: 101,
      saveFolder: join(blocked, 'inside'),
    });
    const text = budgeted.result.content[0]?.type === 'text' ? budgeted.result.content[0].text : '';
    expect(text).not.toContain('\uFFFD');
    expect(text).toMatch(/It could not be saved \(.+\): ask the tool for a smaller part/);
    expect(budgeted.savedTo).toBeUndefined();
  });

  it('limits images in the same pass, keeping them in place', async () => {
    const big = { type: 'image' as const, mimeType: 'image/png', data: 'A'.repeat(200) };
    const small = { type: 'image' as const, mimeType: 'image/png', data: 'AAAA' };
    const budgeted = await applyToolOutputBudget(resultOf(small, { type: 'text', text: 'caption' }, big), {
      maxImageBytes: 100,
    });
    expect(budgeted.droppedImages).toBe(1);
    expect(budgeted.result.content[0]).toEqual(small);
    const note = budgeted.result.content[2];
    expect(note?.type === 'text' ? note.text : '').toMatch(/an image .* was left out/);
  });
});
