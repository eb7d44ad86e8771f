import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { removeStaleTemporaryFiles, writeFileAtomic } from '../../src/atomic-file.js';
import { openSession, SessionRecorder } from '../../src/session-recorder.js';
import {
  closeOpenToolCalls,
  loadSession,
  loadSessionIfExists,
  saveSession,
  serializeSession,
  SESSION_FORMAT_VERSION,
  type Session,
} from '../../src/session.js';
import type { Message } from '../../src/types.js';
import { CONVERSATION, SYSTEM_PROMPT } from '../fixtures/conversation.js';

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'mcphost-session-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** A conversation with every kind of block the format holds. */
const messages: Message[] = [
  {
    role: 'user',
    content: [
      { type: 'text', text: 'What is in the picture? And echo "hi".' },
      { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' },
    ],
  },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Let me look.' },
      {
        type: 'tool-call',
        id: 'call_1',
        name: 'everything__echo',
        input: { message: 'hi' },
        providerMetadata: { google: { thoughtSignature: 'c2ln' } },
      },
      { type: 'tool-call', id: 'call_2', name: 'broken__tool', input: {}, rawInput: '{not json' },
    ],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'call_1',
        toolName: 'everything__echo',
        content: [{ type: 'text', text: 'Echo: hi' }],
        isError: false,
      },
      {
        type: 'tool-result',
        toolCallId: 'call_2',
        toolName: 'broken__tool',
        content: [{ type: 'text', text: 'arguments are not JSON' }],
        isError: true,
      },
    ],
  },
  { role: 'assistant', content: [{ type: 'text', text: 'A cat. The echo said hi.' }] },
];

const session: Session = {
  model: 'ollama:qwen2.5:3b',
  systemPrompt: 'Be brief.',
  createdAt: '2025-01-31T12:00:00.000Z',
  updatedAt: '2025-01-31T12:03:10.412Z',
  messages,
};

async function expectConfigError(promise: Promise<unknown>, path: string, detail: RegExp): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ConfigError);
  expect((error as ConfigError).source).toBe(path);
  expect((error as ConfigError).detail).toMatch(detail);
}

