/**
 * The chat in a real terminal: tmux runs the BUILT CLI (`npm run build` first) against the
 * loopback fake Ollama and real MCP servers; keys go in with send-keys, the screen comes back
 * with capture-pane. Skipped, saying why, only when tmux is not installed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  heldReply,
  textReply,
  toolCallReply,
  type FakeChatRequest,
  type FakeOllamaScriptItem,
} from '../fakes/ollama-server.js';
import { isAlive, REPOSITORY, runCli, EVERYTHING_SERVER } from '../support/cli.js';
import { PROMPT, useChatTerminal } from '../support/chat-terminal.js';
import { tmuxAvailable, type TmuxTerminal } from '../support/tmux.js';
import { loadSavedConversation } from '../../src/conversation/saved-conversation.js';
import { enveloped, unwrapped } from '../support/untrusted.js';

const hasTmux = tmuxAvailable();
if (!hasTmux) console.warn('tmux is not installed: skipping the terminal tests (apt-get install tmux)');

const ESC = '\u001B';
const slow = { command: process.execPath, args: [join(REPOSITORY, 'test/fixtures/servers/slow-tool.mjs')] };

const fixture = useChatTerminal();

interface ChatRun {
  readonly script?: readonly FakeOllamaScriptItem[];
  readonly servers?: Record<string, unknown>;
  readonly args?: readonly string[];
  readonly env?: Record<string, string>;
}

/** A chat on `run.servers`; the fake model is started with `run.script` unless it runs already. */
async function startChat(run: ChatRun = {}): Promise<TmuxTerminal> {
  // Not a test of approval: the user allows every tool (the chat asks before any that does not
  // say it is read-only).
  await fixture.home.writeConfig({ mcpServers: run.servers ?? {}, approval: { default: 'allow' } });
  if (!fixture.hasModel) await fixture.startModel(run.script ?? []);
  return fixture.startChat({ args: run.args, env: run.env });
}

/** The conversation part of a request (the system prompt, with the default clause, left out). */
function withoutSystem(request: FakeChatRequest | undefined): FakeChatRequest['messages'] {
  return (request?.messages ?? []).filter((message) => message.role !== 'system');
}

function roles(request: FakeChatRequest | undefined): string[] {
  return (request?.messages ?? [])
    .filter((message) => message.role !== 'system')
    .map((message) => message.role);
}

/** The lines after the last prompt line that holds `entry`. */
function after(screen: string, entry: string): string {
  const index = screen.lastIndexOf(`${PROMPT} ${entry}`);
  return index === -1 ? '' : screen.slice(index);
}

/** A chat with the spawner fixture as its server, after one turn that asked for its pids. */
async function chatWithSpawner(command: readonly string[]) {
  const [program = process.execPath, ...args] = command;
  const chat = await startChat({
    servers: { spawner: { command: program, args } },
    script: [
      toolCallReply(['spawner__pids', {}]),
      (request) => textReply(`pids: ${unwrapped(request.messages.at(-1)?.content ?? '')}`),
    ],
  });
  chat.type('which pids?');
  chat.keys('Enter');
  const screen = await chat.waitFor(/pids: \{"pid":\d+,"childPid":\d+\}/);
  const pids = JSON.parse(/pids: (\{.*\})/.exec(screen)?.[1] ?? '{}') as { pid: number; childPid: number };
  // The answer shows before the turn has ended (the token line, the save); a key pressed before the
  // prompt is back would act on the turn, not on the prompt.
  await chat.waitFor((text) => /tokens in[^\n]*\n+[^\n]*›$/.test(text.trimEnd()));
  return { chat, ...pids };
}

const SPAWNER = join(REPOSITORY, 'test/fixtures/servers/spawner.mjs');

