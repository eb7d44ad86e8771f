/**
 * Sessions through the built CLI: save, load and continue with the history intact; corrupt and
 * newer-version files refused and left alone; a writer killed mid-write leaves a whole file.
 */
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JsonResult, StreamEvent } from '../../src/cli/output/schema.js';
import { openConversationFiles } from '../../src/conversation/conversation-journal.js';
import { loadSavedConversation } from '../../src/conversation/saved-conversation.js';
import type { Message } from '../../src/core/types.js';
import { errorReply, textReply, toolCallReply, type FakeChatMessage } from '../fakes/ollama-server.js';
import { REPOSITORY, runCli, EVERYTHING_SERVER } from '../support/cli.js';
import { useCliFixture } from '../support/cli-fixture.js';
import { jsonLines, startCli } from './scripting-helpers.js';
import { UNTRUSTED_CONTENT_CLAUSE } from '../../src/safety/untrusted-content.js';
import { enveloped } from '../support/untrusted.js';

const fixture = useCliFixture({ config: { mcpServers: { everything: EVERYTHING_SERVER } } });

/** Role and text of each message the model received (tool calls shown by name). */
function transcript(messages: readonly FakeChatMessage[] | undefined): string[][] {
  return (messages ?? []).map((message) => [
    message.role,
    message.content + (message.tool_calls ?? []).map((call) => `[${call.function.name}]`).join(''),
  ]);
}

