import type { ImageBlock, TextBlock } from '../core/types.js';

/** Blocks as readable text, one per line, images as `[image image/png]` (for logs, hooks, JSON). */
export function blocksAsText(blocks: ReadonlyArray<TextBlock | ImageBlock>): string {
  return blocks.map((block) => (block.type === 'text' ? block.text : `[image ${block.mimeType}]`)).join('\n');
}