describe.skipIf(!hasTmux)('the chat in a real terminal', () => {
  it('shows a spinner while the model thinks, streams the answer, then shows it rendered', async () => {
    const held = heldReply({
      type: 'answer',
      text: ['# Fruit', ' report\n\nMangoes are **sweet**', ' and `ripe`.\n\n- one\n- two\n'],
    });
    const chat = await startChat({
      script: [held.item, { type: 'stall', text: ['Streaming as it ', 'arrives'] }, textReply('Fine again.')],
    });
    chat.type('tell me about fruit');
    chat.keys('Enter');
    await chat.waitFor(/thinking \d/);
    held.release();
    // The turn is over once its token counts are shown.
    const screen = await chat.waitFor((text) => /tokens in/.test(after(text, 'tell me about fruit')));
    const answer = after(screen, 'tell me about fruit');
    // Rendered: no markdown markers left, and the spinner is gone.
    expect(answer).toContain('Fruit report');
    expect(answer).not.toContain('# Fruit');
    expect(answer).toContain('Mangoes are sweet and ripe.');
    expect(answer).not.toContain('**');
    expect(answer).toContain('  * one\n  * two');
    expect(answer).not.toMatch(/thinking/);
    expect(answer).toMatch(/\d+ tokens in · \d+ out/);
    // Bold is bold on screen.
    expect(chat.capture({ escapes: true })).toMatch(new RegExp(`${ESC}\\[1m[^\\n]*sweet`));

    // The next answer streams: its first words are on screen while the model still holds the line.
    chat.type('and now stream');
    chat.keys('Enter');
    await chat.waitFor((text) => after(text, 'and now stream').includes('Streaming as it arrives'));
    chat.keys('C-c');
    await chat.waitFor((text) => after(text, 'and now stream').includes('cancelled'));
    // The model's stream was aborted: the fake's held-open answer has been hung up on.
    await fixture.model.waitForIdle();
    await chat.waitFor((text) => text.trimEnd().endsWith(PROMPT));
    chat.type('still there?');
    chat.keys('Enter');
    await chat.waitFor((text) => after(text, 'still there?').includes('Fine again.'));
    // The cancelled turn left nothing behind; the first turn is still in the history.
    expect(withoutSystem(fixture.model.chatRequests.at(-1)).map((message) => message.content)).toEqual([
      'tell me about fruit',
      '# Fruit report\n\nMangoes are **sweet** and `ripe`.\n\n- one\n- two\n',
      'still there?',
    ]);
  });

  it('shows a tool call on a real server, its result, and the history across turns', async () => {
    const chat = await startChat({
      servers: { everything: EVERYTHING_SERVER },
      script: [
        toolCallReply(['everything__echo', { message: 'ping from the model' }]),
        (request) => textReply(`The tool said: ${unwrapped(request.messages.at(-1)?.content ?? '')}`),
        (request) => textReply(`You said ${withoutSystem(request).length} things.`),
      ],
    });
    chat.type('use the echo tool');
    chat.keys('Enter');
    const screen = await chat.waitFor('The tool said: Echo: ping from the model');
    const turn = after(screen, 'use the echo tool');
    expect(turn).toContain('→ everything__echo {"message":"ping from the model"}');
    expect(turn).toMatch(/ {2}← everything__echo \(\d+\.\ds\) Echo: ping from the model/);
    chat.type('and again');
    chat.keys('Enter');
    await chat.waitFor('You said 5 things.');
    expect(roles(fixture.model.chatRequests[2])).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
    // The request carries the result marked as data from outside; the screen shows the plain text.
    expect(withoutSystem(fixture.model.chatRequests[2])[2]?.content).toBe(
      enveloped('everything__echo', 'Echo: ping from the model'),
    );
  });

  it('Ctrl-C while a tool runs cancels it on its server, and the history stays answered', async () => {
    const chat = await startChat({
      servers: { slow },
      args: ['--debug'],
      script: [toolCallReply(['slow__sleep', { ms: 600_000 }]), textReply('Ready when you are.')],
    });
    chat.type('take your time');
    chat.keys('Enter');
    // The spinner says which tool runs on which server, and for how long.
    await chat.waitFor(/running sleep on slow \d/);
    chat.keys('C-c');
    // The server was told (its stderr, shown with --debug) and the chat is back at the prompt.
    await chat.waitFor(/\[slow\] .*(cancelled|stopped) request/);
    await chat.waitFor('cancelled');
    chat.type('hello again');
    chat.keys('Enter');
    await chat.waitFor('Ready when you are.');
    const messages = withoutSystem(fixture.model.chatRequests[1]);
    expect(roles(fixture.model.chatRequests[1])).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(messages[1]?.tool_calls?.[0]?.function.name).toBe('slow__sleep');
    expect(messages[2]?.content).toMatch(/cancelled/);
  });

  it('knows every slash command, completes them with Tab, and sends none to the model', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'mcphost-save-'));
    try {
      const chat = await startChat({
        servers: {
          everything: EVERYTHING_SERVER,
          broken: {
            command: process.execPath,
            args: [join(REPOSITORY, 'test/fixtures/servers/fail-on-start.mjs')],
          },
        },
        script: [textReply('First answer.'), textReply('After the switch.'), textReply('After clearing.')],
      });
      chat.type('/he');
      chat.keys('Tab');
      await chat.waitFor(`${PROMPT} /help`);
      chat.keys('Enter');
      await chat.waitFor('/model provider:model');
      chat.type('/tools');
      chat.keys('Enter');
      await chat.waitFor(/everything \(\d+ tools\)\n {2}echo +Echoes back the input/);
      chat.type('/servers');
      chat.keys('Enter');
      await chat.waitFor(
        / {2}everything +ready +\d+ tools +stdio, pid \d+\n {4}roots: \S+ \(the working folder\)\n {2}broken +failed +0 tools/,
      );
      chat.type('/wat');
      chat.keys('Enter');
      await chat.waitFor('Unknown command /wat');
      chat.type('hello');
      chat.keys('Enter');
      await chat.waitFor('First answer.');
      chat.type('/history');
      chat.keys('Enter');
      await chat.waitFor(/you +hello\nassistant +First answer\./);
      chat.type('/usage');
      chat.keys('Enter');
      await chat.waitFor(/This session: 1 turn, 1 model call\nTokens: \d+ in · \d+ out/);
      const file = join(folder, 'chat.json');
      chat.type(`/save ${file}`);
      chat.keys('Enter');
      await chat.waitFor(`Saved the conversation (2 messages) to ${file}.`);
      expect(await loadSavedConversation(file)).toMatchObject({
        model: 'ollama:mistral-small',
        messages: [{ role: 'user' }, { role: 'assistant' }],
      });
      chat.type('/model nosuch:thing');
      chat.keys('Enter');
      await chat.waitFor(/unknown provider "nosuch".*\(still using ollama:mistral-small\)/);
      chat.type('/model ollama:llama3.2');
      chat.keys('Enter');
      await chat.waitFor('ollama:llama3.2 ›');
      chat.type('which model?');
      chat.keys('Enter');
      await chat.waitFor('After the switch.');
      expect(fixture.model.chatRequests[1]?.model).toBe('llama3.2');
      expect(roles(fixture.model.chatRequests[1])).toEqual(['user', 'assistant', 'user']);
      chat.type('/clear');
      chat.keys('Enter');
      await chat.waitFor('Started a new conversation.');
      chat.type('fresh start');
      chat.keys('Enter');
      await chat.waitFor('After clearing.');
      expect(roles(fixture.model.chatRequests[2])).toEqual(['user']);
      // Only the three prompts reached the model.
      expect(fixture.model.chatRequests).toHaveLength(3);
      chat.type('/quit');
      chat.keys('Enter');
      expect(await chat.waitForExit()).toBe(0);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('keeps pasted lines together, and remembers input across runs', async () => {
    let chat = await startChat({ script: [textReply('Got both lines.'), textReply('Again.')] });
    chat.paste('line one\nline two');
    chat.keys('Enter');
    await chat.waitFor('Got both lines.');
    expect(fixture.model.chatRequests[0]?.messages.at(-1)?.content).toBe('line one\nline two');
    chat.keys('C-d');
    expect(await chat.waitForExit()).toBe(0);
    await chat.close();
    // A new run: Up brings back the pasted entry, whole.
    chat = await startChat();
    chat.keys('Up', 'Enter');
    await chat.waitFor('Again.');
    expect(fixture.model.chatRequests[1]?.messages.at(-1)?.content).toBe('line one\nline two');
  });

  it('writes no color at all with NO_COLOR, or with --no-color', async () => {
    for (const run of [{ env: { NO_COLOR: '1' } }, { args: ['--no-color'] }]) {
      const chat = await startChat({
        ...run,
        servers: { everything: EVERYTHING_SERVER },
        script: [toolCallReply(['everything__echo', { message: 'x' }]), textReply('**plain** answer')],
      });
      chat.type('go');
      chat.keys('Enter');
      await chat.waitFor('**plain** answer');
      chat.type('/servers');
      chat.keys('Enter');
      await chat.waitFor('ready');
      expect(chat.capture({ escapes: true })).not.toContain(ESC);
      await chat.close();
      await fixture.closeModel();
    }
  });

  it('prints a server crash between turns above the prompt, and draws the prompt again', async () => {
    const { chat, pid } = await chatWithSpawner([process.execPath, SPAWNER]);
    await chat.waitFor((text) => text.trimEnd().endsWith(PROMPT));
    chat.type('half typed');
    await chat.waitFor(`${PROMPT} half typed`);
    process.kill(pid, 'SIGKILL');
    // The warning is printed, then the prompt drawn again: wait for both, not a screen in between.
    const after = await chat.waitFor(
      (screen) =>
        screen.includes('server "spawner" stopped unexpectedly') &&
        screen.trimEnd().endsWith(`${PROMPT} half typed`),
    );
    const lines = after.trimEnd().split('\n');
    // The warning has a line of its own, and the prompt comes back below it with the typed text.
    expect(lines.find((line) => line.includes('stopped unexpectedly'))).toMatch(/^mcphost: server "spawner"/);
    expect(lines.at(-1)).toBe(`${PROMPT} half typed`);
    chat.keys('C-u', 'C-d');
    expect(await chat.waitForExit()).toBe(0);
  });

  it('leaves no server process behind after Ctrl-D, nor after Ctrl-C twice', async () => {
    for (const leave of [['C-d'], ['C-c', 'C-c']]) {
      const { chat, pid, childPid } = await chatWithSpawner([
        'sh',
        '-c',
        `exec ${process.execPath} ${SPAWNER}`,
      ]);
      expect(isAlive(pid)).toBe(true);
      expect(isAlive(childPid)).toBe(true);
      for (const key of leave) {
        chat.keys(key);
        if (key === 'C-c' && leave.length === 2) await chat.waitFor('press Ctrl-C again');
      }
      expect(await chat.waitForExit()).toBe(0);
      expect(isAlive(pid)).toBe(false);
      expect(isAlive(childPid)).toBe(false);
      await chat.close();
      await fixture.closeModel();
    }
  });
});