describe('sessions', () => {
  it('saves after a run, and a later run continues the conversation with the history intact', async () => {
    // A large window: this test is about the saved history, not compaction (the everything
    // server's tools and the default system-prompt clause would otherwise fill the fake's window).
    await fixture.home.writeConfig({ mcpServers: { everything: EVERYTHING_SERVER }, contextWindow: 131_072 });
    const file = join(fixture.home.path, 'chat.json');
    const ollama = await fixture.startModel([
      toolCallReply(['everything__echo', { message: 'one' }]),
      textReply('first answer'),
      textReply('second answer'),
      textReply('third answer'),
    ]);
    const url = ollama.url;
    const first = await runCli(
      ['--save-session', 'chat.json', '-p', 'first', '--provider-url', url],
      fixture.home.path,
    );
    expect(first.code).toBe(0);
    const saved = await loadSavedConversation(file);
    expect(saved.model).toBe('ollama:mistral-small');
    expect(saved.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(saved.messages[2]).toMatchObject({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolName: 'everything__echo',
          content: [{ type: 'text', text: 'Echo: one' }],
          isError: false,
        },
      ],
    });
    const savedText = await readFile(file, 'utf8');

    const second = await runCli(
      ['--load-session', file, '-p', 'second', '--provider-url', url],
      fixture.home.path,
    );
    expect(second.code).toBe(0);
    expect(second.stdout).toBe('second answer\n');
    // As the model receives it: the clause, and the tool result marked as data (both by default).
    expect(transcript(ollama.chatRequests[2]?.messages)).toEqual([
      ['system', UNTRUSTED_CONTENT_CLAUSE],
      ['user', 'first'],
      ['assistant', '[everything__echo]'],
      ['tool', enveloped('everything__echo', 'Echo: one')],
      ['assistant', 'first answer'],
      ['user', 'second'],
    ]);
    // --load-session alone does not write.
    expect(await readFile(file, 'utf8')).toBe(savedText);

    const third = await runCli(
      [
        '-s',
        'chat.json',
        '-p',
        'third',
        '-m',
        'ollama:qwen2.5:3b',
        '--output-format',
        'json',
        '--provider-url',
        url,
      ],
      fixture.home.path,
    );
    expect(third.code).toBe(0);
    expect((JSON.parse(third.stdout) as JsonResult).sessionFile).toBe(file);
    const continued = await loadSavedConversation(file);
    expect(continued.model).toBe('ollama:qwen2.5:3b');
    expect(continued.createdAt).toBe(saved.createdAt);
    expect(continued.messages.slice(0, 4)).toEqual(saved.messages);
    expect(continued.messages.slice(4)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'third' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'third answer' }] },
    ]);
  });

  it("continues with the session's model and system prompt unless told otherwise", async () => {
    const ollama = await fixture.startModel([textReply('a'), textReply('b')]);
    const url = ollama.url;
    await runCli(
      [
        '-m',
        'ollama:llama3.2',
        '--system-prompt',
        'Be terse.',
        '-s',
        's.json',
        '-p',
        'x',
        '--provider-url',
        url,
      ],
      fixture.home.path,
    );
    const run = await runCli(['-s', 's.json', '-p', 'y', '--provider-url', url], fixture.home.path);
    expect(run.code).toBe(0);
    const request = ollama.chatRequests[1];
    expect(request?.model).toBe('llama3.2');
    // The session keeps the user's prompt; the run adds the untrusted-content clause (on by default).
    expect(request?.messages[0]).toMatchObject({
      role: 'system',
      content: `Be terse.\n\n${UNTRUSTED_CONTENT_CLAUSE}`,
    });
  });

  it('refuses corrupt, hand-broken and newer-version files with exit code 2, leaving them unchanged', async () => {
    const ollama = await fixture.startModel([textReply('never')]);
    // The version-1 format (one JSON document), which still loads.
    const valid = {
      version: 1,
      model: 'ollama:llama3.2',
      createdAt: '2025-01-01T00:00:00.000Z',
      updatedAt: '2025-01-01T00:00:00.000Z',
      messages: [],
    };
    const files = {
      'corrupt.json': '{"version": 1, "messages": [',
      'broken.json': JSON.stringify({
        ...valid,
        messages: [{ role: 'user', content: [{ type: 'picture' }] }],
      }),
      'newer.json': JSON.stringify({ ...valid, version: 5 }),
    };
    for (const [name, text] of Object.entries(files)) await writeFile(join(fixture.home.path, name), text);
    const cases: Array<[string[], string, RegExp]> = [
      [['-s', 'corrupt.json'], 'corrupt.json', /not a valid session file: invalid JSON/],
      [['--save-session', 'corrupt.json'], 'corrupt.json', /invalid JSON .*refusing to overwrite it/],
      [
        ['--load-session', 'broken.json'],
        'broken.json',
        /messages\[0\]\.content\[0\]\.type: expected one of "text", "image"/,
      ],
      [['-s', 'newer.json'], 'newer.json', /version 5 was written by a newer mcphost .*upgrade mcphost/],
      [['--save-session', 'newer.json'], 'newer.json', /newer mcphost.*refusing to overwrite it/],
    ];
    for (const [flags, name, message] of cases) {
      const run = await runCli([...flags, '-p', 'hi', '--provider-url', ollama.url], fixture.home.path);
      expect({ flags, code: run.code }).toEqual({ flags, code: 2 });
      expect(run.stderr).toContain(`mcphost: ${join(fixture.home.path, name)}: `);
      expect(run.stderr).toMatch(message);
    }
    const json = await runCli(['-s', 'newer.json', '-p', 'hi', '--output-format', 'json'], fixture.home.path);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, exitCode: 2, error: { type: 'ConfigError' } });
    for (const [name, text] of Object.entries(files))
      expect(await readFile(join(fixture.home.path, name), 'utf8')).toBe(text);
    // Refused before any model was asked.
    expect(ollama.requests).toHaveLength(0);
  });

  it('a failed turn leaves the conversation as it was before it', async () => {
    const ollama = await fixture.startModel([textReply('fine'), errorReply(400, 'invalid request')]);
    await runCli(['-s', 'chat.json', '-p', 'first', '--provider-url', ollama.url], fixture.home.path);
    const failed = await runCli(
      ['-s', 'chat.json', '-p', 'second', '--provider-url', ollama.url],
      fixture.home.path,
    );
    expect(failed.code).toBe(3);
    const session = await loadSavedConversation(join(fixture.home.path, 'chat.json'));
    expect(session.messages.map((message) => message.content[0])).toEqual([
      { type: 'text', text: 'first' },
      { type: 'text', text: 'fine' },
    ]);
  });

  it('Ctrl-C in the middle of a turn leaves a whole file holding every finished step', async () => {
    const ollama = await fixture.startModel([
      toolCallReply(['everything__echo', { message: 'kept' }]),
      { type: 'stall', text: ['half an'] },
    ]);
    const cli = startCli(
      ['-s', 'chat.json', '-p', 'go', '--output-format', 'stream-json', '--provider-url', ollama.url],
      fixture.home.path,
    );
    cli.child.stdin.end();
    await cli.waitForStdout((stdout) => stdout.includes('"text-delta"'));
    cli.child.kill('SIGINT');
    const run = await cli.done;
    expect(run.code).toBe(130);
    expect(jsonLines<StreamEvent>(run.stdout).at(-1)).toMatchObject({
      type: 'result',
      stopReason: 'interrupted',
    });
    const session = await loadSavedConversation(join(fixture.home.path, 'chat.json'));
    expect(session.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    expect(session.messages[2]?.content[0]).toMatchObject({
      content: [{ type: 'text', text: 'Echo: kept' }],
    });
  });

  it('--no-exit goes on saving the chat that follows', async () => {
    const ollama = await fixture.startModel([textReply('one'), textReply('two')]);
    const run = await runCli(
      ['-s', 'chat.json', '-p', 'first', '--no-exit', '--provider-url', ollama.url],
      fixture.home.path,
      {
        stdin: 'second\n/quit\n',
      },
    );
    expect(run.code).toBe(0);
    const session = await loadSavedConversation(join(fixture.home.path, 'chat.json'));
    expect(session.messages.map((message) => message.content[0])).toEqual(
      ['first', 'one', 'second', 'two'].map((text) => ({ type: 'text', text })),
    );
  });
});

