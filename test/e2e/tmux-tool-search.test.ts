/**
 * The tool-search line and the servers' roots in the chat, in a real terminal (tmux, the BUILT CLI):
 * with `--tool-search always` the banner and `/tools` say the model gets the search, why, and how
 * to turn it off; a turn does not repeat the banner's line. `/servers` shows each server's roots:
 * server-filesystem keeps the folder of its arguments, the others get the working folder.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { textReply } from '../fakes/ollama-server.js';
import { EVERYTHING_SERVER, npmServerConfig } from '../support/cli.js';
import { useChatTerminal } from '../support/chat-terminal.js';
import { tmuxAvailable, type TmuxTerminal } from '../support/tmux.js';

const hasTmux = tmuxAvailable();
const fixture = useChatTerminal();

function enter(chat: TmuxTerminal, text: string): void {
  chat.type(text);
  chat.keys('Enter');
}

const LINE = 'tool search on: toolSearch is "always" (';

describe.skipIf(!hasTmux)('the tool search and roots in the chat', () => {
  it('banner and /tools say the search is on with --tool-search always; a turn does not repeat it', async () => {
    await fixture.startModel([textReply('Hello.')]);
    const notes = join(await fixture.temporaryFolder('mcphost-tmux-notes-'), 'notes');
    await mkdir(notes);
    await fixture.home.writeConfig({
      mcpServers: { filesystem: npmServerConfig('filesystem', notes), everything: EVERYTHING_SERVER },
    });
    const chat = await fixture.startChat({ args: ['--tool-search', 'always'] });
    const banner = chat.capture();
    expect(banner).toMatch(
      /tool search on: toolSearch is "always" \(\d+ tools\); --tool-search auto turns it on only when needed/,
    );

    enter(chat, '/tools');
    await chat.waitFor('(the model gets tool_search and the 0 tools it loaded)');
    expect(chat.capture().split(LINE)).toHaveLength(3); // the banner's and /tools'

    enter(chat, 'hi');
    await chat.waitFor('Hello.');
    // The turn's mode is the banner's: not said again.
    expect(chat.capture().split(LINE)).toHaveLength(3);
    // The host's own tools are always sent: server-everything has resources, so the resource tools.
    expect(fixture.model.chatRequests[0]?.tools?.map((tool) => tool.function.name)).toEqual([
      'tool_search',
      'list_mcp_resources',
      'read_mcp_resource',
    ]);

    enter(chat, '/servers');
    await chat.waitFor(`roots: ${notes} (named in its arguments)`);
    expect(chat.capture()).toContain(`roots: ${fixture.home.path} (the working folder)`);
  });

  it('says nothing of a search when every definition is sent', async () => {
    // A 32k window (the model's Modelfile num_ctx): server-everything's definitions fit a quarter.
    await fixture.startModel([textReply('Hello.')], { numCtx: 32_768 });
    await fixture.home.writeConfig({ mcpServers: { everything: EVERYTHING_SERVER } });
    const chat = await fixture.startChat();
    enter(chat, '/tools');
    await chat.waitFor('everything');
    expect(chat.capture()).not.toContain('tool search on');
  });
});
