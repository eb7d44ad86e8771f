/**
 * The textual form of "this is data from outside" (issue 16), shared by the providers whose
 * tool-result message carries plain text and by prompted tool calling (src/core/tool-calling), which
 * carries results in a user turn. See providers/untrusted-marking.ts for why this form.
 */
import type { ImageBlock, TextBlock, ToolResultBlock } from './types.js';

/** The envelope's tag; the default system-prompt clause names it. */
export const UNTRUSTED_ENVELOPE_TAG = 'untrusted-tool-output';

const ENVELOPE_CLOSE = /<\/\s*untrusted-tool-output\s*>/giu;

/** A source name safe inside the attribute (tool names are `[A-Za-z0-9_-]` already). */
export function safeSource(source: string): string {
  return source.replace(/[^A-Za-z0-9_.:@/-]/g, '_');
}

/**
 * The result's blocks with its text inside the envelope (opened before the first text block,
 * closed after the last), when the result is marked; unchanged otherwise. A closing tag inside the
 * content is neutralised, so the content cannot end the envelope early. A result without text (only
 * images) gets an empty envelope line first, so the model still sees where the images come from.
 */
export function envelopedContent(result: ToolResultBlock): ReadonlyArray<TextBlock | ImageBlock> {
  if (result.untrusted === undefined) return result.content;
  const open = `<${UNTRUSTED_ENVELOPE_TAG} source="${safeSource(result.untrusted.source)}">`;
  const close = `</${UNTRUSTED_ENVELOPE_TAG}>`;
  const texts = result.content.filter((block): block is TextBlock => block.type === 'text');
  if (texts.length === 0) {
    return result.content.length === 0
      ? result.content
      : [{ type: 'text', text: `${open}(images only)${close}` }, ...result.content];
  }
  const first = texts[0];
  const last = texts[texts.length - 1];
  return result.content.map((block) => {
    if (block.type !== 'text') return block;
    let text = block.text.replace(ENVELOPE_CLOSE, `</${UNTRUSTED_ENVELOPE_TAG} (quoted)>`);
    if (block === first) text = `${open}\n${text}`;
    if (block === last) text = `${text}\n${close}`;
    return { ...block, text };
  });
}
