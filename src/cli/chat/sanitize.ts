/**
 * Cleaning text from outside (models, MCP servers) before it reaches the terminal. A server or a
 * model could otherwise move the cursor, rewrite the screen, set the window title or hide text
 * with escape sequences, or reorder what is shown with bidirectional overrides.
 */
import { stripVTControlCharacters } from 'node:util';

/** C0 controls except tab and newline, DEL, and C1 controls (0x9B is an 8-bit CSI). */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;
/** Bidirectional embeddings, overrides and isolates ("Trojan Source"). */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;

/** The text with escape sequences and control characters removed; newlines and tabs kept. */
export function sanitizeText(text: string): string {
  return stripVTControlCharacters(text.replace(/\r\n?/g, '\n'))
    .replace(CONTROL_CHARACTERS, '')
    .replace(BIDI_CONTROLS, '');
}

/** Sanitized, on one line (runs of whitespace, newlines included, become one space). */
export function oneLine(text: string): string {
  return sanitizeText(text).replace(/\s+/g, ' ').trim();
}

/** Cut to `limit` characters with an ellipsis (never splitting a surrogate pair). */
export function shorten(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const characters = Array.from(text);
  if (characters.length <= limit) return text;
  return `${characters.slice(0, Math.max(0, limit - 1)).join('')}…`;
}
