/** How many terminal rows text takes, to move the cursor back over it. */
import stringWidth from 'string-width';

/**
 * Rows taken by `text` written from column 0 of a terminal `columns` wide, counting the row the
 * cursor ends on. A line exactly as wide as the terminal takes one row: terminals defer the wrap
 * until the next character, and the newline comes first.
 */
export function rowsOf(text: string, columns: number): number {
  let rows = 0;
  for (const line of text.split('\n')) {
    const width = stringWidth(line);
    rows += width === 0 ? 1 : Math.ceil(width / columns);
  }
  return rows;
}
