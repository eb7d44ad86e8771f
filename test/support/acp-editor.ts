/**
 * A scripted editor for `mcphost acp`: the built CLI as a child process, driven through the ACP
 * SDK's client side. Every line the agent writes to stdout is parsed and checked against the ACP
 * schema (the SDK's own zod schemas): a notification or request by its method, a response by the
 * method of the request it answers. A line that is not an ACP message is a failure of the test.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import {
  client,
  ndJsonStream,
  type ClientApp,
  type ClientCapabilities,
  type ClientContext,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
} from '@agentclientprotocol/sdk';
import * as schema from '../../node_modules/@agentclientprotocol/sdk/dist/v1/schema/zod.gen.js';
import { expect } from 'vitest';
import { CLI } from './cli.js';

/** What checks the params (agent → editor) or the result (a response to the editor's request). */
const AGENT_MESSAGES: Readonly<
  Record<string, { safeParse: (value: unknown) => { success: boolean; error?: unknown } }>
> = {
  'session/update': schema.zSessionNotification,
  'session/request_permission': schema.zRequestPermissionRequest,
  'fs/read_text_file': schema.zReadTextFileRequest,
  'fs/write_text_file': schema.zWriteTextFileRequest,
  'terminal/create': schema.zCreateTerminalRequest,
  'terminal/output': schema.zTerminalOutputRequest,
  'terminal/wait_for_exit': schema.zWaitForTerminalExitRequest,
  'terminal/kill': schema.zKillTerminalRequest,
  'terminal/release': schema.zReleaseTerminalRequest,
  'elicitation/create': schema.zCreateElicitationRequest,
  // The agent stops waiting for a permission answer when the turn is cancelled.
  '$/cancel_request': schema.zCancelRequestNotification,
};
const RESULTS: Readonly<
  Record<string, { safeParse: (value: unknown) => { success: boolean; error?: unknown } }>
> = {
  initialize: schema.zInitializeResponse,
  'session/new': schema.zNewSessionResponse,
  'session/load': schema.zLoadSessionResponse,
  'session/list': schema.zListSessionsResponse,
  'session/set_mode': schema.zSetSessionModeResponse,
  'session/set_config_option': schema.zSetSessionConfigOptionResponse,
  'session/prompt': schema.zPromptResponse,
};

export interface EditorOptions {
  readonly home: string;
  readonly cwd: string;
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  /** Answers permission questions; default: the first "allow once" option. */
  readonly permission?: (request: RequestPermissionRequest) => Promise<RequestPermissionResponse>;
  /** Registers more client handlers (fs, terminal). */
  readonly handlers?: (app: ClientApp) => void;
}

export interface ScriptedEditor {
  readonly child: ChildProcessWithoutNullStreams;
  readonly agent: ClientContext;
  /** Every `session/update` received, in order. */
  readonly updates: SessionNotification[];
  /** Every permission question received, in order. */
  readonly permissions: RequestPermissionRequest[];
  /** Every stdout line, raw. */
  readonly lines: string[];
  /** Lines that failed the schema or were not ACP messages (each with why). */
  readonly problems: string[];
  stderr(): string;
  /** Ends stdin and waits for the agent to exit; resolves with its exit code. */
  close(): Promise<number | null>;
}

