/**
 * The embedded provider on the real llama.cpp binding (node-llama-cpp), with the tiny
 * random-weight model of test/fixtures/tiny-gguf.ts: streaming, usage, the context window, abort,
 * a forced tool call (the grammar writes it; the Runner runs it on a fake host) and closing.
 * One thread: the tiny model is fastest so, and the machine is shared.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProvider } from '../../providers/index.js';
import { LocalProvider } from '../../providers/local/provider.js';
import { AbortedError, ConfigError, ProviderError } from '../../src/core/errors.js';
import { Runner } from '../../src/core/runner.js';
import { createRunner } from '../../src/setup/create-runner.js';
import type {
  ChatRequest,
  Provider,
  ProviderEvent,
  ToolCallBlock,
  ToolHost,
  ToolResultBlock,
} from '../../src/core/types.js';
import { TINY_GGUF_SHAPE, writeTinyGguf } from '../fixtures/tiny-gguf.js';

let folder: string;
let modelPath: string;
let qwenModelPath: string;
const env = { MCPHOST_LOCAL_THREADS: '1' };

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'mcphost-local-'));
  modelPath = await writeTinyGguf(join(folder, 'tiny.gguf'));
  // Qwen3's template: its chat wrapper has a function-call syntax, so tools are called natively.
  // Leaning to `"` ends a string argument at once (random bytes would pass its maxLength in
  // characters: see TinyGgufShape.favouredByte).
  qwenModelPath = await writeTinyGguf(join(folder, 'tiny-qwen3.gguf'), {
    ...TINY_GGUF_SHAPE,
    chatTemplate: 'qwen3',
    favouredByte: '"',
  });
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

async function collect(provider: Provider, request: ChatRequest): Promise<ProviderEvent[]> {
  const events: ProviderEvent[] = [];
  for await (const event of provider.chat(request)) events.push(event);
  return events;
}

const hello: ChatRequest = {
  messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }],
  tools: [],
  settings: { maxTokens: 12 },
};

describe('local provider on the real binding', () => {
  it('streams text, counts usage and reports the context window of the model', async () => {
    const provider = await createProvider(`local:${modelPath}`, { env });
    try {
      expect(provider).toBeInstanceOf(LocalProvider);
      expect(await provider.contextWindow?.()).toBe(TINY_GGUF_SHAPE.contextLength);
      const events = await collect(provider, hello);
      const deltas = events.filter((event) => event.type === 'text-delta');
      // Pieces waiting to be read are joined (event-channel.ts), so there may be fewer than tokens.
      expect(deltas.length).toBeGreaterThanOrEqual(1);
      expect(deltas.map((event) => event.text).join('')).not.toBe('');
      const finish = events.at(-1);
      expect(finish?.type).toBe('finish');
      if (finish?.type !== 'finish') throw new Error('no finish');
      expect(finish.reason).toBe('length');
      // The prompt is ChatML around "hello": more than the word, fewer than the window.
      expect(finish.usage?.inputTokens).toBeGreaterThan(5);
      expect(finish.usage?.inputTokens).toBeLessThan(200);
      // A token may be a part of a character; twelve tokens is at most twelve pieces of text.
      expect(finish.usage?.outputTokens).toBe(12);
    } finally {
      await provider.close?.();
    }
  });

  it('stops at once when aborted, with AbortedError', async () => {
    const provider = await createProvider(`local:${modelPath}`, { env });
    try {
      const controller = new AbortController();
      const events: ProviderEvent[] = [];
      const run = (async () => {
        for await (const event of provider.chat({ ...hello, settings: {}, signal: controller.signal })) {
          events.push(event);
          if (events.length === 3) controller.abort();
        }
      })();
      await expect(run).rejects.toBeInstanceOf(AbortedError);
      expect(events).toHaveLength(3);
      // The provider is usable again after an abort.
      const again = await collect(provider, hello);
      expect(again.at(-1)?.type).toBe('finish');
    } finally {
      await provider.close?.();
    }
  });

  it('runs a forced, grammar-written tool call through the Runner and answers after its result', async () => {
    const provider = await createProvider(`local:${qwenModelPath}`, {
      env: { ...env, MCPHOST_LOCAL_TEST_FORCE_TOOL_CALL: '1' },
    });
    const calls: ToolCallBlock[] = [];
    const host: ToolHost = {
      tools: () =>
        Promise.resolve([
          {
            name: 'memory__remember',
            description: 'Keeps a note.',
            inputSchema: {
              type: 'object',
              properties: { note: { type: 'string', maxLength: 12 }, tag: { type: 'string', maxLength: 5 } },
              required: ['note'],
            },
          },
        ]),
      call: (call): Promise<ToolResultBlock> => {
        calls.push(call);
        return Promise.resolve({
          type: 'tool-result',
          toolCallId: call.id,
          toolName: call.name,
          content: [{ type: 'text', text: 'kept' }],
          isError: false,
        });
      },
    };
    const runner = new Runner({ provider, tools: host, settings: { maxTokens: 200 } });
    try {
      const result = await runner.run('remember something');
      // Qwen's wrapper takes several calls in one step, and random weights may write more than one.
      expect(calls.length).toBeGreaterThanOrEqual(1);
      for (const call of calls) {
        expect(call.name).toBe('memory__remember');
        expect(typeof call.input.note).toBe('string');
        expect((call.input.note as string).length).toBeLessThanOrEqual(12);
        // The optional `tag` is either a string or left out, never null.
        expect(call.input.tag === undefined || typeof call.input.tag === 'string').toBe(true);
      }
      expect(runner.history.map((message) => message.role)).toEqual([
        'user',
        'assistant',
        'tool',
        'assistant',
      ]);
      expect(typeof result.text).toBe('string');
    } finally {
      await runner.close();
      await provider.close?.();
    }
  });

  it('fails fast with a ConfigError naming a missing file, and a ProviderError for a file that is no model', async () => {
    await expect(createProvider(`local:${join(folder, 'none.gguf')}`, { env })).rejects.toThrow(ConfigError);
    await expect(createProvider(`local:${join(folder, 'none.gguf')}`, { env })).rejects.toThrow(
      /no model file at/,
    );
    const junk = join(folder, 'junk.gguf');
    await (await import('node:fs/promises')).writeFile(junk, 'not a model');
    const provider = await createProvider(`local:${junk}`, { env });
    await expect(collect(provider, hello)).rejects.toThrow(ProviderError);
    await expect(collect(provider, hello)).rejects.toThrow(/cannot load the model junk\.gguf/);
    await provider.close?.();
  });

  it('is what createRunner({ model: "local:…" }) runs, and the runner releases it on close', async () => {
    const runner = await createRunner({
      model: `local:${modelPath}`,
      mcpServers: {},
      env,
      settings: { maxTokens: 8 },
    });
    const provider = runner.provider;
    expect(provider).toBeInstanceOf(LocalProvider);
    const result = await runner.run('hello');
    expect(result.usage.outputTokens).toBe(8);
    await runner.close();
    await expect(collect(provider, hello)).rejects.toThrow(/closed/);
  });

  it('refuses calls after close', async () => {
    const provider = await createProvider(`local:${modelPath}`, { env });
    await collect(provider, hello);
    await provider.close?.();
    await provider.close?.();
    await expect(collect(provider, hello)).rejects.toThrow(/closed/);
  });
});
