/**
 * The library's approval default (issue 26), with the real server-filesystem from npm and the real
 * Ollama client against its fake: without an approval callback every call runs, as before; with
 * one, a call no rule speaks to is asked about unless its tool says it is read-only, and a denial
 * reaches the model as an error result.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRunner, type ApprovalRequest } from '../../src/index.js';
import { startFakeOllama, textReply, toolCallReply, type FakeOllama } from '../fakes/ollama-server.js';
import { npmServerConfig } from '../support/cli.js';

let notes: string;
let ollama: FakeOllama | undefined;

beforeEach(async () => {
  notes = await mkdtemp(join(tmpdir(), 'mcphost-notes-'));
  await writeFile(join(notes, 'todo.txt'), 'buy mangoes\n');
});
afterEach(async () => {
  await ollama?.close();
  ollama = undefined;
  await rm(notes, { recursive: true, force: true });
});

/** A model that reads todo.txt, then writes new.txt, then answers. */
async function readThenWrite(): Promise<FakeOllama> {
  return startFakeOllama([
    toolCallReply(
      ['filesystem__read_text_file', { path: join(notes, 'todo.txt') }],
      ['filesystem__write_file', { path: join(notes, 'new.txt'), content: 'written' }],
    ),
    textReply('done'),
  ]);
}

function runnerOptions(url: string) {
  return {
    model: 'ollama:mistral-small',
    providerUrl: url,
    mcpServers: { filesystem: npmServerConfig('filesystem', notes) },
    roots: [notes],
    env: {},
  };
}

describe('createRunner approval default', () => {
  it('runs every call when no approval callback is given', async () => {
    ollama = await readThenWrite();
    await using runner = await createRunner(runnerOptions(ollama.url));
    const result = await runner.run('go');
    expect(result.toolCalls.map((record) => [record.call.name, record.result.isError])).toEqual([
      ['filesystem__read_text_file', false],
      ['filesystem__write_file', false],
    ]);
    expect(await readFile(join(notes, 'new.txt'), 'utf8')).toBe('written');
  });

  it('with a callback, asks only about the tool that is not read-only; a denial is an error result', async () => {
    ollama = await readThenWrite();
    const asked: ApprovalRequest[] = [];
    await using runner = await createRunner({
      ...runnerOptions(ollama.url),
      questions: {
        approveToolCall: (request) => {
          asked.push(request);
          return Promise.resolve({ kind: 'deny', reason: 'not now' });
        },
      },
    });
    const result = await runner.run('go');
    expect(asked.map((request) => [request.tool, request.reason])).toEqual([
      ['write_file', 'no approval rule applies, and the tool does not say it is read-only'],
    ]);
    expect(result.toolCalls.map((record) => [record.call.name, record.result.isError])).toEqual([
      ['filesystem__read_text_file', false],
      ['filesystem__write_file', true],
    ]);
    await expect(readFile(join(notes, 'new.txt'), 'utf8')).rejects.toThrow(/ENOENT/);
  });
});
