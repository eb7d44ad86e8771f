/**
 * `/apps`: MCP Apps' local page (served now if no app has opened it yet) and the apps of this
 * session, newest first, each with the tool call it belongs to and where the page shows it.
 */
import { stripControlCharacters } from '../../safety/output-limits.js';
import { show, type AppsListing, type ChatCommand } from './command-table.js';
import type { Style } from './style.js';

export const APPS_COMMANDS: readonly ChatCommand[] = [
  {
    name: '/apps',
    summary: "show the MCP Apps page (tools' interfaces, with --apps) and this session's apps",
    run: async (_, context) => {
      if (context.apps === undefined) {
        return show(
          "MCP Apps are off: start mcphost with --apps to see tools' interfaces in a local browser page.",
        );
      }
      return show(listApps(await context.apps(), context.style));
    },
  },
];

/** The page's address, then one line per app. */
export function listApps(listing: AppsListing, style: Style): string {
  const lines = [`Apps page: ${listing.url}`];
  if (listing.apps.length === 0) {
    lines.push('No app yet: a tool with an interface opens one when it is called.');
    return lines.join('\n');
  }
  lines.push(`Apps of this session (${listing.apps.length}, newest first):`);
  for (const app of listing.apps) {
    const name = `${stripControlCharacters(app.server)}/${stripControlCharacters(app.tool)}`;
    const state = app.closed ? style.dim('closed') : 'open';
    lines.push(`  ${style.bold(name)}  ${state}  ${style.dim(`${app.id}  ${app.url}`)}`);
  }
  return lines.join('\n');
}
