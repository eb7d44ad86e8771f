/**
 * What the chat draws, in a real terminal (tmux) with the BUILT CLI against the fake Ollama and real
 * MCP servers: tables and /help within the terminal's width, the spinner's clock per turn, a tool's
 * progress in the status line, a tool's duration without its approval question, Ctrl-C at that
 * question, and `-p … --no-exit` shown as a chat turn.
 */
import { describe, expect, it } from 'vitest';
import { heldReply, textReply, toolCallReply, type FakeOllamaScriptItem } from '../fakes/ollama-server.js';
import { EVERYTHING_SERVER } from '../support/cli.js';
import { PROMPT, useChatTerminal } from '../support/chat-terminal.js';
import { tmuxAvailable, type TmuxTerminal } from '../support/tmux.js';

const hasTmux = tmuxAvailable();
if (!hasTmux)
  console.warn('tmux is not installed: skipping the terminal display tests (apt-get install tmux)');

const QUESTION = 'Allow? [y] once';

const fixture = useChatTerminal();

interface ChatRun {
  readonly script: readonly FakeOllamaScriptItem[];
  readonly config?: Record<string, unknown>;
  readonly args?: readonly string[];
  readonly columns?: number;
  /** Wait for this before the test goes on (default: the prompt). */
  readonly ready?: string;
}

async function startChat(run: ChatRun): Promise<TmuxTerminal> {
  await fixture.home.writeConfig({ mcpServers: {}, ...run.config });
  await fixture.startModel(run.script);
  return fixture.startChat({ args: run.args, columns: run.columns ?? 100, ready: run.ready ?? PROMPT });
}

/** The screen's rows, each joined back if the terminal wrapped it (capture-pane -J). */
function joinedLines(chat: TmuxTerminal): string[] {
  return chat.capture().split('\n');
}

const TABLE =
  '| Name | Size | Description |\n|:-----|-----:|:------------|\n' +
  `| alpha | 1 | ${'a long description of the thing '.repeat(4).trim()} |\n| b | 12345 | short |\n`;