describe('session files', () => {
  it('saves and loads a conversation with images, tool calls and results unchanged', async () => {
    const path = join(folder, 'chat.json');
    await saveSession(path, session);
    expect(await loadSession(path)).toEqual(session);
    const file = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
    expect(Object.keys(file)).toEqual([
      'version',
      'model',
      'systemPrompt',
      'createdAt',
      'updatedAt',
      'messages',
    ]);
    expect(file.version).toBe(SESSION_FORMAT_VERSION);
  });

  it('round-trips the shared contract conversation (every kind of message and block)', async () => {
    const path = join(folder, 'contract.json');
    const contract: Session = { ...session, systemPrompt: SYSTEM_PROMPT, messages: CONVERSATION };
    await saveSession(path, contract);
    expect(await loadSession(path)).toEqual(contract);
  });

  it('writes new files readable by the user only, and keeps the mode of a file it replaces', async () => {
    const fresh = join(folder, 'fresh.json');
    await saveSession(fresh, session);
    expect((await stat(fresh)).mode & 0o777).toBe(0o600);
    const shared = join(folder, 'shared.json');
    await writeFile(shared, serializeSession(session));
    await chmod(shared, 0o644);
    await saveSession(shared, { ...session, messages: [] });
    expect((await stat(shared)).mode & 0o777).toBe(0o644);
  });

  it('replaces the file a symbolic link points to, keeping the link', async () => {
    const target = join(folder, 'real.json');
    const link = join(folder, 'link.json');
    await writeFile(target, serializeSession(session));
    await symlink(target, link);
    await saveSession(link, { ...session, model: 'ollama:llama3.2' });
    expect((await loadSession(target)).model).toBe('ollama:llama3.2');
    expect((await stat(link)).isFile()).toBe(true);
    expect((await readdir(folder)).sort()).toEqual(['link.json', 'real.json']);
  });

  it('names the file and the place of the first problem', async () => {
    const path = join(folder, 'broken.json');
    const write = (value: unknown) =>
      writeFile(path, typeof value === 'string' ? value : JSON.stringify(value));

    await write('{"version": 1, "model": ');
    await expectConfigError(loadSession(path), path, /^not a valid session file: invalid JSON/);

    await write({ mcpServers: {} });
    await expectConfigError(loadSession(path), path, /not an mcphost session file \(no "version"\)/);

    await write({ ...JSON.parse(serializeSession(session)), version: 2 });
    await expectConfigError(
      loadSession(path),
      path,
      /version 2 was written by a newer mcphost .*upgrade mcphost/,
    );

    const broken = JSON.parse(serializeSession(session)) as { messages: Array<{ content: unknown[] }> };
    broken.messages[1]!.content[0] = { type: 'txt', text: 'x' };
    await write(broken);
    await expectConfigError(
      loadSession(path),
      path,
      /^not a valid session file: messages\[1\]\.content\[0\]\.type: expected one of "text", "tool-call"$/,
    );

    const noFlag = JSON.parse(serializeSession(session)) as { messages: Array<{ content: object[] }> };
    noFlag.messages[2]!.content[1] = { ...noFlag.messages[2]!.content[1], isError: 'yes' };
    await write(noFlag);
    await expectConfigError(
      loadSession(path),
      path,
      /messages\[2\]\.content\[1\]\.isError: expected boolean, got string/,
    );

    await write({ ...JSON.parse(serializeSession(session)), updatedAt: 'yesterday' });
    await expectConfigError(loadSession(path), path, /updatedAt: expected an ISO 8601 date-time/);

    await write({ ...JSON.parse(serializeSession(session)), messages: [{ role: 'system', content: [] }] });
    await expectConfigError(
      loadSession(path),
      path,
      /messages\[0\]\.role: expected one of "user", "assistant", "tool"/,
    );
  });

  it('says when the file is missing or empty; loadSessionIfExists treats both as no session', async () => {
    const missing = join(folder, 'missing.json');
    await expectConfigError(loadSession(missing), missing, /no such session file/);
    expect(await loadSessionIfExists(missing)).toBeUndefined();
    const empty = join(folder, 'empty.json');
    await writeFile(empty, '');
    await expectConfigError(loadSession(empty), empty, /empty/);
    expect(await loadSessionIfExists(empty)).toBeUndefined();
  });

  it('never overwrites a file that is not a session it can read', async () => {
    const cases = {
      'corrupt.json': '{"version": 1, "messages": [',
      'newer.json': JSON.stringify({ ...JSON.parse(serializeSession(session)), version: 7 }),
      'notes.txt': 'my precious notes\n',
    };
    for (const [name, text] of Object.entries(cases)) {
      const path = join(folder, name);
      await writeFile(path, text);
      await expectConfigError(saveSession(path, session), path, /refusing to overwrite it$/);
      expect(await readFile(path, 'utf8')).toBe(text);
    }
    // Nothing was left behind next to them either.
    expect((await readdir(folder)).sort()).toEqual(Object.keys(cases).sort());
  });

  it('overwrites an empty file and a valid session', async () => {
    const path = join(folder, 'made-by-mktemp');
    await writeFile(path, '');
    await saveSession(path, session);
    await saveSession(path, { ...session, messages: messages.slice(0, 1) });
    expect((await loadSession(path)).messages).toEqual(messages.slice(0, 1));
  });
});

describe('writeFileAtomic', () => {
  it('removes its temporary file when the rename fails, leaving the target as it was', async () => {
    const target = join(folder, 'a-directory');
    await mkdir(target);
    await writeFile(join(target, 'inside'), 'kept');
    await expect(writeFileAtomic(target, 'new')).rejects.toThrow();
    expect(await readdir(folder)).toEqual(['a-directory']);
    expect(await readFile(join(target, 'inside'), 'utf8')).toBe('kept');
  });

  it('cleans up the temporary files of writers that died, but not of live ones', async () => {
    const target = join(folder, 'chat.json');
    const deadPid = await new Promise<number>((resolve, reject) => {
      const child = spawn(process.execPath, ['-e', '0']);
      child.on('error', reject);
      child.on('exit', () => resolve(child.pid!));
    });
    const dead = `.chat.json.${deadPid}.abcdef.tmp`;
    const alive = `.chat.json.${process.ppid}.abcdef.tmp`;
    const unrelated = `.other.json.${deadPid}.abcdef.tmp`;
    for (const name of [dead, alive, unrelated]) await writeFile(join(folder, name), '{');
    await removeStaleTemporaryFiles(target);
    expect((await readdir(folder)).sort()).toEqual([alive, unrelated].sort());
  });
});

