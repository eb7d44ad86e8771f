/**
 * Tab completion of server offerings and resource updates in the chat, in a real terminal (tmux,
 * the BUILT CLI), with the real server-everything and a 2026-07-28 v2-SDK fixture server:
 * prompt argument values (narrowed by the ones before), template variables, the answer to a
 * missing argument, prompts in /help, a slow server that must not hold typing, and the note for
 * an attached resource that changed. And the shell's completion script in a real bash:
 * `--builtin <Tab>` offers the built-in server names, not the flags.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { textReply, toolCallReply } from '../fakes/ollama-server.js';
import { REPOSITORY, EVERYTHING_SERVER } from '../support/cli.js';
import { PROMPT, useChatTerminal } from '../support/chat-terminal.js';
import { TmuxTerminal, tmuxAvailable } from '../support/tmux.js';

const hasTmux = tmuxAvailable();
const LISTS = {
  command: process.execPath,
  args: [join(REPOSITORY, 'test/fixtures/servers/changing-lists.mjs')],
};

// Not a test of approval: the user allows every tool (the chat asks before any that does not say
// it is read-only).
const fixture = useChatTerminal({
  config: { mcpServers: { everything: EVERYTHING_SERVER, lists: LISTS }, approval: { default: 'allow' } },
});

/** Waits until `last` is on screen with a fresh prompt after it (Tab is for what is typed at a prompt). */
const promptAfter = (chat: TmuxTerminal, last: string) =>
  chat.waitFor((screen) => {
    const at = screen.lastIndexOf(last);
    return at >= 0 && screen.slice(at).trimEnd().endsWith(`\n${PROMPT}`);
  });

const echo = (request: { messages: ReadonlyArray<{ content: string }> }) =>
  textReply(`model got: ${request.messages.at(-1)?.content ?? ''}`);

describe.skipIf(!hasTmux)('Tab completion of server offerings in the chat', () => {
  it('completes prompt names and argument values, and the answer to a missing argument', async () => {
    await fixture.startModel([echo, echo]);
    const chat = await fixture.startChat();
    chat.keys('Enter');
    chat.type('/help');
    chat.keys('Enter');
    await chat.waitFor('/lists:paint <color> <shade>');
    await promptAfter(chat, '/lists:slow <word>');

    chat.type('/everything:completable-p');
    chat.keys('Tab');
    // On the input line, not in /help's list above it: typing on before the Tab is answered would
    // reach readline with the Tab in one chunk, which it takes for pasted text (a literal tab).
    await chat.waitFor((screen) =>
      (screen.trimEnd().split('\n').at(-1) ?? '').endsWith('/everything:completable-prompt'),
    );
    chat.type('Eng');
    chat.keys('Tab');
    await chat.waitFor('/everything:completable-prompt Engineering');
    // The second argument's values depend on the first: Engineering's people.
    chat.type(' A');
    chat.keys('Tab');
    await chat.waitFor('completable-prompt Engineering Alice');
    chat.keys('Enter');
    await promptAfter(chat, 'model got: Please promote Alice to the head of the Engineering team.');

    chat.type('/lists:paint blue');
    chat.keys('Enter');
    await chat.waitFor('/lists:paint needs shade (A shade of the color):');
    chat.type('n');
    chat.keys('Tab');
    await chat.waitFor('needs shade (A shade of the color): navy');
    chat.keys('Enter');
    await chat.waitFor('model got: Paint it navy blue.');
  });

  it('completes resource template variables after @server:, and keeps typing going past a slow server', async () => {
    await fixture.startModel([echo, echo]);
    const chat = await fixture.startChat();
    chat.type('read @lists:fixture://items/apr');
    // The completer gives a server 1 s (see below); a server just started on a loaded machine may
    // miss that once, and then nothing is completed, as when a user would press Tab again.
    for (let tries = 1; ; tries++) {
      chat.keys('Tab');
      try {
        await chat.waitFor('read @lists:fixture://items/apricot', { timeoutMs: 4_000 });
        break;
      } catch (error) {
        if (tries === 3) throw error;
      }
    }
    chat.keys('Enter');
    await chat.waitFor('attached @lists:fixture://items/apricot');
    await chat.waitFor('item apricot');
    await promptAfter(chat, '</untrusted-resource>');

    // The server answers this completion after 5 s; Tab gives up after 1 s and typing goes on.
    const started = Date.now();
    chat.type('/lists:slow w');
    chat.keys('Tab');
    // Node's readline completes on Tab only when the Tab comes alone in one read from the terminal
    // (more at once is taken for a paste, and the Tab for a character). A person's next key comes
    // much later; on a loaded machine tmux's next send-keys may not, and "ord" would join the Tab.
    await new Promise((resolve) => setTimeout(resolve, 250));
    chat.type('ord');
    chat.keys('Enter');
    await chat.waitFor('model got: word');
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(chat.capture()).not.toContain('w-late');
  });

  it('shows a one-line note when an attached resource changes on its server', async () => {
    await fixture.startModel([toolCallReply(['lists__touch-note', {}]), textReply('touched it')]);
    const chat = await fixture.startChat();
    chat.type('watch @lists:fixture://note');
    chat.keys('Enter');
    await chat.waitFor('subscribed to @lists:fixture://note: its updates will be shown');
    await chat.waitFor('↻ @lists:fixture://note changed on the server');
    await chat.waitFor('touched it');
  });
});

describe.skipIf(!hasTmux)('shell completion in a real bash', () => {
  it('completes --builtin with the built-in server names, one after another in a list', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'mcphost-completion-'));
    const script = join(folder, 'completion.bash');
    // The script as the built CLI prints it.
    const printed = spawnSync(
      process.execPath,
      [join(REPOSITORY, 'dist/bin/mcphost.js'), 'completion', 'bash'],
      {
        env: { PATH: process.env.PATH ?? '', HOME: folder },
      },
    );
    await writeFile(script, printed.stdout);
    const shell = await TmuxTerminal.start({
      command: ['bash', '--norc', '--noprofile', '-i'],
      env: { PATH: process.env.PATH ?? '', HOME: folder, TERM: 'xterm', PS1: '$ ' },
      cwd: folder,
    });
    try {
      shell.type(`source ${script}`);
      shell.keys('Enter');
      shell.type('mcphost --builtin ');
      shell.keys('Tab', 'Tab');
      // bash lists the candidates under the line, then prints the line again.
      await shell.waitFor(/bash\s+fetch\s+fs\s+todo/);
      expect(shell.capture()).not.toContain('--approve-all');
      shell.type('fs,to');
      shell.keys('Tab');
      await shell.waitFor('$ mcphost --builtin fs,todo');
    } finally {
      await shell.close();
      await rm(folder, { recursive: true, force: true });
    }
  });
});
