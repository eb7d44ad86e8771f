import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors.js';
import { removeStaleTemporaryFiles, writeFileAtomic } from '../../src/util/atomic-file.js';
import { ConversationJournal, openConversationFiles } from '../../src/conversation/conversation-journal.js';
import {
  closeOpenToolCalls,
  loadSavedConversation,
  loadSavedConversationIfExists,
  saveConversation,
  serializeSavedConversation,
  SAVED_CONVERSATION_FORMAT_VERSION,
  type SavedConversation,
} from '../../src/conversation/saved-conversation.js';
import type { Message } from '../../src/core/types.js';
import { CONVERSATION, SYSTEM_PROMPT } from '../fixtures/conversation.js';

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'mcphost-conversation-'));
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

const session: SavedConversation = {
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

/** The version-1 format (one JSON document), as mcphost 0.1 wrote it, for the loading tests. */
function versionOneText(conversation: SavedConversation): string {
  const file = {
    version: 1,
    model: conversation.model,
    ...(conversation.systemPrompt === undefined ? {} : { systemPrompt: conversation.systemPrompt }),
    createdAt: conversation.createdAt,
    updatedAt: conversation.updatedAt,
    messages: conversation.messages,
  };
  return `${JSON.stringify(file, null, 2)}\n`;
}

/** What loading adds to a conversation: the format and what the reader noticed. */
function loadedAs(conversation: SavedConversation, format: 1 | 2) {
  return { ...conversation, format, notes: [], compactions: 0 };
}

async function load(path: string): Promise<SavedConversation> {
  const { model, systemPrompt, createdAt, updatedAt, messages } = await loadSavedConversation(path);
  return { model, ...(systemPrompt === undefined ? {} : { systemPrompt }), createdAt, updatedAt, messages };
}

describe('saved conversation files', () => {
  it('saves a journal and loads it back with images, tool calls and results unchanged', async () => {
    const path = join(folder, 'chat.jsonl');
    await saveConversation(path, session);
    expect(await load(path)).toEqual(session);
    const lines = (await readFile(path, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines[0]).toEqual({
      type: 'header',
      version: SAVED_CONVERSATION_FORMAT_VERSION,
      model: session.model,
      systemPrompt: session.systemPrompt,
      createdAt: session.createdAt,
    });
    expect(lines.slice(1).map((line) => line.type)).toEqual(messages.map(() => 'message'));
    expect(lines).toHaveLength(1 + messages.length);
  });

  it('round-trips the shared contract conversation (every kind of message and block)', async () => {
    const path = join(folder, 'contract.jsonl');
    const contract: SavedConversation = { ...session, systemPrompt: SYSTEM_PROMPT, messages: CONVERSATION };
    await saveConversation(path, contract);
    expect(await load(path)).toEqual(contract);
  });

  it('still loads the version-1 format (one JSON document)', async () => {
    const path = join(folder, 'old.json');
    await writeFile(path, versionOneText(session));
    expect(await loadSavedConversation(path)).toEqual(expect.objectContaining(loadedAs(session, 1)));
  });

  it('writes new files readable by the user only, and keeps the mode of a file it replaces', async () => {
    const fresh = join(folder, 'fresh.jsonl');
    await saveConversation(fresh, session);
    expect((await stat(fresh)).mode & 0o777).toBe(0o600);
    const shared = join(folder, 'shared.jsonl');
    await writeFile(shared, serializeSavedConversation(session));
    await chmod(shared, 0o644);
    await saveConversation(shared, { ...session, messages: [] });
    expect((await stat(shared)).mode & 0o777).toBe(0o644);
  });

  it('replaces the file a symbolic link points to, keeping the link', async () => {
    const target = join(folder, 'real.jsonl');
    const link = join(folder, 'link.jsonl');
    await writeFile(target, serializeSavedConversation(session));
    await symlink(target, link);
    await saveConversation(link, { ...session, model: 'ollama:llama3.2' });
    expect((await load(target)).model).toBe('ollama:llama3.2');
    expect((await stat(link)).isFile()).toBe(true);
    expect((await readdir(folder)).sort()).toEqual(['link.jsonl', 'real.jsonl']);
  });

  it('names the file and the place of the first problem (version 1)', async () => {
    const path = join(folder, 'broken.json');
    const write = (value: unknown) =>
      writeFile(path, typeof value === 'string' ? value : JSON.stringify(value));

    await write('{"version": 1, "model": ');
    await expectConfigError(loadSavedConversation(path), path, /^not a valid session file: invalid JSON/);

    await write({ mcpServers: {} });
    await expectConfigError(
      loadSavedConversation(path),
      path,
      /not an mcphost session file \(no "version"\)/,
    );

    await write({ ...JSON.parse(versionOneText(session)), version: 3 });
    await expectConfigError(
      loadSavedConversation(path),
      path,
      /version 3 was written by a newer mcphost .*upgrade mcphost/,
    );

    const broken = JSON.parse(versionOneText(session)) as { messages: Array<{ content: unknown[] }> };
    broken.messages[1]!.content[0] = { type: 'txt', text: 'x' };
    await write(broken);
    await expectConfigError(
      loadSavedConversation(path),
      path,
      /^not a valid session file: messages\[1\]\.content\[0\]\.type: expected one of "text", "tool-call"$/,
    );

    await write({ ...JSON.parse(versionOneText(session)), updatedAt: 'yesterday' });
    await expectConfigError(loadSavedConversation(path), path, /updatedAt: expected an ISO 8601 date-time/);
  });

  it('names the file, the line and the field of a bad journal entry', async () => {
    const path = join(folder, 'broken.jsonl');
    const good = serializeSavedConversation(session).split('\n');
    const entry = JSON.parse(good[2]!) as { message: { content: Array<Record<string, unknown>> } };
    entry.message.content[0] = { type: 'txt', text: 'x' };
    await writeFile(path, [good[0], good[1], JSON.stringify(entry), good[3], ''].join('\n'));
    await expectConfigError(
      loadSavedConversation(path),
      path,
      /^line 3: not a valid entry: message\.content\[0\]\.type: expected one of "text", "tool-call"$/,
    );
    await writeFile(path, [good[0], '{"type":"message",', good[2], ''].join('\n'));
    await expectConfigError(loadSavedConversation(path), path, /^line 2: not valid JSON/);
    await writeFile(
      path,
      [good[0], '{"type":"truncate","at":"2025-01-31T12:00:00.000Z","length":5}', ''].join('\n'),
    );
    await expectConfigError(
      loadSavedConversation(path),
      path,
      /^line 2: truncate to 5 messages, but there are only 0$/,
    );
    await writeFile(path, `${JSON.stringify({ ...JSON.parse(good[0]!), version: 9 })}\n`);
    await expectConfigError(loadSavedConversation(path), path, /version 9 was written by a newer mcphost/);
  });

  it('drops a torn last line with a note naming the file and the line', async () => {
    const path = join(folder, 'torn.jsonl');
    const whole = serializeSavedConversation(session);
    const lines = whole.split('\n');
    // A kill in the middle of appending the last message.
    const torn = [...lines.slice(0, 4), lines[4]!.slice(0, 25)].join('\n');
    await writeFile(path, torn);
    const loaded = await loadSavedConversation(path);
    expect(loaded.messages).toEqual(messages.slice(0, 3));
    expect(loaded.notes).toEqual([
      `${path}: line 5 was cut short (mcphost was stopped while saving it) and is left out`,
    ]);
  });

  it('says when the file is missing or empty; loadSavedConversationIfExists treats both as none', async () => {
    const missing = join(folder, 'missing.jsonl');
    await expectConfigError(loadSavedConversation(missing), missing, /no such session file/);
    expect(await loadSavedConversationIfExists(missing)).toBeUndefined();
    const empty = join(folder, 'empty.jsonl');
    await writeFile(empty, '');
    await expectConfigError(loadSavedConversation(empty), empty, /empty/);
    expect(await loadSavedConversationIfExists(empty)).toBeUndefined();
  });

  it('never overwrites a file that is not a session it can read', async () => {
    const cases = {
      'corrupt.json': '{"version": 1, "messages": [',
      'newer.json': JSON.stringify({ ...JSON.parse(versionOneText(session)), version: 7 }),
      'notes.txt': 'my precious notes\n',
    };
    for (const [name, text] of Object.entries(cases)) {
      const path = join(folder, name);
      await writeFile(path, text);
      await expectConfigError(saveConversation(path, session), path, /refusing to overwrite it$/);
      expect(await readFile(path, 'utf8')).toBe(text);
    }
    expect((await readdir(folder)).sort()).toEqual(Object.keys(cases).sort());
  });

  it('overwrites an empty file and a valid conversation', async () => {
    const path = join(folder, 'made-by-mktemp');
    await writeFile(path, '');
    await saveConversation(path, session);
    await saveConversation(path, { ...session, messages: messages.slice(0, 1) });
    expect((await load(path)).messages).toEqual(messages.slice(0, 1));
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

describe('ConversationJournal and openConversationFiles', () => {
  const clock = () => {
    let now = Date.parse('2025-02-01T08:00:00.000Z');
    return () => (now += 1000);
  };
  const lineCount = async (path: string) => (await readFile(path, 'utf8')).trimEnd().split('\n').length;

  it('appends each change as one line, keeping the start time and moving the update time', async () => {
    const path = join(folder, 'chat.jsonl');
    const journal = await ConversationJournal.open(path, { now: clock() });
    const history: Message[] = [];
    history.push(messages[0]!);
    await journal.record({ model: 'ollama:llama3.2', messages: history });
    const first = await load(path);
    const firstText = await readFile(path, 'utf8');
    for (const message of messages.slice(1)) {
      history.push(message);
      await journal.record({ model: 'ollama:llama3.2', messages: [...history] });
    }
    const text = await readFile(path, 'utf8');
    // Appended, never rewritten: the file starts with what it held after the first save.
    expect(text.startsWith(firstText)).toBe(true);
    expect(await lineCount(path)).toBe(1 + messages.length);
    expect(first).toEqual({
      model: 'ollama:llama3.2',
      createdAt: '2025-02-01T08:00:01.000Z',
      updatedAt: '2025-02-01T08:00:02.000Z',
      messages: messages.slice(0, 1),
    });
    expect(await load(path)).toEqual({
      model: 'ollama:llama3.2',
      createdAt: '2025-02-01T08:00:01.000Z',
      updatedAt: '2025-02-01T08:00:05.000Z',
      messages,
    });
  });

  it('records a turn taken back, a model switch and a compaction, and replays them', async () => {
    const path = join(folder, 'chat.jsonl');
    const journal = await ConversationJournal.open(path, { now: clock() });
    await journal.record({ model: 'a:one', messages });
    await journal.record({ model: 'a:one', messages: messages.slice(0, 2) });
    expect((await load(path)).messages).toEqual(messages.slice(0, 2));
    const summary: Message = { role: 'user', content: [{ type: 'text', text: 'summary' }] };
    const compacted = [summary, messages[1]!, messages[2]!];
    await journal.record(
      { model: 'b:two', messages: compacted },
      { summary: 'summary', replacedMessages: 1 },
    );
    const reply: Message = { role: 'assistant', content: [{ type: 'text', text: 'after' }] };
    await journal.record({ model: 'b:two', messages: [...compacted, reply] });
    const types = (await readFile(path, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as { type: string }).type);
    expect(types).toEqual([
      'header',
      'message',
      'message',
      'message',
      'message',
      'truncate',
      'model',
      'compaction',
      'message',
    ]);
    const loaded = await loadSavedConversation(path);
    expect(loaded.model).toBe('b:two');
    expect(loaded.compactions).toBe(1);
    expect(loaded.messages).toEqual([...compacted, reply]);
  });

  it('continues a journal after a torn last line: cuts it off, then appends', async () => {
    const path = join(folder, 'chat.jsonl');
    const whole = serializeSavedConversation({ ...session, messages: messages.slice(0, 2) });
    await writeFile(path, `${whole}{"type":"message","at":"2025`);
    const opened = await openConversationFiles({ both: path }, { now: clock() });
    expect(opened.loaded?.notes).toHaveLength(1);
    // The open tool calls of the last message are answered, and that answer is saved.
    const history = opened.loaded!.messages;
    expect(history).toHaveLength(3);
    await opened.journal!.record({ model: session.model, messages: history });
    const text = await readFile(path, 'utf8');
    expect(text.startsWith(whole)).toBe(true);
    const reloaded = await loadSavedConversation(path);
    expect(reloaded.notes).toEqual([]);
    expect(reloaded.messages).toEqual(history);
  });

  it('--session: starts a new file when there is none, and continues one that exists', async () => {
    const path = join(folder, 'chat.jsonl');
    const fresh = await openConversationFiles({ both: path });
    expect(fresh.loaded).toBeUndefined();
    expect(fresh.journal?.path).toBe(path);
    await saveConversation(path, session);
    const again = await openConversationFiles({ both: path }, { now: clock() });
    expect(again.loaded).toEqual(
      expect.objectContaining(loadedAs({ ...session, updatedAt: session.updatedAt }, 2)),
    );
    await again.journal?.record({ model: session.model, messages: [] });
    // Going on in the file it came from keeps the conversation's start time.
    expect((await load(path)).createdAt).toBe(session.createdAt);
  });

  it('--session on a version-1 file: loads it, then rewrites it once as a journal', async () => {
    const path = join(folder, 'old.json');
    await writeFile(path, versionOneText(session));
    const opened = await openConversationFiles({ both: path }, { now: clock() });
    expect(opened.loaded?.format).toBe(1);
    const reply: Message = { role: 'user', content: [{ type: 'text', text: 'more' }] };
    await opened.journal!.record({ model: session.model, messages: [...opened.loaded!.messages, reply] });
    const converted = await loadSavedConversation(path);
    expect(converted.format).toBe(2);
    expect(converted.createdAt).toBe(session.createdAt);
    expect(converted.messages).toEqual([...messages, reply]);
  });

  it('--load-session with --save-session copies into a new conversation', async () => {
    const from = join(folder, 'from.jsonl');
    const to = join(folder, 'to.jsonl');
    await saveConversation(from, { ...session, messages: messages.slice(0, 2) });
    const opened = await openConversationFiles({ load: from, save: to }, { now: clock() });
    expect(opened.loaded?.messages).toHaveLength(3);
    expect(opened.loaded?.messages[2]?.role).toBe('tool');
    await opened.journal?.record({ model: 'x:y', messages: [] });
    expect((await load(to)).createdAt).toBe('2025-02-01T08:00:01.000Z');
    expect((await load(from)).messages).toHaveLength(2);
  });

  it('refuses to start on a corrupt, newer or missing file, leaving it unchanged', async () => {
    const corrupt = join(folder, 'corrupt.json');
    await writeFile(corrupt, '{"version": 1,');
    await expectConfigError(openConversationFiles({ both: corrupt }), corrupt, /invalid JSON/);
    await expectConfigError(openConversationFiles({ save: corrupt }), corrupt, /refusing to overwrite it/);
    expect(await readFile(corrupt, 'utf8')).toBe('{"version": 1,');

    const newer = join(folder, 'newer.json');
    const newerText = JSON.stringify({ ...JSON.parse(versionOneText(session)), version: 3 });
    await writeFile(newer, newerText);
    await expectConfigError(openConversationFiles({ both: newer }), newer, /newer mcphost/);
    expect(await readFile(newer, 'utf8')).toBe(newerText);

    const missing = join(folder, 'missing.json');
    await expectConfigError(openConversationFiles({ load: missing }), missing, /no such session file/);
    const nowhere = join(folder, 'no-such-folder', 'chat.json');
    await expectConfigError(openConversationFiles({ save: nowhere }), nowhere, /no such directory/);
    await expect(openConversationFiles({ both: corrupt, load: missing })).rejects.toThrow(/either --session/);
  });
});