/** Message k of what append-loop.mjs writes. */
function loopMessage(index: number): Message {
  return { role: 'user', content: [{ type: 'text', text: `message ${index} ${'x'.repeat(600_000)}` }] };
}

const ROUNDS = 20;

describe('a conversation journal killed mid-append', () => {
  it(
    'loads every whole entry, drops a torn last line with a note, and goes on from there',
    { timeout: 120_000 },
    async () => {
      const appender = join(REPOSITORY, 'test/fixtures/scripts/append-loop.mjs');
      const module = join(REPOSITORY, 'dist/src/conversation/conversation-journal.js');
      let tornLines = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const target = join(fixture.home.path, `killed-${round}.jsonl`);
        const child = spawn(process.execPath, [appender, module, target], {
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let reported = -1;
        let stderr = '';
        child.stdout.on('data', (chunk: Buffer) => {
          reported = Number(chunk.toString().trim().split('\n').at(-1));
        });
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        const exited = new Promise<NodeJS.Signals | null>((resolve) =>
          child.on('close', (_code, signal) => resolve(signal)),
        );
        await new Promise<void>((resolve, reject) => {
          child.stdout.once('data', () => resolve());
          child.on('close', () => reject(new Error(`the appender ended on its own:\n${stderr}`)));
        });
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 60));
        child.kill('SIGKILL');
        expect(await exited).toBe('SIGKILL');

        const loaded = await loadSavedConversation(target);
        // Every message it holds is whole and in order, and none it reported saved is missing.
        expect(loaded.messages.length).toBeGreaterThanOrEqual(reported);
        loaded.messages.forEach((message, index) => expect(message).toEqual(loopMessage(index)));
        if (loaded.notes.length > 0) {
          tornLines += 1;
          expect(loaded.notes[0]).toMatch(/was cut short .* and is left out$/);
        }
        // Going on from the killed journal: the torn line is cut off and the next entry is whole.
        const opened = await openConversationFiles({ both: target });
        const next = [...opened.loaded!.messages, loopMessage(loaded.messages.length)];
        await opened.journal!.record({ model: 'ollama:test', messages: next });
        const continued = await loadSavedConversation(target);
        expect(continued.notes).toEqual([]);
        expect(continued.messages).toEqual(next);
      }
      // The kills are random; say how many landed mid-line (usually most of them).
      console.log(`${tornLines} of ${ROUNDS} kills left a torn last line`);
    },
  );
});
