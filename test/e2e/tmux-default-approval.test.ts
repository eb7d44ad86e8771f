/**
 * The chat's approval default (issue 26), in a real terminal (tmux) with the BUILT CLI, the real
 * server-filesystem from npm configured as its README shows, and no approval rule anywhere: a tool
 * whose annotations say read-only runs, `write_file` is asked about first, and a denial reaches the
 * model as an error result. `-p` with the same config still writes without asking. Also: the chat
 * with a lone server whose command does not exist shows its banner and says why. Skipped, saying
 * why, only when tmux is not installed.
 */
import { access, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { textReply, toolCallReply, type FakeChatRequest } from '../fakes/ollama-server.js';
import { npmServerConfig, runCli } from '../support/cli.js';
import { PROMPT, useChatTerminal } from '../support/chat-terminal.js';
import { tmuxAvailable } from '../support/tmux.js';
import { unwrapped } from '../support/untrusted.js';

const hasTmux = tmuxAvailable();
if (!hasTmux)
  console.warn('tmux is not installed: skipping the default-approval terminal tests (apt-get install tmux)');

const QUESTION = 'Allow? [y] once  [t] always this tool  [s] always this server';

const fixture = useChatTerminal();
let notes: string;

/** What the model was given last, when it was a tool result: its text and whether it failed. */
function lastToolResult(request: FakeChatRequest): string | undefined {
  const last = request.messages.at(-1);
  return last?.role === 'tool' ? unwrapped(last.content).replace(/\s+/g, ' ') : undefined;
}

beforeEach(async () => {
  notes = await fixture.temporaryFolder('mcphost-notes-');
  await writeFile(join(notes, 'todo.txt'), 'buy mangoes\n');
  await fixture.home.writeConfig({ mcpServers: { filesystem: npmServerConfig('filesystem', notes) } });
  // "read" makes the model read todo.txt, "write N" write N.txt; with a result, it repeats it.
  await fixture.startModel([], {
    fallback: (request) => {
      const result = lastToolResult(request);
      if (result !== undefined) return textReply(`model saw: ${result}`);
      const prompt = request.messages.at(-1)?.content ?? '';
      return prompt.startsWith('read')
        ? toolCallReply(['filesystem__read_text_file', { path: join(notes, 'todo.txt') }])
        : toolCallReply([
            'filesystem__write_file',
            { path: join(notes, `${prompt.split(' ')[1] ?? 'x'}.txt`), content: 'written' },
          ]);
    },
  });
});

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

describe.skipIf(!hasTmux)('the chat with no approval rule', () => {
  it('reads without asking, asks before write_file, and a denial is an error result for the model', async () => {
    // Run in the notes folder, so the server's roots (the working folder) and its argument agree.
    const chat = await fixture.startChat({ args: ['--no-color'], cwd: notes, columns: 200 });

    chat.type('read');
    chat.keys('Enter');
    let screen = await chat.waitFor('model saw: buy mangoes');
    expect(screen).not.toContain(QUESTION);

    chat.type('write one');
    chat.keys('Enter');
    screen = await chat.waitFor(QUESTION);
    expect(screen).toContain('filesystem__write_file');
    expect(screen).toContain('the tool does not say it is read-only');
    expect(await exists(join(notes, 'one.txt'))).toBe(false);
    chat.type('n');
    chat.keys('Enter');
    await chat.waitFor('Reason, for the model');
    chat.keys('Enter');
    screen = await chat.waitFor(/model saw: .*denied the call to filesystem__write_file/);
    expect(await exists(join(notes, 'one.txt'))).toBe(false);
    const denied = fixture.model.chatRequests.at(-1)?.messages.at(-1);
    expect(denied?.role).toBe('tool');

    chat.type('write two');
    chat.keys('Enter');
    await chat.waitFor((text) => text.split(QUESTION).length === 3);
    chat.type('y');
    chat.keys('Enter');
    await chat.waitFor(/model saw: Successfully wrote to .*two\.txt/);
    expect(await readFile(join(notes, 'two.txt'), 'utf8')).toBe('written');

    chat.keys('C-d');
    expect(await chat.waitForExit()).toBe(0);
  });

  it('-p with the same config writes without asking, as before', async () => {
    const run = await runCli(['-p', 'write three', '--provider-url', fixture.model.url], fixture.home.path, {
      cwd: notes,
    });
    expect(run.stdout).toMatch(/model saw: Successfully wrote to .*three\.txt/);
    expect(run.code).toBe(0);
    expect(await readFile(join(notes, 'three.txt'), 'utf8')).toBe('written');
  });
});

describe.skipIf(!hasTmux)('the chat with a lone server that cannot start', () => {
  it('shows its banner and says which server failed and why', async () => {
    await fixture.home.writeConfig({ mcpServers: { typo: { command: 'no-such-cmd' } } });
    const chat = await fixture.startChat({ args: ['--no-color'], columns: 200 });
    const screen = await chat.waitFor(PROMPT);
    expect(screen).toContain(
      'server "typo" failed to start: no such command "no-such-cmd" (is it installed and on PATH?)',
    );
    expect(screen).toContain('1 failed (see /servers)');
    chat.keys('C-d');
    expect(await chat.waitForExit()).toBe(0);
  });
});
