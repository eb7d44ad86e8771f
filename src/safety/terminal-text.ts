/**
 * Text from outside (a model, an MCP server, a config file) made safe to show on a terminal. It
 * could otherwise move the cursor, rewrite or clear the screen, set the window title, plant a
 * hyperlink, hide text, or reorder what is shown with bidirectional overrides ("Trojan Source").
 *
 * The one implementation: the safety layer (tool results, approval questions, server logs) and the
 * chat's rendering all use it, so a fix here protects every place that prints.
 */

/**
 * Escape sequences, removed whole: CSI (colours, cursor moves; also the 8-bit CSI 0x9B), OSC
 * (titles, hyperlinks; up to BEL or ST), DCS/SOS/PM/APC (up to ST), and the short ones (character
 * sets, `ESC 7`, `ESC c`…). An unterminated string sequence is removed to the end of the text, as a
 * terminal would have swallowed it. Other 8-bit C1 introducers are removed by
 * {@link CONTROL_CHARACTERS}, which leaves what would have been their payload as inert text.
 */
const ESCAPE_SEQUENCES =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[PX^_][^\x1b]*(?:\x1b\\)?|\x1b[ -/]*[0-~]?/g;

/**
 * C0 controls except tab and line feed (a lone carriage return could overwrite what is shown
 * before it on the line), DEL, C1 controls, and the bidirectional embeddings, overrides and
 * isolates.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTERS = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text safe to print on a terminal: escape sequences and control characters removed, `\r\n`
 * turned into `\n`. Tabs, line feeds and every printable character (any script, emoji) stay.
 */
export function stripControlCharacters(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(ESCAPE_SEQUENCES, '').replace(CONTROL_CHARACTERS, '');
}
