/**
 * Cleaning text from outside (models, MCP servers) before it reaches the terminal. A server or a
 * model could otherwise move the cursor, rewrite the screen, set the window title or hide text
 * with escape sequences, or reorder what is shown with bidirectional overrides.
 */
import { stripControlCharacters } from '../../safety/terminal-text.js';

/**
 * The text with escape sequences and control characters removed; newlines and tabs kept. The
 * safety layer's {@link stripControlCharacters}, under the chat's name.
 */
export function sanitizeText(text: string): string {
  return stripControlCharacters(text);
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