describe('closeOpenToolCalls', () => {
  it('answers the tool calls of a last assistant message with errors', () => {
    const open = messages.slice(0, 2);
    const closed = closeOpenToolCalls(open);
    expect(closed.slice(0, 2)).toEqual(open);
    expect(closed[2]).toEqual({
      role: 'tool',
      content: [
        expect.objectContaining({ toolCallId: 'call_1', toolName: 'everything__echo', isError: true }),
        expect.objectContaining({ toolCallId: 'call_2', toolName: 'broken__tool', isError: true }),
      ],
    });
  });

  it('leaves a complete conversation alone', () => {
    expect(closeOpenToolCalls(messages)).toBe(messages);
    expect(closeOpenToolCalls(messages.slice(0, 1))).toEqual(messages.slice(0, 1));
  });
});

describe('SessionRecorder and openSession', () => {
  const clock = () => {
    let now = Date.parse('2025-02-01T08:00:00.000Z');
    return () => (now += 1000);
  };

  it('saves after every change with the start time kept and the update time moving', async () => {
    const path = join(folder, 'chat.json');
    const recorder = await SessionRecorder.open(path, { now: clock() });
    await recorder.record({ model: 'ollama:llama3.2', messages: messages.slice(0, 1) });
    const first = await loadSession(path);
    await recorder.record({ model: 'ollama:llama3.2', systemPrompt: 'hi', messages });
    const second = await loadSession(path);
    expect(first).toEqual({
      model: 'ollama:llama3.2',
      createdAt: '2025-02-01T08:00:01.000Z',
      updatedAt: '2025-02-01T08:00:02.000Z',
      messages: messages.slice(0, 1),
    });
    expect(second).toEqual({
      model: 'ollama:llama3.2',
      systemPrompt: 'hi',
      createdAt: '2025-02-01T08:00:01.000Z',
      updatedAt: '2025-02-01T08:00:03.000Z',
      messages,
    });
  });

  it('--session: starts a new file when there is none, and continues one that exists', async () => {
    const path = join(folder, 'chat.json');
    const fresh = await openSession({ both: path });
    expect(fresh.loaded).toBeUndefined();
    expect(fresh.recorder?.path).toBe(path);
    await saveSession(path, session);
    const again = await openSession({ both: path }, { now: clock() });
    expect(again.loaded).toEqual(session);
    await again.recorder?.record({ model: session.model, messages: [] });
    // Saving back to the file it came from keeps the conversation's start time.
    expect((await loadSession(path)).createdAt).toBe(session.createdAt);
  });

  it('--load-session with --save-session copies into a new conversation', async () => {
    const from = join(folder, 'from.json');
    const to = join(folder, 'to.json');
    await saveSession(from, { ...session, messages: messages.slice(0, 2) });
    const opened = await openSession({ load: from, save: to }, { now: clock() });
    // The call left open by a killed process is answered, so the next request is valid.
    expect(opened.loaded?.messages).toHaveLength(3);
    expect(opened.loaded?.messages[2]?.role).toBe('tool');
    await opened.recorder?.record({ model: 'x:y', messages: [] });
    expect((await loadSession(to)).createdAt).toBe('2025-02-01T08:00:01.000Z');
    expect((await loadSession(from)).messages).toHaveLength(2);
  });

  it('refuses to start on a corrupt, newer or missing file, leaving it unchanged', async () => {
    const corrupt = join(folder, 'corrupt.json');
    await writeFile(corrupt, '{"version": 1,');
    await expectConfigError(openSession({ both: corrupt }), corrupt, /invalid JSON/);
    await expectConfigError(openSession({ save: corrupt }), corrupt, /refusing to overwrite it/);
    expect(await readFile(corrupt, 'utf8')).toBe('{"version": 1,');

    const newer = join(folder, 'newer.json');
    const newerText = JSON.stringify({ ...JSON.parse(serializeSession(session)), version: 2 });
    await writeFile(newer, newerText);
    await expectConfigError(openSession({ both: newer }), newer, /newer mcphost/);
    expect(await readFile(newer, 'utf8')).toBe(newerText);

    const missing = join(folder, 'missing.json');
    await expectConfigError(openSession({ load: missing }), missing, /no such session file/);
    const nowhere = join(folder, 'no-such-folder', 'chat.json');
    await expectConfigError(openSession({ save: nowhere }), nowhere, /no such directory/);
    await expect(openSession({ both: corrupt, load: missing })).rejects.toThrow(/either --session/);
  });
});
