/**
 * The chat's question when an MCP App asks to open a link (`ui/open-link`): the app and the
 * address are shown (cleaned: a page chose them), and only a "y" opens it, in the system browser
 * where there is one. Any other answer, an ended input or a cancelled question keeps it closed.
 */
import type { HostedApp } from '../../apps/hosted-app.js';
import { stripControlCharacters } from '../../safety/output-limits.js';
import { openInBrowser } from '../browser.js';
import type { CliIO } from '../io.js';
import { askOnce, type PromptIO } from './ask-answer.js';

/** The apps' `openLink` for the chat. */
export function createOpenLinkPrompt(
  io: PromptIO,
  env: CliIO['env'],
  open: (url: string, env: CliIO['env']) => Promise<boolean> = openInBrowser,
): (request: { readonly app: HostedApp; readonly url: string }) => Promise<boolean> {
  return async ({ app, url }) => {
    io.write(
      `The app of ${stripControlCharacters(app.call.name)} (${app.id}) asks to open a link:\n  ${stripControlCharacters(url)}\n`,
    );
    const answer = await askOnce(io, 'Open it in the browser? [y] yes  [n] no: ');
    if (answer?.trim().toLowerCase() !== 'y' && answer?.trim().toLowerCase() !== 'yes') return false;
    // Where there is no browser (SSH, no display) the address is on screen; the app is told no.
    const opened = await open(url, env);
    if (!opened) io.write('No browser here: the address is above, to open yourself.\n');
    return opened;
  };
}
