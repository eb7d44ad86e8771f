/**
 * What a server sends back is cleaned before anyone reads it: terminal control sequences are
 * stripped (they could repaint the user's screen or hide text from them), and a result too big for
 * the model's context is cut, with a note that says so.
 */
import type { ImageBlock, TextBlock, ToolResultBlock } from '../types.js';

/**
 * The default cap on a tool result's text, in UTF-8 bytes. About 25,000 tokens at ~4 bytes a token:
 * the cap Claude Code puts on MCP output by default, a fifth of a 128k-token context, so a few large
 * results still leave room for the conversation. For small local models, configure less.
 */
export const DEFAULT_MAX_TOOL_RESULT_BYTES = 100_000;

/** Escape sequences: CSI (colours, cursor moves), OSC (titles, hyperlinks), DCS/SOS/PM/APC, and two-byte ones. */
const ESCAPE_SEQUENCES =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /\x1b\[[0-?]*[ -/]*[@-~]|\x9b[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[PX^_][^\x1b]*(?:\x1b\\)?|\x1b[ -/]*[0-~]?/g;

/** C0 controls except tab and line feed, DEL, C1 controls, and the bidirectional overrides (Trojan Source). */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTERS = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text safe to print on a terminal: escape sequences and control characters removed, `\r\n`
 * turned into `\n`. Tabs and line feeds stay.
 */
export function stripControlCharacters(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(ESCAPE_SEQUENCES, '').replace(CONTROL_CHARACTERS, '');
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
 * and adds a note telling the model how much was left out. Images are kept as they are: vendors
 * size them by pixels, not bytes.
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
