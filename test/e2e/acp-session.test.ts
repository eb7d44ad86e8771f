/**
 * `mcphost acp` end to end: the built CLI driven by a scripted editor (the ACP SDK's client side),
 * the model a loopback fake Ollama, servers from npm. Every stdout line of every test is checked
 * to be an ACP message valid against the schema.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RequestError, type McpServer } from '@agentclientprotocol/sdk';
import { errorReply, textReply, toolCallReply } from '../fakes/ollama-server.js';
import { cliFixture } from '../support/cli-fixture.js';
import { npmServer } from '../support/cli.js';
import {
  EditorsOfTest,
  answerText,
  startEditor,
  updatesOf,
  type EditorOptions,
  type ScriptedEditor,
} from '../support/acp-editor.js';

const editors = new EditorsOfTest();
// At each test's end, before the model and the HOME go: the agents end, and every line each wrote
// to stdout is an ACP message that passes the schema.
const fixture = cliFixture({}, () => editors.closeAndCheck());

function editor(options: Partial<EditorOptions> & { readonly cwd: string }): Promise<ScriptedEditor> {
  return editors.start({
    home: fixture.home.path,
    args: ['-m', 'ollama:mistral-small', '--provider-url', fixture.model.url, '--context-window', '131072'],
    ...options,
  });
}

function filesServer(folder: string): McpServer {
  return { name: 'files', command: process.execPath, args: [npmServer('filesystem'), folder], env: [] };
}

describe('mcphost acp', () => {
  it('says its capabilities truthfully, streams an answer, and ends the turn with end_turn', async () => {
    await fixture.startModel([{ type: 'answer', text: ['Hel', 'lo ', 'there'] }]);
    const cwd = await fixture.temporaryFolder('acp-cwd-');
    const started = await startEditor({
      home: fixture.home.path,
      cwd,
      args: ['-m', 'ollama:mistral-small', '--provider-url', fixture.model.url],
    });
    editors.add(started);
    const initialized = await started.agent.request('initialize', {
      protocolVersion: 1,
      clientCapabilities: {},
    });
    expect(initialized.protocolVersion).toBe(1);
    expect(initialized.agentCapabilities).toMatchObject({
      loadSession: true,
      promptCapabilities: { image: true, audio: false, embeddedContext: true },
      mcpCapabilities: { http: true, sse: true },
      sessionCapabilities: { list: {} },
    });
    const session = await started.agent.request('session/new', { cwd, mcpServers: [] });
    expect(session.modes?.currentModeId).toBe('ask-before-changes');
    const answer = await started.agent.request('session/prompt', {
      sessionId: session.sessionId,
      prompt: [{ type: 'text', text: 'hi' }],
    });
    expect(answer.stopReason).toBe('end_turn');
    expect(answerText(started.updates)).toBe('Hello there');
    expect(updatesOf(started.updates, 'usage_update').length).toBeGreaterThan(0);
    expect(fixture.model.chatRequests[0]?.messages.at(-1)).toMatchObject({ role: 'user', content: 'hi' });
  });

  it("runs a tool of the editor's server: tool_call with its kind, permission asked for a write, the result as content", async () => {
    const files = await fixture.temporaryFolder('acp-files-');
    await writeFile(join(files, 'note.txt'), 'the secret word is mango\n');
    await fixture.startModel([
      toolCallReply(['files__read_text_file', { path: join(files, 'note.txt') }]),
      toolCallReply(['files__write_file', { path: join(files, 'out.txt'), content: 'written' }]),
      textReply('done'),
    ]);
    const started = await editor({ cwd: files });
    const { sessionId } = await started.agent.request('session/new', {
      cwd: files,
      mcpServers: [filesServer(files)],
    });
    const answer = await started.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'go' }],
    });
    expect(answer.stopReason).toBe('end_turn');
    const calls = updatesOf(started.updates, 'tool_call');
    expect(calls.map((call) => [call.kind, call.status])).toEqual([
      ['read', 'pending'],
      ['edit', 'pending'],
    ]);
    expect(calls[0]?.title).toContain('files: read_text_file');
    expect(calls[0]?.locations).toEqual([{ path: join(files, 'note.txt') }]);
    const results = updatesOf(started.updates, 'tool_call_update');
    expect(results.map((result) => result.status)).toEqual(['completed', 'completed']);
    expect(JSON.stringify(results[0]?.content)).toContain('mango');
    // The read is read-only and runs; the write asks, once.
    expect(started.permissions).toHaveLength(1);
    expect(started.permissions[0]?.toolCall.toolCallId).toBe(calls[1]?.toolCallId);
    expect(started.permissions[0]?.options.map((option) => option.kind)).toEqual([
      'allow_once',
      'allow_always',
      'reject_once',
      'reject_always',
    ]);
    expect(await readFile(join(files, 'out.txt'), 'utf8')).toBe('written');
  });

  it('permission answered each way: reject once, reject always (not asked again), allow always', async () => {
    const files = await fixture.temporaryFolder('acp-files-');
    const write = (name: string) =>
      toolCallReply(['files__write_file', { path: join(files, name), content: name }]);
    const move = (from: string, to: string) =>
      toolCallReply(['files__move_file', { source: join(files, from), destination: join(files, to) }]);
    await fixture.startModel([
      write('a.txt'),
      textReply('1'),
      write('b.txt'),
      textReply('2'),
      write('c.txt'),
      textReply('3'),
      move('x', 'y'),
      textReply('4'),
      move('x', 'y'),
      textReply('5'),
    ]);
    await writeFile(join(files, 'x'), 'x');
    const answers = ['reject-once', 'reject-always', 'allow-always'];
    const started = await editor({
      cwd: files,
      permission: async () => ({
        outcome: { outcome: 'selected', optionId: answers.shift() ?? 'reject-once' },
      }),
    });
    const { sessionId } = await started.agent.request('session/new', {
      cwd: files,
      mcpServers: [filesServer(files)],
    });
    const prompt = (text: string) =>
      started.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
    await prompt('a');
    await prompt('b');
    await prompt('c');
    await prompt('d');
    await prompt('e');
    // a: rejected once; b: rejected always; c: the write tool is refused without a question.
    // d: move asked and allowed always; e: not asked.
    expect(started.permissions.map((request) => request.toolCall.kind)).toEqual(['edit', 'edit', 'move']);
    const statuses = updatesOf(started.updates, 'tool_call_update').map((update) => update.status);
    expect(statuses).toEqual(['failed', 'failed', 'failed', 'completed', 'failed']);
    const modelSaw = fixture.model.chatRequests.map((request) => JSON.stringify(request.messages.at(-1)));
    expect(modelSaw[5]).toContain('denied every call to files__write_file for this session');
    // The second move fails on the server (x is gone), which shows it ran without asking.
    expect(modelSaw[9]).not.toContain('denied');
    await expect(readFile(join(files, 'a.txt'), 'utf8')).rejects.toThrow();
    await expect(readFile(join(files, 'y'), 'utf8')).resolves.toBe('x');
  });

  it('read-only mode refuses a write without asking; accept-edits runs it without asking', async () => {
    const files = await fixture.temporaryFolder('acp-files-');
    await fixture.startModel([
      toolCallReply(['files__write_file', { path: join(files, 'r.txt'), content: 'r' }]),
      textReply('refused'),
      toolCallReply(['files__write_file', { path: join(files, 'e.txt'), content: 'e' }]),
      textReply('edited'),
    ]);
    const started = await editor({ cwd: files });
    const { sessionId } = await started.agent.request('session/new', {
      cwd: files,
      mcpServers: [filesServer(files)],
    });
    await started.agent.request('session/set_mode', { sessionId, modeId: 'read-only' });
    await started.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'r' }] });
    await started.agent.request('session/set_mode', { sessionId, modeId: 'accept-edits' });
    await started.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'e' }] });
    expect(started.permissions).toEqual([]);
    await expect(readFile(join(files, 'r.txt'), 'utf8')).rejects.toThrow();
    expect(await readFile(join(files, 'e.txt'), 'utf8')).toBe('e');
    expect(JSON.stringify(fixture.model.chatRequests[1]?.messages.at(-1))).toContain(
      'the session is read-only',
    );
    await expect(started.agent.request('session/set_mode', { sessionId, modeId: 'yolo' })).rejects.toThrow(
      /unknown mode "yolo"/,
    );
  });

  it('a provider failure is a JSON-RPC error naming the cause, and the session goes on; retries are told', async () => {
    await fixture.startModel([
      errorReply(400, 'model "nope" not found, try pulling it first'),
      errorReply(503, 'server busy'),
      textReply('back'),
    ]);
    const cwd = await fixture.temporaryFolder('acp-cwd-');
    const started = await editor({ cwd });
    const { sessionId } = await started.agent.request('session/new', { cwd, mcpServers: [] });
    const failed = started.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'one' }],
    });
    await expect(failed).rejects.toBeInstanceOf(RequestError);
    await expect(failed).rejects.toThrow(/ollama.*not found/);
    const answer = await started.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'two' }],
    });
    expect(answer.stopReason).toBe('end_turn');
    expect(answerText(started.updates)).toBe('back');
    expect(JSON.stringify(updatesOf(started.updates, 'agent_thought_chunk'))).toMatch(
      /server busy — retrying in/,
    );
    // The failed prompt left nothing in the history: the model saw "two" right after nothing.
    expect(
      fixture.model.chatRequests.at(-1)?.messages.filter((message) => message.role === 'user'),
    ).toHaveLength(1);
  });

  it('session/cancel ends the turn with cancelled within a second, and the session goes on', async () => {
    await fixture.startModel([{ type: 'stall', text: ['thinking…'] }, textReply('after')]);
    const cwd = await fixture.temporaryFolder('acp-cwd-');
    const started = await editor({ cwd });
    const { sessionId } = await started.agent.request('session/new', { cwd, mcpServers: [] });
    const turn = started.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'slow' }],
    });
    await waitFor(() => answerText(started.updates).includes('thinking'));
    const cancelledAt = Date.now();
    await started.agent.notify('session/cancel', { sessionId });
    expect((await turn).stopReason).toBe('cancelled');
    expect(Date.now() - cancelledAt).toBeLessThan(1000);
    const next = await started.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'again' }],
    });
    expect(next.stopReason).toBe('end_turn');
    // No half-written turn: the cancelled prompt is not in what the model reads next.
    const users = fixture.model.chatRequests.at(-1)?.messages.filter((message) => message.role === 'user');
    expect(users?.map((message) => message.content)).toEqual(['again']);
  });

  it('a cancel while the editor is asking for permission drops the question and ends with cancelled', async () => {
    const files = await fixture.temporaryFolder('acp-files-');
    await fixture.startModel([
      toolCallReply(['files__write_file', { path: join(files, 'w.txt'), content: 'w' }]),
      textReply('never'),
    ]);
    let asked: () => void = () => undefined;
    const question = new Promise<void>((resolve) => (asked = resolve));
    const started = await editor({
      cwd: files,
      // The editor never answers on its own: only the cancel ends the wait.
      permission: () => {
        asked();
        return new Promise(() => undefined);
      },
    });
    const { sessionId } = await started.agent.request('session/new', {
      cwd: files,
      mcpServers: [filesServer(files)],
    });
    const turn = started.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'w' }],
    });
    await question;
    const cancelledAt = Date.now();
    await started.agent.notify('session/cancel', { sessionId });
    expect((await turn).stopReason).toBe('cancelled');
    expect(Date.now() - cancelledAt).toBeLessThan(1000);
    await expect(readFile(join(files, 'w.txt'), 'utf8')).rejects.toThrow();
  });

  it("lists the servers' MCP prompts as commands, and runs one sent as /server:prompt", async () => {
    await fixture.startModel([textReply('ran it')]);
    const cwd = await fixture.temporaryFolder('acp-cwd-');
    const started = await editor({ cwd });
    const everything: McpServer = {
      name: 'everything',
      command: process.execPath,
      args: [npmServer('everything'), 'stdio'],
      env: [],
    };
    const { sessionId } = await started.agent.request('session/new', { cwd, mcpServers: [everything] });
    await waitFor(() => updatesOf(started.updates, 'available_commands_update').length > 0);
    const [commands] = updatesOf(started.updates, 'available_commands_update');
    expect(commands?.availableCommands.map((command) => command.name)).toContain('everything:simple-prompt');
    await started.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: '/everything:simple-prompt' }],
    });
    expect(JSON.stringify(fixture.model.chatRequests[0]?.messages)).toContain(
      'This is a simple prompt without arguments.',
    );
  });

  it('a server that cannot start is told to the editor in the session, with its name and the cause', async () => {
    await fixture.startModel([textReply('fine')]);
    const cwd = await fixture.temporaryFolder('acp-cwd-');
    const started = await editor({ cwd });
    const { sessionId } = await started.agent.request('session/new', {
      cwd,
      mcpServers: [{ name: 'broken', command: join(cwd, 'no-such-program'), args: [], env: [] }],
    });
    await started.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    const told = JSON.stringify(updatesOf(started.updates, 'agent_thought_chunk'));
    expect(told).toContain('server \\"broken\\" did not start');
    expect(told).toMatch(/ENOENT|not found|no such/i);
    expect(answerText(started.updates)).toBe('fine');
  });

  it('loads a session after a restart (replayed before the answer), lists it, and goes on with it', async () => {
    await fixture.startModel([textReply('first answer'), textReply('second answer')]);
    const cwd = await fixture.temporaryFolder('acp-cwd-');
    const first = await editor({ cwd });
    const { sessionId } = await first.agent.request('session/new', { cwd, mcpServers: [] });
    await first.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'remember mango' }],
    });
    expect(await first.close()).toBe(0);
    expect(first.problems).toEqual([]);
    editors.forget(first);

    const second = await editor({ cwd });
    const listed = await second.agent.request('session/list', { cwd });
    expect(listed.sessions.map((session) => [session.sessionId, session.title])).toEqual([
      [sessionId, 'remember mango'],
    ]);
    let answered = false;
    const load = second.agent.request('session/load', { sessionId, cwd, mcpServers: [] }).then((response) => {
      answered = true;
      return response;
    });
    await load;
    const replayed = second.updates.map((notification) => notification.update);
    expect(replayed.map((update) => update.sessionUpdate)).toEqual([
      'user_message_chunk',
      'agent_message_chunk',
    ]);
    expect(answered).toBe(true);
    await second.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'what word?' }],
    });
    const sent = fixture.model.chatRequests
      .at(-1)
      ?.messages.filter((message) => message.role !== 'system')
      .map((message) => message.content);
    expect(sent).toEqual(['remember mango', 'first answer', 'what word?']);
    await expect(
      second.agent.request('session/load', { sessionId: 'no-such-session', cwd, mcpServers: [] }),
    ).rejects.toThrow();
  });
});

async function waitFor(test: () => boolean, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!test()) {
    if (Date.now() - start > timeoutMs) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