describe.skipIf(!hasTmux)('the chat draws within the terminal', () => {
  it('fits a wide table and /help into a narrow terminal, right-aligned columns right-aligned', async () => {
    const chat = await startChat({ script: [textReply(TABLE)], columns: 50 });
    chat.type('a table please');
    chat.keys('Enter');
    await chat.waitFor(/tokens in/);
    chat.type('/help');
    chat.keys('Enter');
    await chat.waitFor(/Start a\s+message with/);
    const lines = joinedLines(chat);
    // No row of the table or of /help was wrapped by the terminal: each fits its 50 columns.
    const table = lines.filter((line) => /^[┌│├└]/.test(line));
    const help = lines.slice(lines.indexOf('Commands:'));
    expect(table.length).toBeGreaterThan(6);
    expect(help.length).toBeGreaterThan(14);
    for (const line of [...table, ...help]) expect(line.length, line).toBeLessThanOrEqual(50);
    const rows = lines.filter((line) => line.startsWith('│'));
    expect(rows.length).toBeGreaterThan(4);
    for (const row of rows) expect(row.endsWith('│'), row).toBe(true);
    // Size is right-aligned.
    expect(lines.find((line) => line.includes('alpha'))).toMatch(/│ alpha │ {5}1 │/);
    chat.keys('C-d');
    expect(await chat.waitForExit()).toBe(0);
  });

  it("starts each turn's spinner at zero, and shows a tool's progress in it", async () => {
    const first = heldReply(textReply('first answer'));
    const second = heldReply(textReply('second answer'));
    const chat = await startChat({
      config: { mcpServers: { everything: EVERYTHING_SERVER } },
      script: [
        first.item,
        second.item,
        toolCallReply(['everything__trigger-long-running-operation', { duration: 4, steps: 4 }]),
        textReply('operation done'),
      ],
      columns: 140,
    });
    chat.type('one');
    chat.keys('Enter');
    // The first turn thinks for 3 seconds or more.
    await chat.waitFor(/thinking [3-9]\.\ds/, { timeoutMs: 20_000 });
    first.release();
    await chat.waitFor('first answer');
    await chat.waitFor((text) => text.trimEnd().endsWith(PROMPT));
    chat.type('two');
    chat.keys('Enter');
    const screen = await chat.waitFor(/thinking \d/);
    // The second turn's clock starts again (it used to go on from the first's).
    expect(screen.slice(screen.lastIndexOf(`${PROMPT} two`))).toMatch(/thinking [0-2]\.\ds/);
    second.release();
    await chat.waitFor('second answer');
    await chat.waitFor((text) => text.trimEnd().endsWith(PROMPT));

    chat.type('run the long one');
    chat.keys('Enter');
    await chat.waitFor(/running trigger-long-running-operation on everything — \d+% \(\d\/4\)/, {
      timeoutMs: 20_000,
    });
    await chat.waitFor('operation done', { timeoutMs: 20_000 });
    chat.keys('C-d');
    expect(await chat.waitForExit()).toBe(0);
  });

  it('-p with --no-exit shows the first turn under the banner, with its prompt and token line', async () => {
    const chat = await startChat({
      script: [textReply('first answer'), textReply('second answer')],
      args: ['-p', 'first question', '--no-exit'],
      ready: 'first answer',
    });
    const screen = await chat.waitFor((text) => text.trimEnd().endsWith(PROMPT));
    const banner = screen.indexOf('mcphost · ollama:mistral-small');
    const asked = screen.indexOf(`${PROMPT} first question`);
    const answered = screen.indexOf('first answer');
    const tokens = screen.search(/\d+ tokens in · \d+ out/);
    expect(banner).toBeGreaterThanOrEqual(0);
    expect(asked).toBeGreaterThan(banner);
    expect(answered).toBeGreaterThan(asked);
    expect(tokens).toBeGreaterThan(answered);
    chat.type('next');
    chat.keys('Enter');
    await chat.waitFor('second answer');
    chat.keys('C-d');
    expect(await chat.waitForExit()).toBe(0);
  });
});

describe.skipIf(!hasTmux)('the approval question on screen', () => {
  const config = {
    mcpServers: { everything: EVERYTHING_SERVER },
    approval: { default: 'allow', rules: [{ tool: 'everything__echo', decision: 'ask' }] },
  };

  it("leaves the time spent answering out of the tool's duration", async () => {
    const chat = await startChat({
      config,
      script: [toolCallReply(['everything__echo', { message: 'hi' }]), textReply('echoed')],
    });
    chat.type('echo hi');
    chat.keys('Enter');
    await chat.waitFor(QUESTION);
    // The user takes a while to answer.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    chat.type('y');
    chat.keys('Enter');
    const screen = await chat.waitFor('echoed');
    const duration = /← everything__echo \((\d+\.\d)s\)/.exec(screen)?.[1];
    expect(Number(duration)).toBeLessThan(2);
    chat.keys('C-d');
    expect(await chat.waitForExit()).toBe(0);
  });

  it('Ctrl-C at the question leaves the question line clean, and the chat goes on', async () => {
    const chat = await startChat({
      config,
      script: [toolCallReply(['everything__echo', { message: 'hi' }]), textReply('after')],
    });
    chat.type('echo hi');
    chat.keys('Enter');
    await chat.waitFor(QUESTION);
    chat.keys('C-c');
    const screen = await chat.waitFor(
      (text) => text.includes('cancelled') && text.trimEnd().endsWith(PROMPT),
    );
    const lines = screen.split('\n');
    const question = lines.find((line) => line.includes(QUESTION)) ?? '';
    // The question line holds the question and ^C: no spinner frame, label or clock on it.
    expect(question).toMatch(/\[x\] always deny this tool: \^C$/);
    expect(screen).not.toMatch(/Ctrl-C to stop/);
    chat.keys('C-d');
    expect(await chat.waitForExit()).toBe(0);
  });
});
