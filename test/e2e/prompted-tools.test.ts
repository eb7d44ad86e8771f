/**
 * Tool calling for models without it (issue 41), end to end: the built CLI as a user runs it (a
 * throw-away HOME, no extra flags), real MCP servers from npm (server-memory, server-filesystem),
 * and an Ollama fake whose model lacks the `tools` capability: it answers any chat with tools with
 * Ollama's 400 "… does not support tools", and holds answers to the request's `format` (a scripted
 * answer that the schema mcphost sent would refuse makes the fake fail the request).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatReply, textReply, type FakeChatRequest } from '../fakes/ollama-server.js';
import { npmServerConfig, REPOSITORY, runCli } from '../support/cli.js';
import { useCliFixture } from '../support/cli-fixture.js';

const fixture = useCliFixture();
const GEMMA = 'gemma3:4b';

interface TextCallFixtures {
  readonly forms: ReadonlyArray<{ readonly form: string; readonly text: string }>;
  readonly notCalls: ReadonlyArray<{ readonly why: string; readonly text: string }>;
}
const fixtures = JSON.parse(
  await readFile(join(REPOSITORY, 'test/fixtures/text-tool-calls.json'), 'utf8'),
) as TextCallFixtures;

async function serversWithNotes(): Promise<string> {
  const folder = await fixture.temporaryFolder('mcphost-notes-');
  await writeFile(join(folder, 'fruit.txt'), 'the fruit is mango\n');
  await fixture.home.writeConfig({
    mcpServers: {
      // A memory file of this test's own: server-memory's default file lives in its package and is
      // shared by every run (a second run found the entities there and created none).
      memory: { ...npmServerConfig('memory'), env: { MEMORY_FILE_PATH: join(folder, 'memory.jsonl') } },
      files: npmServerConfig('filesystem', folder),
    },
  });
  return folder;
}

/** The text of the request's messages, for checks on what the model was shown. */
function shown(request: FakeChatRequest | undefined): string {
  return JSON.stringify(request?.messages ?? []);
}

