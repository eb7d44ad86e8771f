/**
 * The width of a text in terminal columns: `string-width`, with a fast path for the text a CLI
 * mostly measures. The bundled executable uses this wherever `string-width` is imported (yargs'
 * help layout, wrap-ansi, the chat: see esbuild.config.mjs).
 *
 * Why: string-width creates an `Intl.Segmenter` when it loads, which loads ICU's segmentation data
 * (20–60 ms on the machines measured), and compiles Unicode property regexes on first use; `mcphost
 * --help` paid both to measure lines of plain ASCII. Text made only of narrow printable characters
 * without escape sequences has one column per code point, so it needs neither; anything else goes
 * to string-width, loaded on first need.
 */
import { createRequire } from 'node:module';

export interface TextWidthOptions {
  readonly ambiguousIsNarrow?: boolean;
  readonly countAnsiEscapeCodes?: boolean;
}

type StringWidth = (text: string, options?: TextWidthOptions) => number;

/**
 * Printable characters one column wide, whatever the options: ASCII, Latin-1 and the Latin
 * extensions up to the combining marks (U+0300) but for the soft hyphen (U+00AD, invisible), and
 * the general punctuation that is not invisible (dashes, quotes, bullets, the ellipsis).
 * The ambiguous-width ones among them (e.g. `…`, `°`) are narrow by string-width's default only.
 */
const NARROW_ALWAYS = /^[\x20-\x7e]*$/;
const NARROW_BY_DEFAULT = /^[\x20-\x7e\u00a0-\u00ac\u00ae-\u02ff\u2010-\u2027\u2030-\u205e]*$/;

let stringWidth: StringWidth | undefined;

function loadStringWidth(): StringWidth {
  // A synchronous load on first need (require of an ES module, Node ≥ 20.19), since callers such
  // as wrap-ansi measure synchronously. Through createRequire so that the bundler leaves it alone.
  const loaded = createRequire(import.meta.url)('string-width') as { default: StringWidth };
  stringWidth = loaded.default;
  return stringWidth;
}

export default function textWidth(text: string, options?: TextWidthOptions): number {
  const narrow = options?.ambiguousIsNarrow === false ? NARROW_ALWAYS : NARROW_BY_DEFAULT;
  if (narrow.test(text)) return text.length; // all in the BMP: one UTF-16 unit a column
  return (stringWidth ?? loadStringWidth())(text, options);
}
