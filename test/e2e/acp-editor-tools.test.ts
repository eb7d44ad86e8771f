/**
 * `mcphost acp` with the editor's own files and terminal: the built-in `fs` reads and writes
 * through `fs/read_text_file` / `fs/write_text_file` when the client offers them (a write shows a
 * `diff`), the built-in `bash` runs in the editor's terminal when it offers `terminal`, and with
 * neither nothing of them is called. The editor is the ACP SDK's client side; every stdout line is
 * checked against the schema.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RequestError, type ClientApp, type ClientCapabilities } from '@agentclientprotocol/sdk';
import { textReply, toolCallReply } from '../fakes/ollama-server.js';
import { cliFixture } from '../support/cli-fixture.js';
import {
  EditorsOfTest,
  agentCalls,
  answerText,
  updatesOf,
  type EditorOptions,
  type ScriptedEditor,
} from '../support/acp-editor.js';

const editors = new EditorsOfTest();
const fixture = cliFixture({}, () => editors.closeAndCheck());

function editor(
  options: Partial<EditorOptions> & {
    readonly cwd: string;
    readonly builtin: string;
    readonly capabilities: ClientCapabilities;
  },
): Promise<ScriptedEditor> {
  return editors.start({
    home: fixture.home.path,
    args: [
      '-m',
      'ollama:mistral-small',
      '--provider-url',
      fixture.model.url,
      '--context-window',
      '131072',
      '--builtin',
      options.builtin,
    ],
    ...options,
  });
}

/** The editor's buffers: what it holds, unsaved, wins over the disk; writes stay in the buffer. */
function editorBuffers(buffers: Map<string, string>): (app: ClientApp) => void {
  return (app) => {
    app
      .onRequest('fs/read_text_file', async ({ params }) => {
        const held = buffers.get(params.path);
        if (held !== undefined) return { content: held };
        try {
          return { content: await readFile(params.path, 'utf8') };
        } catch {
          throw RequestError.resourceNotFound(params.path);
        }
      })
      .onRequest('fs/write_text_file', ({ params }) => {
        buffers.set(params.path, params.content);
        return {};
      });
  };
}

interface EditorTerminal {
  readonly child: ChildProcess;
  output: string;
  exit: { exitCode: number | null; signal: string | null } | undefined;
  readonly exited: Promise<void>;
}