export function startEditor(options: EditorOptions): Promise<ScriptedEditor> {
  const child = spawn(process.execPath, [CLI, 'acp', ...(options.args ?? [])], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '', HOME: options.home, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const updates: SessionNotification[] = [];
  const permissions: RequestPermissionRequest[] = [];
  const lines: string[] = [];
  const problems: string[] = [];
  const sentMethods = new Map<string | number, string>();
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));

  const check = (line: string): void => {
    lines.push(line);
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(line) as Record<string, unknown>;
    } catch {
      problems.push(`not JSON: ${line}`);
      return;
    }
    if (message.jsonrpc !== '2.0') problems.push(`not JSON-RPC 2.0: ${line}`);
    const method = typeof message.method === 'string' ? message.method : undefined;
    if (method !== undefined) {
      const validator = AGENT_MESSAGES[method];
      if (validator === undefined) problems.push(`unexpected method ${method}`);
      else if (!validator.safeParse(message.params).success) problems.push(`invalid ${method}: ${line}`);
      return;
    }
    const id = message.id as string | number;
    const requested = sentMethods.get(id);
    if (requested === undefined) {
      problems.push(`a response to no request: ${line}`);
      return;
    }
    if ('error' in message) {
      if (!schema.zError.safeParse(message.error).success) problems.push(`invalid error: ${line}`);
      return;
    }
    const validator = RESULTS[requested];
    if (validator !== undefined && !validator.safeParse(message.result).success) {
      problems.push(`invalid ${requested} result: ${line}`);
    }
  };

  // Agent → editor: split into lines, each checked, then handed on unchanged.
  let pending = '';
  const decoder = new TextDecoder();
  const fromAgent = (Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>).pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        pending += decoder.decode(chunk, { stream: true });
        const parts = pending.split('\n');
        pending = parts.pop() ?? '';
        for (const line of parts) if (line.trim() !== '') check(line);
        controller.enqueue(chunk);
      },
      flush() {
        if (pending.trim() !== '') problems.push(`an unfinished line at the end: ${pending}`);
      },
    }),
  );
  // Editor → agent: the methods of requests, for checking their responses.
  let outgoing = '';
  const toAgent = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      outgoing += decoder.decode(chunk, { stream: true });
      const parts = outgoing.split('\n');
      outgoing = parts.pop() ?? '';
      for (const line of parts) {
        const message = JSON.parse(line) as { id?: string | number; method?: string };
        if (message.id !== undefined && message.method !== undefined)
          sentMethods.set(message.id, message.method);
      }
      controller.enqueue(chunk);
    },
  });
  void toAgent.readable
    .pipeTo(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>)
    .catch(() => undefined);

  const app = client({ name: 'scripted-editor' })
    .onNotification('session/update', ({ params }) => {
      updates.push(params);
    })
    .onRequest('session/request_permission', async ({ params }) => {
      permissions.push(params);
      if (options.permission !== undefined) return options.permission(params);
      const first = params.options.find((option) => option.kind === 'allow_once');
      return { outcome: { outcome: 'selected', optionId: first?.optionId ?? '' } };
    });
  options.handlers?.(app);
  const connection = app.connect(ndJsonStream(toAgent.writable, fromAgent));
  return Promise.resolve({
    child,
    agent: connection.agent,
    updates,
    permissions,
    lines,
    problems,
    stderr: () => stderr,
    close: async () => {
      connection.close();
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  });
}

/** The text of the agent's message chunks among `updates`, in order. */
export function answerText(updates: readonly SessionNotification[]): string {
  return updates
    .map((notification) => notification.update)
    .map((update) =>
      update.sessionUpdate === 'agent_message_chunk' && update.content.type === 'text'
        ? update.content.text
        : '',
    )
    .join('');
}

/** The updates of one kind. */
export function updatesOf<Kind extends SessionNotification['update']['sessionUpdate']>(
  updates: readonly SessionNotification[],
  kind: Kind,
): Array<Extract<SessionNotification['update'], { sessionUpdate: Kind }>> {
  return updates
    .map((notification) => notification.update)
    .filter(
      (update): update is Extract<SessionNotification['update'], { sessionUpdate: Kind }> =>
        update.sessionUpdate === kind,
    );
}

/** The params of every request or notification the agent sent with `method`, in order. */
export function agentCalls(
  editor: Pick<ScriptedEditor, 'lines'>,
  method: string,
): Array<Record<string, unknown>> {
  return editor.lines
    .map((line) => JSON.parse(line) as { method?: string; params?: Record<string, unknown> })
    .filter((message) => message.method === method)
    .map((message) => message.params ?? {});
}

/**
 * The editors a test started, ended at its end (a cliFixture's teardown, before the model and the
 * HOME go) and each checked there: it wrote to stdout, and every line it wrote is an ACP message
 * that passes the schema.
 */
export class EditorsOfTest {
  #open: ScriptedEditor[] = [];

  add(editor: ScriptedEditor): ScriptedEditor {
    this.#open.push(editor);
    return editor;
  }

  /** Starts an editor (closed and checked at the test's end) and initializes it: protocol 1. */
  async start(
    options: EditorOptions & { readonly capabilities?: ClientCapabilities },
  ): Promise<ScriptedEditor> {
    const { capabilities, ...editorOptions } = options;
    const editor = this.add(await startEditor(editorOptions));
    await editor.agent.request('initialize', { protocolVersion: 1, clientCapabilities: capabilities ?? {} });
    return editor;
  }

  /** An editor the test closed and checked itself. */
  forget(editor: ScriptedEditor): void {
    this.#open = this.#open.filter((open) => open !== editor);
  }

  async closeAndCheck(): Promise<void> {
    const closing = this.#open;
    this.#open = [];
    for (const editor of closing) await editor.close();
    for (const editor of closing) {
      expect(editor.problems).toEqual([]);
      expect(editor.lines.length).toBeGreaterThan(0);
    }
  }
}
