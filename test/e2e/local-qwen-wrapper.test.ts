/**
 * The embedded provider on the real binding with the tiny model carrying Qwen3's chat template, so
 * that node-llama-cpp runs it with its Qwen chat wrapper (as for a real Qwen3 file): a `<think>`
 * segment is kept out of the answer. The weights are random: the test hook forces the answer's
 * first tokens (providers/local/forced-call.ts); what comes after is node-llama-cpp's parsing and
 * ours. Also: a model larger than the machine's memory is refused with one clear line. One thread:
 * the tiny model is fastest so, and the machine is shared.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { totalmem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProvider } from '../../providers/index.js';
import { ProviderError } from '../../src/core/errors.js';
import type { ChatRequest, ProviderEvent } from '../../src/core/types.js';
import { TINY_GGUF_SHAPE, tinyGgufBytes, writeTinyGguf } from '../fixtures/tiny-gguf.js';
import { runCli, temporaryHome } from '../support/cli.js';

let folder: string;
let modelPath: string;
const env = { MCPHOST_LOCAL_THREADS: '1' };

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'mcphost-local-qwen-'));
  modelPath = await writeTinyGguf(join(folder, 'tiny-qwen3.gguf'), {
    ...TINY_GGUF_SHAPE,
    chatTemplate: 'qwen3',
  });
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe("the local provider with Qwen3's chat wrapper", () => {
  it('keeps a thought segment out of the answer, and streams it as reasoning', async () => {
    const provider = await createProvider(`local:${modelPath}`, {
      env: { ...env, MCPHOST_LOCAL_TEST_FORCE_TEXT: '<think>\nsecret plan\n</think>\n\nvisible' },
    });
    const request: ChatRequest = {
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }],
      tools: [],
      settings: { maxTokens: 30 },
    };
    try {
      const events: ProviderEvent[] = [];
      for await (const event of provider.chat(request)) events.push(event);
      const text = events.map((event) => (event.type === 'text-delta' ? event.text : '')).join('');
      expect(text).not.toContain('secret');
      expect(text).not.toContain('think>');
      // The thought comes as reasoning instead (ACP's agent_thought_chunk).
      const reasoning = events.map((event) => (event.type === 'reasoning-delta' ? event.text : '')).join('');
      expect(reasoning).toContain('secret plan');
      expect(reasoning).not.toContain('visible');
      expect(text.trimStart().startsWith('visible')).toBe(true);
      const finish = events.at(-1);
      // The thought's tokens are written by the model, so they count as its output.
      expect(finish?.type === 'finish' && finish.usage?.outputTokens).toBe(30);
    } finally {
      await provider.close?.();
    }
  });
});

/** The tiny model with its embedding table declared 2^34 rows long: terabytes of weights. */
async function writeHugeModel(path: string): Promise<string> {
  const bytes = tinyGgufBytes();
  const name = Buffer.from('token_embd.weight');
  // After the name: the number of dimensions (u32), then each dimension (u64): [embedding, vocabulary].
  const dimensions = bytes.indexOf(name) + name.length + 4;
  bytes.writeBigUInt64LE(1n << 34n, dimensions + 8);
  await writeFile(path, bytes);
  return path;
}

describe('a model larger than the machine', () => {
  it('is refused before llama.cpp maps it, saying how much it needs and what to do', async () => {
    const huge = await writeHugeModel(join(folder, 'huge.gguf'));
    const provider = await createProvider(`local:${huge}`, { env });
    const request: ChatRequest = {
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      tools: [],
      settings: {},
    };
    try {
      const answer = (async () => {
        const events: ProviderEvent[] = [];
        for await (const event of provider.chat(request)) events.push(event);
        return events;
      })();
      await expect(answer).rejects.toThrow(ProviderError);
      await expect(answer).rejects.toThrow(
        new RegExp(
          `cannot load the model huge\\.gguf: its weights need \\d+\\.\\d GiB of memory and this machine ` +
            `has ${(totalmem() / 2 ** 30).toFixed(1)} GiB in all; choose a smaller model$`,
        ),
      );
    } finally {
      await provider.close?.();
    }
  });

  it('ends a one-shot with that one line, no stack', async () => {
    const home = await temporaryHome();
    try {
      await home.writeConfig({ mcpServers: {} });
      const huge = await writeHugeModel(join(home.path, 'huge.gguf'));
      const run = await runCli(['-m', `local:${huge}`, '-p', 'hi'], home.path, { env });
      expect(run.code).not.toBe(0);
      const lines = run.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^mcphost: cannot load the model huge\.gguf: its weights need .* GiB in all; choose a smaller model$/,
      );
    } finally {
      await home.remove();
    }
  });
});
