/**
 * How the chat shows a message posted from elsewhere (an MCP App's `ui/message`): whose it is, then
 * its text, control characters taken out (the text comes from a page, not from the person).
 */
import { stripControlCharacters } from '../../safety/output-limits.js';
import type { Display } from './display.js';

export function postedLine(display: Display, from: string, text: string): string {
  const shown = stripControlCharacters(text)
    .split('\n')
    .join(`\n${display.style.dim('… ')}`);
  return `${display.style.magenta(stripControlCharacters(from))} ${display.style.bold('›')} ${shown}\n`;
}