/** The editor's terminals: real processes, as an editor runs them. */
function editorTerminals(terminals: Map<string, EditorTerminal>): (app: ClientApp) => void {
  const exitStatus = (terminal: EditorTerminal) => terminal.exit ?? null;
  const terminalOf = (id: string): EditorTerminal => {
    const terminal = terminals.get(id);
    if (terminal === undefined) throw RequestError.resourceNotFound(id);
    return terminal;
  };
  return (app) => {
    app
      .onRequest('terminal/create', ({ params }) => {
        const child = spawn(params.command, params.args ?? [], {
          cwd: params.cwd ?? undefined,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        const terminal: EditorTerminal = {
          child,
          output: '',
          exit: undefined,
          exited: new Promise((resolve) => {
            child.on('close', (exitCode, signal) => {
              terminal.exit = { exitCode, signal };
              resolve();
            });
          }),
        };
        const collect = (chunk: Buffer): void => {
          terminal.output += chunk.toString();
        };
        child.stdout.on('data', collect);
        child.stderr.on('data', collect);
        const terminalId = `term-${terminals.size + 1}`;
        terminals.set(terminalId, terminal);
        return { terminalId };
      })
      .onRequest('terminal/wait_for_exit', async ({ params }) => {
        const terminal = terminalOf(params.terminalId);
        await terminal.exited;
        return terminal.exit ?? {};
      })
      .onRequest('terminal/output', ({ params }) => {
        const terminal = terminalOf(params.terminalId);
        return { output: terminal.output, truncated: false, exitStatus: exitStatus(terminal) };
      })
      .onRequest('terminal/kill', ({ params }) => {
        terminalOf(params.terminalId).child.kill('SIGKILL');
        return {};
      })
      .onRequest('terminal/release', ({ params }) => {
        const terminal = terminalOf(params.terminalId);
        if (terminal.exit === undefined) terminal.child.kill('SIGKILL');
        return {};
      });
  };
}

const FS_CAPABILITIES: ClientCapabilities = { fs: { readTextFile: true, writeTextFile: true } };

describe("mcphost acp: the editor's files and terminal", () => {
  it("fs reads the editor's unsaved buffer and writes through the editor; each write shows a diff", async () => {
    const folder = await fixture.temporaryFolder('acp-fs-');
    const note = join(folder, 'note.txt');
    await writeFile(note, 'on disk: apple\n');
    const buffers = new Map([[note, 'unsaved: mango\n']]);
    await fixture.startModel([
      toolCallReply(['fs__read_file', { path: 'note.txt' }]),
      toolCallReply(['fs__write_file', { path: join(folder, 'new.txt'), content: 'fresh\n' }]),
      toolCallReply(['fs__edit_file', { path: 'note.txt', old_text: 'mango', new_text: 'papaya' }]),
      textReply('done'),
    ]);
    const started = await editor({
      cwd: folder,
      builtin: 'fs',
      capabilities: FS_CAPABILITIES,
      handlers: editorBuffers(buffers),
    });
    const { sessionId } = await started.agent.request('session/new', { cwd: folder, mcpServers: [] });
    const answer = await started.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'go' }],
    });
    expect(answer.stopReason).toBe('end_turn');
    // The model read the buffer, not the disk.
    expect(JSON.stringify(fixture.model.chatRequests[1]?.messages.at(-1))).toContain('unsaved: mango');
    expect(agentCalls(started, 'fs/read_text_file').map((params) => params.path)).toContain(note);
    expect(agentCalls(started, 'fs/write_text_file')).toEqual([
      { sessionId, path: join(folder, 'new.txt'), content: 'fresh\n' },
      { sessionId, path: note, content: 'unsaved: papaya\n' },
    ]);
    // The writes went to the editor, which keeps them in its buffers: the disk is as it was.
    expect(buffers.get(note)).toBe('unsaved: papaya\n');
    expect(await readFile(note, 'utf8')).toBe('on disk: apple\n');
    await expect(readFile(join(folder, 'new.txt'), 'utf8')).rejects.toThrow();
    const diffs = updatesOf(started.updates, 'tool_call_update').flatMap((update) =>
      (update.content ?? []).filter((content) => content.type === 'diff'),
    );
    expect(diffs).toEqual([
      { type: 'diff', path: join(folder, 'new.txt'), oldText: null, newText: 'fresh\n' },
      { type: 'diff', path: note, oldText: 'unsaved: mango\n', newText: 'unsaved: papaya\n' },
    ]);
    // Each diff is in the update of the call that wrote it.
    const calls = updatesOf(started.updates, 'tool_call');
    const withDiff = updatesOf(started.updates, 'tool_call_update')
      .filter((update) => (update.content ?? []).some((content) => content.type === 'diff'))
      .map((update) => update.toolCallId);
    expect(withDiff).toEqual([calls[1]?.toolCallId, calls[2]?.toolCallId]);
    // The guard is as for any call: the writes asked, the read did not.
    expect(started.permissions.map((request) => request.toolCall.toolCallId)).toEqual(withDiff);
  });

  it('without the fs capability nothing of fs/* is called: the disk is read and written, the diff still shown', async () => {
    const folder = await fixture.temporaryFolder('acp-fs-');
    await writeFile(join(folder, 'note.txt'), 'on disk: apple\n');
    await fixture.startModel([
      toolCallReply(['fs__read_file', { path: 'note.txt' }]),
      toolCallReply(['fs__edit_file', { path: 'note.txt', old_text: 'apple', new_text: 'pear' }]),
      textReply('done'),
    ]);
    const started = await editor({ cwd: folder, builtin: 'fs', capabilities: {} });
    const { sessionId } = await started.agent.request('session/new', { cwd: folder, mcpServers: [] });
    await started.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go' }] });
    expect(JSON.stringify(fixture.model.chatRequests[1]?.messages.at(-1))).toContain('on disk: apple');
    expect(await readFile(join(folder, 'note.txt'), 'utf8')).toBe('on disk: pear\n');
    const methods = started.lines.map((line) => (JSON.parse(line) as { method?: string }).method);
    expect(methods.filter((method) => method?.startsWith('fs/') === true)).toEqual([]);
    const diffs = updatesOf(started.updates, 'tool_call_update').flatMap((update) =>
      (update.content ?? []).filter((content) => content.type === 'diff'),
    );
    expect(diffs).toEqual([
      {
        type: 'diff',
        path: join(folder, 'note.txt'),
        oldText: 'on disk: apple\n',
        newText: 'on disk: pear\n',
      },
    ]);
  });

  it("bash runs in the editor's terminal, embedded in its tool call; the output is the result", async () => {
    const folder = await fixture.temporaryFolder('acp-terminal-');
    await fixture.startModel([
      toolCallReply(['bash__run_command', { command: 'echo one; pwd; exit 3' }]),
      textReply('ran'),
    ]);
    const terminals = new Map<string, EditorTerminal>();
    const started = await editor({
      cwd: folder,
      builtin: 'bash',
      capabilities: { terminal: true },
      handlers: editorTerminals(terminals),
    });
    const { sessionId } = await started.agent.request('session/new', { cwd: folder, mcpServers: [] });
    const answer = await started.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'run it' }],
    });
    expect(answer.stopReason).toBe('end_turn');
    expect(answerText(started.updates)).toBe('ran');
    expect(agentCalls(started, 'terminal/create')).toEqual([
      {
        sessionId,
        command: 'bash',
        args: ['-c', 'echo one; pwd; exit 3'],
        cwd: folder,
        outputByteLimit: 30_000,
      },
    ]);
    const methods = started.lines
      .map((line) => (JSON.parse(line) as { method?: string }).method)
      .filter((method) => method?.startsWith('terminal/') === true);
    expect(methods).toEqual([
      'terminal/create',
      'terminal/wait_for_exit',
      'terminal/output',
      'terminal/release',
    ]);
    // bash asks before each command, through the editor, as without a terminal.
    expect(started.permissions).toHaveLength(1);
    const call = updatesOf(started.updates, 'tool_call')[0];
    const updates = updatesOf(started.updates, 'tool_call_update').filter(
      (update) => update.toolCallId === call?.toolCallId,
    );
    expect(updates[0]).toMatchObject({
      status: 'in_progress',
      content: [{ type: 'terminal', terminalId: 'term-1' }],
    });
    expect(updates.at(-1)?.status).toBe('failed');
    expect(updates.at(-1)?.content?.[0]).toEqual({ type: 'terminal', terminalId: 'term-1' });
    const modelSaw = JSON.stringify(fixture.model.chatRequests[1]?.messages.at(-1));
    expect(modelSaw).toContain('one');
    expect(modelSaw).toContain(folder);
    expect(modelSaw).toContain('[exit code 3]');
  });

  it("a cancel kills the command in the editor's terminal and ends the turn with cancelled", async () => {
    const folder = await fixture.temporaryFolder('acp-terminal-');
    await fixture.startModel([toolCallReply(['bash__run_command', { command: 'sleep 30' }]), textReply('x')]);
    const terminals = new Map<string, EditorTerminal>();
    const started = await editor({
      cwd: folder,
      builtin: 'bash',
      capabilities: { terminal: true },
      handlers: editorTerminals(terminals),
    });
    const { sessionId } = await started.agent.request('session/new', { cwd: folder, mcpServers: [] });
    const turn = started.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'wait' }],
    });
    await expect.poll(() => terminals.size, { timeout: 10_000 }).toBe(1);
    const cancelledAt = Date.now();
    await started.agent.notify('session/cancel', { sessionId });
    expect((await turn).stopReason).toBe('cancelled');
    expect(Date.now() - cancelledAt).toBeLessThan(1000);
    await expect.poll(() => agentCalls(started, 'terminal/kill').length).toBe(1);
    await expect.poll(() => terminals.get('term-1')?.exit?.signal).toBe('SIGKILL');
    await expect.poll(() => agentCalls(started, 'terminal/release').length).toBe(1);
  });

  it('without the terminal capability bash runs its own process and no terminal/* is called', async () => {
    const folder = await fixture.temporaryFolder('acp-terminal-');
    await fixture.startModel([
      toolCallReply(['bash__run_command', { command: 'echo local' }]),
      textReply('ok'),
    ]);
    const started = await editor({ cwd: folder, builtin: 'bash', capabilities: {} });
    const { sessionId } = await started.agent.request('session/new', { cwd: folder, mcpServers: [] });
    await started.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go' }] });
    expect(JSON.stringify(fixture.model.chatRequests[1]?.messages.at(-1))).toContain('local');
    const methods = started.lines.map((line) => (JSON.parse(line) as { method?: string }).method);
    expect(methods.filter((method) => method?.startsWith('terminal/') === true)).toEqual([]);
    const contents = updatesOf(started.updates, 'tool_call_update').flatMap((update) => update.content ?? []);
    expect(contents.some((content) => content.type === 'terminal')).toBe(false);
  });
});