describe('the chat through pipes', () => {
  it('reads entries from stdin and writes plain text: no escape sequence at all', async () => {
    await fixture.home.writeConfig({ mcpServers: { everything: EVERYTHING_SERVER } });
    const ollama = await fixture.startModel(
      [
        toolCallReply(['everything__echo', { message: 'piped' }]),
        textReply('# Title\n\n**bold** answer'),
        textReply('Second.'),
        // A window the definitions fit in: at Ollama's 4,096 the search is on, and /tools says so first.
      ],
      { numCtx: 32_768 },
    );
    const run = await runCli(['--provider-url', ollama.url], fixture.home.path, {
      stdin: 'first question\n/tools\nsecond question\n',
    });
    expect(run.code).toBe(0);
    expect(run.stdout + run.stderr).not.toContain(ESC);
    expect(run.stdout).toMatch(
      /› first question\n→ everything__echo \{"message":"piped"\}\n {2}← everything__echo \(\d+\.\ds\) Echo: piped/,
    );
    expect(run.stdout).toContain('# Title\n\n**bold** answer\n');
    expect(run.stdout).toContain(`${PROMPT} /tools\neverything (`);
    expect(run.stdout).toContain(`${PROMPT} second question\nSecond.\n`);
    expect(roles(ollama.chatRequests[2])).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
  });
});
