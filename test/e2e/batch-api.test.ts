/**
 * `runBatch` in a program: shared servers start once for every job, a server marked
 * `isolation: "per-job"` gets a process of its own per job (server-memory's graph does not pass
 * from job to job), and a job's `servers` narrows its tools. Real servers from npm, the real
 * Ollama client against the fake.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runBatch, type BatchResult } from '../../src/index.js';
import { startFakeOllama, textReply, toolCallReply, type FakeOllama } from '../fakes/ollama-server.js';
import { isAlive, npmServer } from '../support/cli.js';
import { liveChildren } from '../support/processes.js';
import { memoryScript } from '../support/memory-script.js';

const SAMPLER = fileURLToPath(new URL('../fixtures/servers/sampler.mjs', import.meta.url));

let ollama: FakeOllama | undefined;
let folder: string | undefined;

afterEach(async () => {
  await ollama?.close();
  ollama = undefined;
  if (folder !== undefined) await rm(folder, { recursive: true, force: true });
  folder = undefined;
});

/** A server started through `sh`, which first adds a line to `countFile`: one line a start. */
function countedServer(
  countFile: string,
  name: 'memory' | 'everything',
  extra: Record<string, unknown> = {},
) {
  const args = name === 'everything' ? ' stdio' : '';
  return {
    command: 'sh',
    args: ['-c', `echo started >> '${countFile}'; exec '${process.execPath}' '${npmServer(name)}'${args}`],
    ...extra,
  };
}

async function linesOf(path: string): Promise<number> {
  const text = await readFile(path, 'utf8').catch(() => '');
  return text.split('\n').filter((line) => line !== '').length;
}

async function collect(results: AsyncIterable<BatchResult>): Promise<BatchResult[]> {
  const all: BatchResult[] = [];
  for await (const result of results) all.push(result);
  return all;
}

