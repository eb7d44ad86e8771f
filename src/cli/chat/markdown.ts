/**
 * Markdown to terminal text: marked parses, marked-terminal renders (headings, lists, tables with
 * cli-table3, code blocks highlighted by cli-highlight). Used only on a rich display; elsewhere the
 * raw markdown is the plain text.
 */
import { Marked, type MarkedExtension, type Tokens } from 'marked';
import { markedTerminal } from 'marked-terminal';
import { renderTable } from './markdown-table.js';
import type { Style } from './style.js';

/** Renders one piece of markdown for a terminal `width` columns wide. */
export type MarkdownRenderer = (markdown: string, width: number) => string;

/** A renderer with our styles. Parsers are kept per width (the width is fixed in each). */
export function createMarkdownRenderer(style: Style): MarkdownRenderer {
  const parsers = new Map<number, Marked>();
  return (markdown, width) => {
    let parser = parsers.get(width);
    if (parser === undefined) {
      parser = new Marked(markedTerminal(terminalOptions(style, width)));
      parser.use(inlineInListItems, tablesWithin(width, style));
      parsers.set(width, parser);
    }
    return parser.parse(markdown, { async: false }).replace(/\n+$/, '');
  };
}

/**
 * marked-terminal prints the text of a tight list item as it is (`- **bold**` keeps its stars):
 * marked hands such text over as a token with inline tokens, which are rendered here. Returning
 * false leaves every other text to marked-terminal.
 */
const inlineInListItems: MarkedExtension = {
  renderer: {
    text(token) {
      // marked's types say `tokens` is an array when present; a plain text token leaves it out.
      return 'tokens' in token ? this.parser.parseInline(token.tokens) : false;
    },
  },
};

/** Tables fit the width and keep their column alignment (see markdown-table.ts). */
function tablesWithin(width: number, style: Style): MarkedExtension {
  return {
    renderer: {
      table(token) {
        const inline = (cell: Tokens.TableCell) => this.parser.parseInline(cell.tokens);
        const table = renderTable(
          {
            header: token.header.map(inline),
            rows: token.rows.map((row) => row.map(inline)),
            align: token.align,
          },
          width,
          style.bold,
        );
        // marked-terminal ends each block with a blank line; so does this.
        return `${table}\n\n`;
      },
    },
  };
}

function terminalOptions(style: Style, width: number) {
  const plain = (text: string) => text;
  return {
    code: style.yellow,
    blockquote: (text: string) => style.gray(style.italic(text)),
    html: style.gray,
    heading: (text: string) => style.bold(style.cyan(text)),
    firstHeading: (text: string) => style.bold(style.magenta(text)),
    hr: style.dim,
    listitem: plain,
    table: plain,
    paragraph: plain,
    strong: style.bold,
    em: style.italic,
    codespan: style.yellow,
    del: style.dim,
    link: style.cyan,
    href: style.cyan,
    text: plain,
    unescape: true,
    // `:word:` would otherwise become an emoji, also inside times and paths.
    emoji: false,
    width,
    // Headings are told apart by color, so the `##` markers are not repeated.
    showSectionPrefix: false,
    reflowText: true,
    tab: 2,
    // cli-table3 colors by its own guess about the terminal; ours was made already.
    tableOptions: { style: { head: [], border: [] } },
  };
}