describe('a model without tool calling in Ollama (prompted tool calling)', () => {
  it('runs a call, then two calls in one step, then prints only the answer', async () => {
    const folder = await serversWithNotes();
    const ollama = await fixture.startModel(
      [
        formatReply({
          calls: [
            {
              name: 'memory__create_entities',
              arguments: { entities: [{ name: 'mango', entityType: 'fruit', observations: ['sweet'] }] },
            },
          ],
          answer: '',
        }),
        formatReply({
          calls: [
            { name: 'memory__read_graph', arguments: {} },
            { name: 'files__read_text_file', arguments: { path: join(folder, 'fruit.txt') } },
          ],
          answer: '',
        }),
        formatReply({ calls: [], answer: 'The fruit is "mango".\nIt is sweet.' }),
      ],
      { models: [GEMMA], withoutTools: [GEMMA] },
    );
    const run = await runCli(
      ['-m', `ollama:${GEMMA}`, '-p', 'Remember mango, then read my note.'],
      fixture.home.path,
      {
        env: { OLLAMA_HOST: ollama.url },
        timeoutMs: 60_000,
      },
    );
    expect(run.stderr).toContain(`prompted tool calling on: ollama:${GEMMA} has no native tool calling`);
    expect(run.stderr).toContain('--tool-calling native or none turns it off');
    expect(run.code).toBe(0);
    // Only the answer: never the JSON around it.
    expect(run.stdout).toBe('The fruit is "mango".\nIt is sweet.\n');
    const chats = ollama.chatRequests;
    expect(chats).toHaveLength(3);
    for (const chat of chats) {
      expect(chat.tools ?? []).toEqual([]);
      expect(chat.format).toMatchObject({ type: 'object', required: ['calls', 'answer'] });
      // Gemma 3's template shows system, user and assistant turns only.
      expect(chat.messages.every((message) => message.role !== 'tool')).toBe(true);
    }
    expect(chats[0]?.messages[0]?.role).toBe('system');
    expect(chats[0]?.messages[0]?.content).toContain('- memory__create_entities(entities: ');
    // The second request shows the first call and its result (the real server's answer).
    expect(chats[1]?.messages.at(-1)?.role).toBe('user');
    expect(chats[1]?.messages.at(-1)?.content).toMatch(/^Tool results:/);
    expect(shown(chats[1])).toContain('memory__create_entities');
    // Both calls of the second step ran: the graph has mango, the file says mango.
    const results = chats[2]?.messages.at(-1)?.content ?? '';
    expect(results).toContain('[1] memory__read_graph');
    expect(results).toContain('"name": "mango"');
    expect(results).toContain('[2] files__read_text_file');
    expect(results).toContain('the fruit is mango');
  });

  it('answers a bad call with an error the model reads, and goes on', async () => {
    await serversWithNotes();
    const ollama = await fixture.startModel(
      [
        // Valid under the format (arguments are any object there), wrong for the tool's schema.
        formatReply({
          calls: [{ name: 'memory__create_entities', arguments: { entity: 'mango' } }],
          answer: '',
        }),
        formatReply({ calls: [], answer: 'I could not store it.' }),
      ],
      { models: [GEMMA], withoutTools: [GEMMA] },
    );
    const run = await runCli(['-m', `ollama:${GEMMA}`, '-p', 'Remember mango.'], fixture.home.path, {
      env: { OLLAMA_HOST: ollama.url },
      timeoutMs: 60_000,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('I could not store it.\n');
    const results = ollama.chatRequests[1]?.messages.at(-1)?.content ?? '';
    expect(results).toContain('memory__create_entities (error)');
    expect(results).toContain("must have required property 'entities'");
  });

  it('--tool-calling native: one line naming the model and the choices, non-zero exit', async () => {
    await serversWithNotes();
    const ollama = await fixture.startModel([], { models: [GEMMA], withoutTools: [GEMMA] });
    const run = await runCli(
      ['-m', `ollama:${GEMMA}`, '--tool-calling', 'native', '-p', 'hello'],
      fixture.home.path,
      { env: { OLLAMA_HOST: ollama.url }, timeoutMs: 60_000 },
    );
    expect(run.code).not.toBe(0);
    const line = run.stderr.split('\n').find((text) => text.includes('has no tool calling in Ollama'));
    expect(line).toBeDefined();
    expect(line).toContain(`ollama:${GEMMA}`);
    expect(line).toContain('--tool-calling prompt');
    expect(line).toContain('qwen3 or llama3.1');
    expect(line).toContain('--tool-calling none');
    expect(ollama.chatRequests).toHaveLength(0);
  });

  it('--tool-calling none: a plain conversation, and a call written as text is not run', async () => {
    await serversWithNotes();
    const call = fixtures.forms[0]?.text ?? '';
    const ollama = await fixture.startModel([textReply(call)], { models: [GEMMA], withoutTools: [GEMMA] });
    const run = await runCli(
      ['-m', `ollama:${GEMMA}`, '--tool-calling', 'none', '-p', 'Remember mango.'],
      fixture.home.path,
      { env: { OLLAMA_HOST: ollama.url }, timeoutMs: 60_000 },
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('a plain conversation');
    expect(run.stdout).toBe(`${call}\n`);
    expect(ollama.chatRequests).toHaveLength(1);
    expect(ollama.chatRequests[0]?.tools ?? []).toEqual([]);
    expect(ollama.chatRequests[0]?.format).toBeUndefined();
  });
});

describe('calls written as text, by a model with tool calling', () => {
  for (const { form, text } of fixtures.forms) {
    it(`runs a call in the ${form} form and shows only the answer`, async () => {
      await serversWithNotes();
      const ollama = await fixture.startModel([textReply(text), textReply('Stored.')]);
      const run = await runCli(['-m', 'ollama:mistral-small', '-p', 'Remember it.'], fixture.home.path, {
        env: { OLLAMA_HOST: ollama.url },
        timeoutMs: 60_000,
      });
      expect(run.code).toBe(0);
      expect(run.stdout).toBe('Stored.\n');
      const second = ollama.chatRequests[1];
      const result = second?.messages.at(-1);
      expect(result?.role).toBe('tool');
      expect(result?.tool_name).toBe('memory__create_entities');
      // The real server created the entity the text asked for.
      expect(result?.content).toContain(`form-${form}`);
      expect(result?.content).not.toMatch(/^Error/);
    });
  }

  for (const { why, text } of fixtures.notCalls) {
    it(`leaves ${why} as text`, async () => {
      await serversWithNotes();
      const ollama = await fixture.startModel([textReply(text)]);
      const run = await runCli(['-m', 'ollama:mistral-small', '-p', 'How?'], fixture.home.path, {
        env: { OLLAMA_HOST: ollama.url },
        timeoutMs: 60_000,
      });
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(`${text}\n`);
      expect(ollama.chatRequests).toHaveLength(1);
    });
  }
});
