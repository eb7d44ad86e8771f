/**
 * The tool-output budget: one mechanism for everything a tool result may cost the context. Text
 * over the budget keeps its head and tail with a note in between, and the whole text is saved to a
 * file the note names (so the model, or the user, can read the rest with a file tool); images over
 * their limits are left out with a note (see `limitToolImages`).
 */
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../util/atomic-file.js';
import { messageOf } from '../core/errors.js';
import { limitToolImages, type ImageLimits } from '../safety/output-limits.js';
import type { ImageBlock, TextBlock, ToolResultBlock } from '../core/types.js';

/**
 * The default budget of a result's text, in UTF-8 bytes: about 25,000 tokens at ~4 bytes a token,
 * Claude Code's cap on MCP output (gemini-cli keeps ~40k characters, Codex ~10k tokens).
 */
export const DEFAULT_TOOL_OUTPUT_BYTES = 100_000;

/** The share of the kept text taken from the head; the rest comes from the tail (errors and totals are often last). */
const HEAD_SHARE = 0.6;

/** How a result is kept within budget. */
export interface ToolOutputBudget extends ImageLimits {
  /** The most text of one result the model gets, in UTF-8 bytes. Default {@link DEFAULT_TOOL_OUTPUT_BYTES}. */
  readonly maxTextBytes?: number;
  /** Where the whole text of a cut result is saved (created when needed). Without it, nothing is saved. */
  readonly saveFolder?: string;
  /** The clock, for the saved file's name. Default `Date.now`. */
  readonly now?: () => number;
}

/** A result after {@link applyToolOutputBudget}. */
export interface BudgetedResult {
  readonly result: ToolResultBlock;
  /** UTF-8 bytes of text in the original result. */
  readonly textBytes: number;
  /** Bytes of text left out (0 when nothing was cut). */
  readonly cutBytes: number;
  /** Images replaced by a note. */
  readonly droppedImages: number;
  /** The file holding the whole text, when it was cut and saved. */
  readonly savedTo?: string;
}

/** The longest piece of `bytes` from `start` to `end` that does not split a UTF-8 character. */
function sliceOnCharacters(bytes: Buffer, start: number, end: number): string {
  let from = start;
  let to = Math.min(end, bytes.length);
  // Continuation bytes are 10xxxxxx: move each edge onto the first byte of a character.
  while (from < to && ((bytes[from] ?? 0) & 0xc0) === 0x80) from++;
  while (to > from && to < bytes.length && ((bytes[to] ?? 0) & 0xc0) === 0x80) to--;
  return bytes.subarray(from, to).toString('utf8');
}

/** `12345678` → `12,345,678`. */
const count = (value: number): string => value.toLocaleString('en-US');

/** Saves the whole text; the path, or why it could not be saved. */
async function saveWholeText(
  text: string,
  result: ToolResultBlock,
  budget: ToolOutputBudget,
): Promise<{ path: string } | { failure: string } | undefined> {
  if (budget.saveFolder === undefined) return undefined;
  const stamp = new Date((budget.now ?? Date.now)()).toISOString().replace(/[:.]/g, '-');
  const tool = result.toolName.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
  const path = join(budget.saveFolder, `${stamp}-${tool}-${randomBytes(3).toString('hex')}.txt`);
  try {
    await mkdir(budget.saveFolder, { recursive: true, mode: 0o700 });
    await writeFileAtomic(path, text);
    return { path };
  } catch (error) {
    return { failure: messageOf(error) };
  }
}

/**
 * Keeps a result within the budget. The text blocks become one (head, note, tail) when they are
 * over `maxTextBytes` together; images are limited as `limitToolImages` does.
 */
export async function applyToolOutputBudget(
  result: ToolResultBlock,
  budget: ToolOutputBudget = {},
): Promise<BudgetedResult> {
  const maxBytes = budget.maxTextBytes ?? DEFAULT_TOOL_OUTPUT_BYTES;
  const images = limitToolImages(result, budget);
  const texts = images.result.content.filter((block): block is TextBlock => block.type === 'text');
  const whole = texts.map((block) => block.text).join('\n');
  const textBytes = texts.reduce((total, block) => total + Buffer.byteLength(block.text, 'utf8'), 0);
  if (textBytes <= maxBytes) {
    return { result: images.result, textBytes, cutBytes: 0, droppedImages: images.droppedImages };
  }
  const bytes = Buffer.from(whole, 'utf8');
  const head = sliceOnCharacters(bytes, 0, Math.floor(maxBytes * HEAD_SHARE));
  const tail = sliceOnCharacters(
    bytes,
    bytes.length - (maxBytes - Buffer.byteLength(head, 'utf8')),
    bytes.length,
  );
  const keptBytes = Buffer.byteLength(head, 'utf8') + Buffer.byteLength(tail, 'utf8');
  const cutBytes = bytes.length - keptBytes;
  const saved = await saveWholeText(whole, result, budget);
  const where =
    saved === undefined
      ? 'Ask the tool for a smaller part if you need the rest.'
      : 'path' in saved
        ? `The whole result is saved in ${saved.path}: read the part you need from there (with a file tool) instead of calling ${result.toolName} again.`
        : `It could not be saved (${saved.failure}): ask the tool for a smaller part if you need the rest.`;
  const note =
    `\n\n[mcphost: this result is ${count(bytes.length)} bytes, over the budget of ${count(maxBytes)}; ` +
    `${count(cutBytes)} bytes from the middle are left out. ${where}]\n\n`;
  // The text, cut, where the first text block was; images stay where they were.
  let placed = false;
  const content: Array<TextBlock | ImageBlock> = [];
  for (const block of images.result.content) {
    if (block.type === 'image') content.push(block);
    else if (!placed) {
      content.push({ type: 'text', text: `${head}${note}${tail}` });
      placed = true;
    }
  }
  return {
    result: { ...images.result, content },
    textBytes,
    cutBytes,
    droppedImages: images.droppedImages,
    ...(saved !== undefined && 'path' in saved ? { savedTo: saved.path } : {}),
  };
}
