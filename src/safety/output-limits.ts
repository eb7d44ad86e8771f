/**
 * What a server sends back is cleaned before anyone reads it: terminal control sequences are
 * stripped (they could repaint the user's screen or hide text from them), a result too big for
 * the model's context is cut, and an image too big for the model's API is left out, each with a
 * note that says so.
 */
import type { ImageBlock, TextBlock, ToolResultBlock } from '../core/types.js';
import { stripControlCharacters } from './terminal-text.js';

export { stripControlCharacters } from './terminal-text.js';

/**
 * The default cap on a tool result's text, in UTF-8 bytes. About 25,000 tokens at ~4 bytes a token:
 * the cap Claude Code puts on MCP output by default, a fifth of a 128k-token context, so a few large
 * results still leave room for the conversation. For small local models, configure less.
 */
export const DEFAULT_MAX_TOOL_RESULT_BYTES = 100_000;

/**
 * The default cap on one image of a tool result, in bytes of its base64 form (as sent): 5 MiB,
 * the most Anthropic accepts (it measures the base64 string, and a request with a bigger image is
 * rejected with a 400 that no retry fixes). An image stays in the conversation and is sent again
 * at every later step, and saved with the session, so a bigger one would break every step after.
 */
export const DEFAULT_MAX_TOOL_IMAGE_BYTES = 5 * 1024 * 1024;

/** The default cap on all the images of one tool result together, base64 bytes: two of the largest. */
export const DEFAULT_MAX_TOOL_RESULT_IMAGE_BYTES = 2 * DEFAULT_MAX_TOOL_IMAGE_BYTES;

/** Caps of {@link limitToolImages}, in bytes of base64. */
export interface ImageLimits {
  /** One image. Default {@link DEFAULT_MAX_TOOL_IMAGE_BYTES}. */
  readonly maxImageBytes?: number;
  /** Every image of the result together. Default {@link DEFAULT_MAX_TOOL_RESULT_IMAGE_BYTES}. */
  readonly maxTotalImageBytes?: number;
}

/** A result after {@link limitToolImages}. */
export interface ImageLimitedResult {
  readonly result: ToolResultBlock;
  /** Images replaced by a note (0 when every image was kept). */
  readonly droppedImages: number;
}

/**
 * Replaces each image over `maxImageBytes`, and each image that would take the result's images
 * over `maxTotalImageBytes` (the earlier ones are kept), with a text note in its place that tells
 * the model what was left out and why. The text of the result is not touched.
 */
export function limitToolImages(result: ToolResultBlock, limits: ImageLimits = {}): ImageLimitedResult {
  const maxImage = limits.maxImageBytes ?? DEFAULT_MAX_TOOL_IMAGE_BYTES;
  const maxTotal = limits.maxTotalImageBytes ?? DEFAULT_MAX_TOOL_RESULT_IMAGE_BYTES;
  let total = 0;
  let droppedImages = 0;
  const content = result.content.map((block): TextBlock | ImageBlock => {
    if (block.type !== 'image') return block;
    const size = block.data.length;
    let why: string | undefined;
    if (size > maxImage) why = `it is over the limit of ${maxImage} bytes for one image`;
    else if (total + size > maxTotal) {
      why = `the images of this result would be over the limit of ${maxTotal} bytes for all of them`;
    }
    if (why === undefined) {
      total += size;
      return block;
    }
    droppedImages += 1;
    return {
      type: 'text',
      text: `[mcphost: an image (${block.mimeType}, ${size} bytes as base64) was left out: ${why}.]`,
    };
  });
  return droppedImages === 0 ? { result, droppedImages } : { result: { ...result, content }, droppedImages };
}

/** A result with {@link stripControlCharacters} applied to its text. */
export function stripResultControlCharacters(result: ToolResultBlock): ToolResultBlock {
  return {
    ...result,
    content: result.content.map((block) =>
      block.type === 'text' ? { type: 'text', text: stripControlCharacters(block.text) } : block,
    ),
  };
}

/** A result after {@link limitToolResult}. */
export interface LimitedResult {
  readonly result: ToolResultBlock;
  /** UTF-8 bytes of text in the original result. */
  readonly textBytes: number;
  /** Bytes of text left out (0 when nothing was cut). */
  readonly cutBytes: number;
}

/**
 * Cuts a result's text to `maxBytes` (UTF-8), keeping the beginning, never splitting a character,
 * and adds a note telling the model how much was left out. Images are kept as they are (see
 * {@link limitToolImages}).
 */
export function limitToolResult(result: ToolResultBlock, maxBytes: number): LimitedResult {
  const textBytes = result.content.reduce(
    (total, block) => total + (block.type === 'text' ? Buffer.byteLength(block.text, 'utf8') : 0),
    0,
  );
  if (textBytes <= maxBytes) return { result, textBytes, cutBytes: 0 };
  let budget = maxBytes;
  const content: Array<TextBlock | ImageBlock> = [];
  for (const block of result.content) {
    if (block.type !== 'text') {
      content.push(block);
      continue;
    }
    if (budget <= 0) continue;
    const kept = headOfText(block.text, budget);
    budget -= Buffer.byteLength(kept, 'utf8');
    if (kept !== '') content.push({ type: 'text', text: kept });
  }
  const keptBytes = maxBytes - budget;
  const cutBytes = textBytes - keptBytes;
  content.push({
    type: 'text',
    text:
      `\n\n[mcphost: this result was cut to its first ${keptBytes} of ${textBytes} bytes ` +
      `(${cutBytes} bytes left out) to fit the model's context. Ask the tool for a smaller part if you need the rest.]`,
  });
  return { result: { ...result, content }, textBytes, cutBytes };
}

/** The longest beginning of `text` of at most `maxBytes` UTF-8 bytes that ends on a character boundary. */
function headOfText(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  // Step back over continuation bytes (10xxxxxx) to the first byte of the character being split.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}
