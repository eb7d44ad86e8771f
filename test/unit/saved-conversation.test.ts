import { spawn } from 'node:child_process';
import { chmod, mkdir, readFile, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTemporaryFolder } from '../support/temporary-folder.js';
import { removeStaleTemporaryFiles, writeFileAtomic } from '../../src/util/atomic-file.js';
import {
  closeOpenToolCalls,
  loadSavedConversation,
  loadSavedConversationIfExists,
  saveConversation,
  serializeSavedConversation,
  SAVED_CONVERSATION_FORMAT_VERSION,
  type SavedConversation,
} from '../../src/conversation/saved-conversation.js';
import { CONVERSATION, SYSTEM_PROMPT } from '../fixtures/conversation.js';

import {
  expectConfigError,
  load,
  loadedAs,
  messages,
  session,
  versionOneText,
} from '../support/saved-conversation-fixtures.js';

const folder = useTemporaryFolder('mcphost-conversation-');

describe('saved conversation files', () => {
  it('saves a journal and loads it back with images, tool calls and results unchanged', async () => {
    const path = join(folder.path, 'chat.jsonl');
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
    const path = join(folder.path, 'contract.jsonl');
    const contract: SavedConversation = { ...session, systemPrompt: SYSTEM_PROMPT, messages: CONVERSATION };
    await saveConversation(path, contract);
    expect(await load(path)).toEqual(contract);
  });

  it('still loads the version-1 format (one JSON document)', async () => {
    const path = join(folder.path, 'old.json');
    await writeFile(path, versionOneText(session));
    expect(await loadSavedConversation(path)).toEqual(expect.objectContaining(loadedAs(session, 1)));
  });

  it('writes new files readable by the user only, and keeps the mode of a file it replaces', async () => {
    const fresh = join(folder.path, 'fresh.jsonl');
    await saveConversation(fresh, session);
    expect((await stat(fresh)).mode & 0o777).toBe(0o600);
    const shared = join(folder.path, 'shared.jsonl');
    await writeFile(shared, serializeSavedConversation(session));
    await chmod(shared, 0o644);
    await saveConversation(shared, { ...session, messages: [] });
    expect((await stat(shared)).mode & 0o777).toBe(0o644);
  });

  it('replaces the file a symbolic link points to, keeping the link', async () => {
    const target = join(folder.path, 'real.jsonl');
    const link = join(folder.path, 'link.jsonl');
    await writeFile(target, serializeSavedConversation(session));
    await symlink(target, link);
    await saveConversation(link, { ...session, model: 'ollama:llama3.2' });
    expect((await load(target)).model).toBe('ollama:llama3.2');
    expect((await stat(link)).isFile()).toBe(true);
    expect((await readdir(folder.path)).sort()).toEqual(['link.jsonl', 'real.jsonl']);
  });

  it('names the file and the place of the first problem (version 1)', async () => {
    const path = join(folder.path, 'broken.json');
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

    await write({ ...JSON.parse(versionOneText(session)), version: 5 });
    await expectConfigError(
      loadSavedConversation(path),
      path,
      /version 5 was written by a newer mcphost .*upgrade mcphost/,
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
    const path = join(folder.path, 'broken.jsonl');
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
    const path = join(folder.path, 'torn.jsonl');
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
    const missing = join(folder.path, 'missing.jsonl');
    await expectConfigError(loadSavedConversation(missing), missing, /no such session file/);
    expect(await loadSavedConversationIfExists(missing)).toBeUndefined();
    const empty = join(folder.path, 'empty.jsonl');
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
      const path = join(folder.path, name);
      await writeFile(path, text);
      await expectConfigError(saveConversation(path, session), path, /refusing to overwrite it$/);
      expect(await readFile(path, 'utf8')).toBe(text);
    }
    expect((await readdir(folder.path)).sort()).toEqual(Object.keys(cases).sort());
  });

  it('overwrites an empty file and a valid conversation', async () => {
    const path = join(folder.path, 'made-by-mktemp');
    await writeFile(path, '');
    await saveConversation(path, session);
    await saveConversation(path, { ...session, messages: messages.slice(0, 1) });
    expect((await load(path)).messages).toEqual(messages.slice(0, 1));
  });
});

describe('writeFileAtomic', () => {
  it('removes its temporary file when the rename fails, leaving the target as it was', async () => {
    const target = join(folder.path, 'a-directory');
    await mkdir(target);
    await writeFile(join(target, 'inside'), 'kept');
    await expect(writeFileAtomic(target, 'new')).rejects.toThrow();
    expect(await readdir(folder.path)).toEqual(['a-directory']);
    expect(await readFile(join(target, 'inside'), 'utf8')).toBe('kept');
  });

  it('cleans up the temporary files of writers that died, but not of live ones', async () => {
    const target = join(folder.path, 'chat.json');
    const deadPid = await new Promise<number>((resolve, reject) => {
      const child = spawn(process.execPath, ['-e', '0']);
      child.on('error', reject);
      child.on('exit', () => resolve(child.pid!));
    });
    const dead = `.chat.json.${deadPid}.abcdef.tmp`;
    const alive = `.chat.json.${process.ppid}.abcdef.tmp`;
    const unrelated = `.other.json.${deadPid}.abcdef.tmp`;
    for (const name of [dead, alive, unrelated]) await writeFile(join(folder.path, name), '{');
    await removeStaleTemporaryFiles(target);
    expect((await readdir(folder.path)).sort()).toEqual([alive, unrelated].sort());
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
