/**
 * Where a streamed markdown answer can be cut into blocks that render the same alone as together,
 * so each finished block can be shown rendered while the rest is still arriving.
 *
 * A cut goes after a blank line outside a fenced code block, once the next block has begun — and
 * only when that next line does not continue what came before: an indented line (a list item's
 * continuation, indented code) or a list item after a list (a "loose" list, which marked-terminal
 * would renumber from 1 if rendered in pieces) keeps the blocks together.
 */

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const LIST_ITEM = /^ {0,3}([-*+]|\d{1,9}[.)])(\s|$)/;

interface Fence {
  readonly marker: string;
  readonly length: number;
}

/**
 * The length of the leading part of `text` made of complete blocks, ending where the next block
 * begins; 0 when no block is complete yet.
 */
export function completeBlocksEnd(text: string): number {
  let fence: Fence | undefined;
  let cut = 0;
  let blockHasContent = false;
  let blockHasList = false;
  let afterBlank = false;
  let position = 0;
  while (position < text.length) {
    const newline = text.indexOf('\n', position);
    const complete = newline !== -1;
    const line = complete ? text.slice(position, newline) : text.slice(position);
    const lineStart = position;
    position = complete ? newline + 1 : text.length;

    // The next block has begun once its first word is whole (`1` may yet become `1. item`):
    // decide whether the blank line before it was a cut.
    if (afterBlank && line.trim() !== '' && (complete || /^\s|^\S+\s/.test(line))) {
      const continues = /^\s/.test(line) || (blockHasList && LIST_ITEM.test(line));
      afterBlank = false;
      if (!continues) {
        cut = lineStart;
        blockHasContent = false;
        blockHasList = false;
      }
    }
    if (!complete) break;

    if (fence !== undefined) {
      if (closesFence(line, fence)) fence = undefined;
      continue;
    }
    const opening = FENCE.exec(line);
    if (opening?.[1] !== undefined) {
      fence = { marker: opening[1].charAt(0), length: opening[1].length };
      blockHasContent = true;
      continue;
    }
    if (line.trim() === '') {
      if (blockHasContent) afterBlank = true;
      continue;
    }
    blockHasContent = true;
    if (LIST_ITEM.test(line)) blockHasList = true;
  }
  return cut;
}

function closesFence(line: string, fence: Fence): boolean {
  const match = /^ {0,3}(`+|~+)\s*$/.exec(line);
  const marker = match?.[1];
  return marker !== undefined && marker.charAt(0) === fence.marker && marker.length >= fence.length;
}
