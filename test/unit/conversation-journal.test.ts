/** ConversationJournal and openConversationFiles: the append-only journal behind a saved conversation. */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTemporaryFolder } from '../support/temporary-folder.js';
import { ConversationJournal, openConversationFiles } from '../../src/conversation/conversation-journal.js';
import {
  loadSavedConversation,
  saveConversation,
  serializeSavedConversation,
} from '../../src/conversation/saved-conversation.js';
import type { AgentRun } from '../../src/agents/child-run.js';
import type { Message } from '../../src/core/types.js';

import {
  expectConfigError,
  load,
  loadedAs,
  messages,
  session,
  versionOneText,
} from '../support/saved-conversation-fixtures.js';

const folder = useTemporaryFolder('mcphost-conversation-');

describe('ConversationJournal and openConversationFiles', () => {
  const clock = () => {
    let now = Date.parse('2025-02-01T08:00:00.000Z');
    return () => (now += 1000);
  };
  const lineCount = async (path: string) => (await readFile(path, 'utf8')).trimEnd().split('\n').length;

  it('appends each change as one line, keeping the start time and moving the update time', async () => {
    const path = join(folder.path, 'chat.jsonl');
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
    const path = join(folder.path, 'chat.jsonl');
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
    const path = join(folder.path, 'chat.jsonl');
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
    const path = join(folder.path, 'chat.jsonl');
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
    const path = join(folder.path, 'old.json');
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

  it('writes journals of version 4, and brings a version-2 journal it goes on in to 4 before a task entry', async () => {
    const path = join(folder.path, 'tasks.jsonl');
    const fresh = await ConversationJournal.open(path, { now: clock() });
    await fresh.record({ model: session.model, messages: messages.slice(0, 2) });
    const header = (text: string) => JSON.parse(text.slice(0, text.indexOf('\n'))) as { version: number };
    expect(header(await readFile(path, 'utf8')).version).toBe(4);

    // A journal an earlier mcphost wrote: header version 2.
    const older = serializeSavedConversation(session).replace('"version":4', '"version":2');
    expect(header(older).version).toBe(2);
    await writeFile(path, older);
    const opened = await openConversationFiles({ both: path }, { now: clock() });
    await opened.journal!.recordTask({ toolCallId: 'call-1', server: 's', tool: 'slow', taskId: 'task-1' });
    const text = await readFile(path, 'utf8');
    expect(header(text).version).toBe(4);
    // Every entry is kept, the task's appended after them.
    expect(text.split('\n').slice(1)).toEqual([
      ...older.split('\n').slice(1, -1),
      expect.stringContaining('"type":"task"'),
      '',
    ]);
    const loaded = await loadSavedConversation(path);
    expect(loaded.messages).toEqual(session.messages);
    expect(loaded.createdAt).toBe(session.createdAt);
  });

  it("keeps each subagent run's transcript once, beside the history; a version-3 journal still loads", async () => {
    const run = (toolCallId: string, answer: string): AgentRun => ({
      agent: 'researcher',
      model: 'openai:gpt-4o-mini',
      toolCallId,
      depth: 1,
      task: 'Read the graph',
      outcome: 'completed',
      usage: { inputTokens: 11, outputTokens: 3 },
      steps: 2,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Read the graph' }] },
        {
          role: 'assistant',
          content: [{ type: 'tool-call', id: 'c1', name: 'memory__read_graph', input: {} }],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'c1',
              toolName: 'memory__read_graph',
              content: [{ type: 'text', text: '{}' }],
              isError: false,
            },
          ],
        },
        { role: 'assistant', content: [{ type: 'text', text: answer }] },
      ],
      startedAt: 1000,
      endedAt: 2000,
    });
    const path = join(folder.path, 'agents.jsonl');
    const journal = await ConversationJournal.open(path, { now: clock() });
    const first = run('toolu_1', 'It is empty.');
    await journal.record({ model: session.model, messages: messages.slice(0, 1), agentRuns: [first] });
    const second = run('toolu_2', 'Still empty.');
    // Recorded again with every change of the history: each run is written once.
    await journal.record({ model: session.model, messages: messages.slice(0, 2), agentRuns: [first] });
    await journal.record({
      model: session.model,
      messages: messages.slice(0, 3),
      agentRuns: [first, second],
    });
    const runLines = async () =>
      (await readFile(path, 'utf8')).split('\n').filter((line) => line.includes('"type":"agent-run"'));
    expect(await runLines()).toHaveLength(2);
    const loaded = await loadSavedConversation(path);
    expect(loaded.messages).toEqual(messages.slice(0, 3));
    expect(loaded.agentRuns).toEqual([first, second]);

    // Going on in it (-c): the loaded runs are not written again, a new one is.
    const opened = await openConversationFiles({ both: path }, { now: clock() });
    const third = run('toolu_3', 'Done.');
    const kept = opened.loaded?.agentRuns ?? [];
    await opened.journal!.record({
      model: session.model,
      messages: messages.slice(0, 4),
      agentRuns: [...kept, third],
    });
    expect(await runLines()).toHaveLength(3);
    expect((await loadSavedConversation(path)).agentRuns?.map((each) => each.toolCallId)).toEqual([
      'toolu_1',
      'toolu_2',
      'toolu_3',
    ]);

    // A journal of version 3 (before agent runs were kept) loads, with none.
    const older = join(folder.path, 'older.jsonl');
    await writeFile(older, serializeSavedConversation(session).replace('"version":4', '"version":3'));
    const olderLoaded = await loadSavedConversation(older);
    expect(olderLoaded.version).toBe(3);
    expect(olderLoaded.messages).toEqual(session.messages);
    expect(olderLoaded.agentRuns).toBeUndefined();
  });

  it('a journal of a newer version is one line naming the file and both versions', async () => {
    const path = join(folder.path, 'newer.jsonl');
    await writeFile(path, serializeSavedConversation(session).replace('"version":4', '"version":5'));
    const error = await openConversationFiles({ both: path }).catch((reason: unknown) => reason);
    expect(String(error)).toBe(
      `ConfigError: ${path}: session format version 5 was written by a newer mcphost (this one reads up to 4): upgrade mcphost`,
    );
  });

  it('--load-session with --save-session copies into a new conversation', async () => {
    const from = join(folder.path, 'from.jsonl');
    const to = join(folder.path, 'to.jsonl');
    await saveConversation(from, { ...session, messages: messages.slice(0, 2) });
    const opened = await openConversationFiles({ load: from, save: to }, { now: clock() });
    expect(opened.loaded?.messages).toHaveLength(3);
    expect(opened.loaded?.messages[2]?.role).toBe('tool');
    await opened.journal?.record({ model: 'x:y', messages: [] });
    expect((await load(to)).createdAt).toBe('2025-02-01T08:00:01.000Z');
    expect((await load(from)).messages).toHaveLength(2);
  });

  it('refuses to start on a corrupt, newer or missing file, leaving it unchanged', async () => {
    const corrupt = join(folder.path, 'corrupt.json');
    await writeFile(corrupt, '{"version": 1,');
    await expectConfigError(openConversationFiles({ both: corrupt }), corrupt, /invalid JSON/);
    await expectConfigError(openConversationFiles({ save: corrupt }), corrupt, /refusing to overwrite it/);
    expect(await readFile(corrupt, 'utf8')).toBe('{"version": 1,');

    const newer = join(folder.path, 'newer.json');
    const newerText = JSON.stringify({ ...JSON.parse(versionOneText(session)), version: 5 });
    await writeFile(newer, newerText);
    await expectConfigError(openConversationFiles({ both: newer }), newer, /newer mcphost/);
    expect(await readFile(newer, 'utf8')).toBe(newerText);

    const missing = join(folder.path, 'missing.json');
    await expectConfigError(openConversationFiles({ load: missing }), missing, /no such session file/);
    const nowhere = join(folder.path, 'no-such-folder', 'chat.json');
    await expectConfigError(openConversationFiles({ save: nowhere }), nowhere, /no such directory/);
    await expect(openConversationFiles({ both: corrupt, load: missing })).rejects.toThrow(/either --session/);
  });
});