describe('runBatch', () => {
  it('starts per-job servers without a runner of their own, and writes one audit log through one sink', async () => {
    folder = await mkdtemp(join(tmpdir(), 'mcphost-batch-api-'));
    ollama = await startFakeOllama([], {
      fallback: (request) => {
        const text = JSON.stringify(request.messages);
        if (text.includes('sampler fixture')) return textReply('sampled');
        return request.messages.some((message) => message.role === 'tool')
          ? textReply('done')
          : toolCallReply(['sampler__sample', { prompt: 'say something' }]);
      },
    });
    const log = join(folder, 'audit.jsonl');
    const maxBytes = 1500;
    await writeFile(
      join(folder, '.mcp.json'),
      JSON.stringify({
        auditLog: log,
        auditLogMaxBytes: maxBytes,
        mcpServers: {
          // An unknown key: the config's warning is said once, not once more for every job.
          sampler: { command: process.execPath, args: [SAMPLER], isolation: 'per-job', colour: 'blue' },
        },
      }),
    );
    const warnings: string[] = [];
    const jobs = ['a', 'b', 'c', 'd', 'e', 'f'].map((id) => ({ id, prompt: `job ${id}` }));
    const results = await collect(
      runBatch(jobs, {
        concurrency: 3,
        runner: {
          model: 'ollama:mistral-small',
          providerUrl: ollama.url,
          env: {},
          homeDir: folder,
          onEvent: (event) => {
            if (event.type === 'warning') warnings.push(event.message);
          },
        },
      }),
    );
    expect(results.map((result) => result.status)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'ok']);
    expect(warnings.filter((warning) => warning.includes('colour'))).toHaveLength(1);
    // Each job wrote a line for its tool call and one for its server's sampling request: one sink
    // counts them all, so no file of the rotation holds more than maxBytes (but a single line).
    const files = [log, ...[1, 2, 3, 4, 5].map((index) => `${log}.${index}`)];
    const texts = (await Promise.all(files.map((file) => readFile(file, 'utf8').catch(() => '')))).filter(
      (text) => text !== '',
    );
    const lines = texts.flatMap((text) => text.split('\n').filter((line) => line !== ''));
    expect(lines.filter((line) => line.includes('"kind":"sampling"'))).toHaveLength(6);
    expect(lines).toHaveLength(12);
    expect(texts.length).toBeGreaterThan(1);
    for (const text of texts) {
      const count = text.split('\n').filter((line) => line !== '').length;
      if (count > 1) expect(Buffer.byteLength(text)).toBeLessThanOrEqual(maxBytes);
    }
  });

  it('starts a shared server once, and a per-job server once per job with nothing carried over', async () => {
    folder = await mkdtemp(join(tmpdir(), 'mcphost-batch-api-'));
    ollama = await startFakeOllama([], { fallback: memoryScript });
    const sharedStarts = join(folder, 'shared-starts');
    const memoryStarts = join(folder, 'memory-starts');
    const jobs = [
      { id: 'first', prompt: 'remember alpha' },
      { id: 'second', prompt: 'recall' },
      { id: 'third', prompt: 'remember beta' },
      { id: 'fourth', prompt: 'recall' },
    ];
    const results = await collect(
      runBatch(jobs, {
        concurrency: 2,
        runner: {
          model: 'ollama:mistral-small',
          providerUrl: ollama.url,
          env: {},
          homeDir: folder,
          mcpServers: {
            everything: countedServer(sharedStarts, 'everything'),
            memory: countedServer(memoryStarts, 'memory', {
              isolation: 'per-job',
              // Each job's process keeps its graph in the job's own folder.
              env: { MEMORY_FILE_PATH: '${MCPHOST_JOB_DIR}/memory.jsonl' },
            }),
          },
        },
      }),
    );
    const byId = new Map(results.map((result) => [result.id, result]));
    expect(results.map((result) => result.status)).toEqual(['ok', 'ok', 'ok', 'ok']);
    // Within a job the per-job server keeps what it was told...
    expect(byId.get('first')?.answer).toContain('"name": "alpha"');
    expect(byId.get('third')?.answer).toContain('"name": "beta"');
    expect(byId.get('third')?.answer).not.toContain('alpha');
    // ...and a later job sees none of it.
    for (const id of ['second', 'fourth']) {
      expect(byId.get(id)?.answer).not.toContain('alpha');
      expect(byId.get(id)?.answer).not.toContain('beta');
      expect(byId.get(id)?.toolCalls).toMatchObject([{ name: 'memory__read_graph', isError: false }]);
    }
    expect(await linesOf(sharedStarts)).toBe(1);
    expect(await linesOf(memoryStarts)).toBe(4);
    // Every job was offered both servers' tools.
    const offered = new Set(
      ollama.chatRequests.flatMap((request) => (request.tools ?? []).map((tool) => tool.function.name)),
    );
    expect(offered).toContain('everything__echo');
    expect(offered).toContain('memory__read_graph');
  });

  it('gives a job only the tools of the servers it names, and fails a job naming an unknown server', async () => {
    folder = await mkdtemp(join(tmpdir(), 'mcphost-batch-api-'));
    ollama = await startFakeOllama([], { fallback: () => textReply('done') });
    const results = await collect(
      runBatch(
        [
          { id: 'narrow', prompt: 'hi', servers: ['memory'] },
          { id: 'unknown', prompt: 'hi', servers: ['nope'] },
        ],
        {
          concurrency: 1,
          runner: {
            model: 'ollama:mistral-small',
            providerUrl: ollama.url,
            env: {},
            homeDir: folder,
            mcpServers: {
              everything: { command: process.execPath, args: [npmServer('everything'), 'stdio'] },
              memory: {
                command: process.execPath,
                args: [npmServer('memory')],
                env: { MEMORY_FILE_PATH: join(folder, 'memory.jsonl') },
              },
            },
          },
        },
      ),
    );
    expect(results.map((result) => [result.id, result.status])).toEqual([
      ['narrow', 'ok'],
      ['unknown', 'failed'],
    ]);
    expect(results[1]?.error).toMatchObject({ kind: 'ConfigError', retryable: false });
    expect(results[1]?.error?.message).toContain('no configured server "nope"');
    const names = (ollama.chatRequests[0]?.tools ?? []).map((tool) => tool.function.name);
    expect(names.length).toBeGreaterThan(0);
    expect(names.every((name) => name.startsWith('memory__'))).toBe(true);
  });

  it('closes the servers when the loop is left early', async () => {
    folder = await mkdtemp(join(tmpdir(), 'mcphost-batch-api-'));
    ollama = await startFakeOllama([], { fallback: () => textReply('done') });
    const running: number[] = [];
    for await (const result of runBatch([{ prompt: 'one' }, { prompt: 'two' }, { prompt: 'three' }], {
      concurrency: 1,
      runner: {
        model: 'ollama:mistral-small',
        providerUrl: ollama.url,
        env: {},
        homeDir: folder,
        mcpServers: { everything: { command: process.execPath, args: [npmServer('everything'), 'stdio'] } },
      },
    })) {
      expect(result.status).toBe('ok');
      running.push(...liveChildren());
      break;
    }
    expect(running.length).toBeGreaterThan(0);
    expect(running.filter(isAlive)).toEqual([]);
    expect(ollama.chatRequests.length).toBeLessThan(3);
  });

  // RunOptions.outputSchema (w7-schema): Ollama's native `format`, the answer parsed into `structured`.
  it("passes a job's outputSchema to its run and records the parsed answer", async () => {
    folder = await mkdtemp(join(tmpdir(), 'mcphost-batch-api-'));
    ollama = await startFakeOllama([], { fallback: () => textReply('{"title": "Batch"}') });
    const schema = { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] };
    const [result] = await collect(
      runBatch([{ id: 's', prompt: 'Title?', outputSchema: schema }], {
        runner: {
          model: 'ollama:mistral-small',
          providerUrl: ollama.url,
          env: {},
          homeDir: folder,
          mcpServers: {},
        },
      }),
    );
    expect(result).toMatchObject({ status: 'ok', structured: { title: 'Batch' } });
    expect(ollama.chatRequests[0]?.format).toEqual(schema);
  });

  it("offers each job the host's skill tool over the user's skills", async () => {
    folder = await mkdtemp(join(tmpdir(), 'mcphost-batch-api-'));
    const config = join(folder, 'config-home');
    await mkdir(join(config, 'mcphost', 'skills', 'notes'), { recursive: true });
    await writeFile(
      join(config, 'mcphost', 'skills', 'notes', 'SKILL.md'),
      '---\nname: notes\ndescription: Takes notes\n---\nWrite NOTES-BLUE-3.\n',
    );
    // Each job loads the skill, then answers with what the tool gave back.
    ollama = await startFakeOllama([], {
      fallback: (request) =>
        request.messages.some((message) => message.role === 'tool')
          ? textReply(request.messages.at(-1)?.content ?? '')
          : toolCallReply(['skill', { name: 'notes' }]),
    });
    const results = await collect(
      runBatch([{ prompt: 'take notes' }, { prompt: 'take notes again' }], {
        runner: {
          model: 'ollama:mistral-small',
          providerUrl: ollama.url,
          homeDir: folder,
          env: { XDG_CONFIG_HOME: config },
          mcpServers: {},
        },
      }),
    );
    expect(results.map((result) => result.status)).toEqual(['ok', 'ok']);
    for (const result of results) {
      expect(result.answer).toContain('Write NOTES-BLUE-3.');
      expect(result.toolCalls).toMatchObject([{ name: 'skill', isError: false }]);
    }
  });

  it('keeps the ask rule of a built-in bash marked per-job: denied in a batch, and not run', async () => {
    folder = await mkdtemp(join(tmpdir(), 'mcphost-batch-api-'));
    const marker = join(folder, 'ran');
    ollama = await startFakeOllama([], {
      fallback: (request) =>
        request.messages.some((message) => message.role === 'tool')
          ? textReply(`told: ${request.messages.at(-1)?.content ?? ''}`)
          : toolCallReply(['sh__run_command', { command: `touch ${marker}` }]),
    });
    const [result] = await collect(
      runBatch([{ prompt: 'touch it' }], {
        runner: {
          model: 'ollama:mistral-small',
          providerUrl: ollama.url,
          homeDir: folder,
          env: {},
          mcpServers: { sh: { type: 'builtin', name: 'bash', isolation: 'per-job' } },
        },
      }),
    );
    expect(result?.answer).toContain("needs the user's approval");
    await expect(readFile(marker)).rejects.toThrow();
  });
});
