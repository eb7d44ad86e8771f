/**
 * A markdown table for a terminal of a given width. marked-terminal draws tables with cli-table3
 * at their natural width (a wide table wraps at the terminal's edge and its borders fall apart)
 * and ignores the column alignment of the `|---:|` row. Here the columns are narrowed to fit,
 * widest first, their cells wrapped (on words, then inside a word that is still too long) by
 * wrap-ansi, which keeps colors; alignment is passed to cli-table3. A table with so many columns
 * that even narrow ones cannot fit is shown as one "header: value" line per cell instead.
 */
import Table from 'cli-table3';
import stringWidth from 'string-width';
import wrapAnsi from 'wrap-ansi';

/** How a column's cells are aligned (`null`: no colon in the delimiter row, i.e. left). */
export type ColumnAlignment = 'left' | 'center' | 'right' | null;

/** A table's cells, already rendered as terminal text (inline markdown done). */
export interface TableCells {
  readonly header: readonly string[];
  readonly rows: ReadonlyArray<readonly string[]>;
  readonly align: readonly ColumnAlignment[];
}

/** Padding cli-table3 puts left and right of a cell's text. */
const CELL_PADDING = 2;
/** A column is not narrowed below this many characters of text: narrower, the table is listed instead. */
const MIN_COLUMN_TEXT = 4;

/** Renders `table` to fit `width` columns (every line at most `width` wide). */
export function renderTable(table: TableCells, width: number, paintHeader: (text: string) => string): string {
  const columns = Math.max(table.header.length, ...table.rows.map((row) => row.length));
  if (columns === 0) return '';
  const cell = (row: readonly string[], index: number) => row[index] ?? '';
  const natural = Array.from({ length: columns }, (_, index) =>
    Math.max(...[table.header, ...table.rows].map((row) => widestLine(cell(row, index)))),
  );
  // Borders: one left of each column and one at the end.
  const textWidths = fitColumns(natural, width - (columns + 1) - CELL_PADDING * columns);
  if (textWidths === undefined) return listTable(table, columns, width, paintHeader);
  const wrap = (text: string, index: number) =>
    wrapAnsi(text, textWidths[index] ?? MIN_COLUMN_TEXT, { hard: true });
  const rendered = new Table({
    head: Array.from({ length: columns }, (_, index) => paintHeader(wrap(cell(table.header, index), index))),
    colWidths: textWidths.map((text) => text + CELL_PADDING),
    colAligns: Array.from({ length: columns }, (_, index) => table.align[index] ?? 'left'),
    // Our caller's style decides colors; cli-table3 would guess from the environment.
    style: { head: [], border: [] },
  });
  for (const row of table.rows) {
    rendered.push(Array.from({ length: columns }, (_, index) => wrap(cell(row, index), index)));
  }
  return rendered.toString();
}

/**
 * Text widths for the columns that fit `room` in total: the natural ones when they fit, else the
 * widest are narrowed first (a narrow column of numbers keeps its width while a long description
 * wraps). Undefined when even {@link MIN_COLUMN_TEXT} each does not fit.
 */
export function fitColumns(natural: readonly number[], room: number): number[] | undefined {
  const widths = natural.map((width) => Math.max(1, width));
  let excess = widths.reduce((sum, width) => sum + width, 0) - room;
  if (excess <= 0) return widths;
  const floor = widths.map((width) => Math.min(width, MIN_COLUMN_TEXT));
  const spare = widths.reduce((sum, width, index) => sum + width - (floor[index] ?? 0), 0);
  if (spare < excess) return undefined;
  // Lower the widest columns to a common level until the excess is gone.
  while (excess > 0) {
    const before = excess;
    const widest = Math.max(...widths);
    const atWidest = widths.filter((width) => width === widest).length;
    const next = Math.max(...widths.filter((width) => width < widest), 0);
    const step = Math.min(widest - next, Math.ceil(excess / atWidest));
    for (let index = 0; index < widths.length && excess > 0; index++) {
      const current = widths[index] ?? 0;
      if (current !== widest) continue;
      const cut = Math.min(step, excess, current - (floor[index] ?? 0));
      widths[index] = current - cut;
      excess -= cut;
    }
    // Cannot happen while spare >= excess; a bound all the same.
    if (excess === before) return undefined;
  }
  return widths;
}

/** Each row as `header: value` lines, wrapped to `width`, rows apart by a blank line. */
function listTable(
  table: TableCells,
  columns: number,
  width: number,
  paintHeader: (text: string) => string,
): string {
  return table.rows
    .map((row) =>
      Array.from({ length: columns }, (_, index) => {
        const line = `${paintHeader(table.header[index] ?? '')}: ${row[index] ?? ''}`;
        return wrapAnsi(line, width, { hard: true });
      }).join('\n'),
    )
    .join('\n\n');
}

function widestLine(text: string): number {
  return Math.max(0, ...text.split('\n').map((line) => stringWidth(line)));
}
