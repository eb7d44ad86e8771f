/**
 * `toolCalling: auto` on the embedded model (issue 41): node-llama-cpp resolves a chat wrapper from
 * the GGUF's chat template, and a wrapper without a function-call syntax of its model's own (the
 * tiny model's plain ChatML template) is called by prompt, with the one line saying so and why;
 * Qwen3's template (a wrapper with function calling) stays native. The tiny model's weights are
 * random, so its answers are noise: what is checked is the mode decision, the line, and that the
 * JSON-schema grammar holds even noise to the prompted step's schema (a call of an offered tool
 * with schema-valid arguments, or an answer), which the calls then run.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createProvider } from '../../providers/index.js';
import { promptedRequest } from '../../src/core/tool-calling/prompted-provider.js';
import { stepSchema } from '../../src/core/tool-calling/prompted-format.js';
import type { ChatRequest, ToolSpec } from '../../src/core/types.js';
import { TINY_GGUF_SHAPE, writeTinyGguf } from '../fixtures/tiny-gguf.js';
import { EVERYTHING_SERVER, runCli, temporaryHome, type TemporaryHome } from '../support/cli.js';

let folder: string;
let chatmlModel: string;
let qwenModel: string;
let home: TemporaryHome;
const env = { MCPHOST_LOCAL_THREADS: '1' };

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'mcphost-local-prompted-'));
  // Leaning to `"` ends strings early, so a step's JSON fits a few hundred tokens; a window of 4,096
  // holds the prompt with server-everything's tools (one byte a token).
  const shape = { ...TINY_GGUF_SHAPE, favouredByte: '"', contextLength: 4096 };
  chatmlModel = await writeTinyGguf(join(folder, 'chatml.gguf'), shape);
  qwenModel = await writeTinyGguf(join(folder, 'qwen3.gguf'), { ...shape, chatTemplate: 'qwen3' });
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});
beforeEach(async () => {
  home = await temporaryHome();
});
afterEach(async () => {
  await home.remove();
});

const tools: readonly ToolSpec[] = [
  {
    name: 'memory__remember',
    description: 'Keeps a note.',
    inputSchema: {
      type: 'object',
      properties: { note: { type: 'string', maxLength: 12 }, urgent: { type: 'boolean' } },
      required: ['note', 'urgent'],
    },
  },
  {
    name: 'files__list',
    description: 'Lists a folder.',
    inputSchema: { type: 'object', properties: { depth: { enum: [1, 2, 3] } }, required: ['depth'] },
  },
];

describe('the embedded model under toolCalling auto', () => {
  it("reads native tool calling from the chat wrapper: ChatML's has none, Qwen's has", async () => {
    const chatml = await createProvider(`local:${chatmlModel}`, { env });
    const qwen = await createProvider(`local:${qwenModel}`, { env });
    try {
      expect(await chatml.supportsTools?.()).toBe(false);
      expect(chatml.noNativeToolsReason?.()).toBe(
        "node-llama-cpp's ChatML chat wrapper for its chat template has no function-call syntax",
      );
      expect(await qwen.supportsTools?.()).toBe(true);
      expect(qwen.noNativeToolsReason?.()).toBeUndefined();
    } finally {
      await chatml.close?.();
      await qwen.close?.();
    }
  });

  it('holds even a random-weight answer to the prompted step schema with its grammar', async () => {
    const provider = await createProvider(`local:${chatmlModel}`, { env });
    const request: ChatRequest = {
      messages: [{ role: 'user', content: [{ type: 'text', text: 'keep a note' }] }],
      tools,
      // Enough for the most the schema allows (8 calls) with strings closed early.
      settings: { maxTokens: 1200 },
    };
    try {
      let text = '';
      let finish: string | undefined;
      for await (const event of provider.chat(promptedRequest(request))) {
        if (event.type === 'text-delta') text += event.text;
        if (event.type === 'finish') finish = event.reason;
      }
      expect(finish).toBe('stop');
      // Random bytes would not parse; the grammar made them a step answer that validates.
      const value = JSON.parse(text) as { calls: Array<{ name: string; arguments: unknown }> };
      const validate = new Ajv({ strict: false }).compile(stepSchema(tools));
      expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
      for (const call of value.calls) {
        expect(tools.map((tool) => tool.name)).toContain(call.name);
      }
    } finally {
      await provider.close?.();
    }
  });
});

interface JsonResult {
  readonly ok: boolean;
  readonly stopReason: string;
  readonly toolCalls?: ReadonlyArray<{
    readonly name: string;
    readonly isError: boolean;
    readonly result: string;
  }>;
}

describe('mcphost -p -m local:<ChatML model> with a server', () => {
  it(
    'calls tools by prompt, says so once with the wrapper, and runs the calls the grammar wrote',
    { timeout: 90_000 },
    async () => {
      await home.writeConfig({
        mcpServers: { everything: { ...EVERYTHING_SERVER, allowedTools: ['echo'] } },
      });
      const run = await runCli(
        [
          ...['-m', `local:${chatmlModel}`, '-p', 'echo something'],
          ...['--max-tokens', '600', '--max-steps', '1', '--output-format', 'json'],
        ],
        home.path,
        { env, timeoutMs: 90_000 },
      );
      const lines = run.stderr.split('\n').filter((line) => line.includes('prompted tool calling on'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toBe(
        'mcphost: ' +
          `prompted tool calling on: local:${chatmlModel} has no native tool calling (node-llama-cpp's ChatML ` +
          'chat wrapper for its chat template has no function-call syntax), so the tools are described in the ' +
          'prompt and each answer is held to a call or a reply; --tool-calling native or none turns it off',
      );
      // Noise never answers: it calls tools (greedily, the same every run) until the step limit.
      expect(run.code).toBe(4);
      const result = JSON.parse(run.stdout) as JsonResult;
      expect(result.stopReason).toBe('max-steps');
      const calls = result.toolCalls ?? [];
      expect(calls.length).toBeGreaterThanOrEqual(1);
      // Every call the grammar wrote is of the offered tool, with arguments the server took.
      for (const call of calls) {
        expect(call.name).toBe('everything__echo');
        expect(call.isError).toBe(false);
        expect(call.result.startsWith('Echo: ')).toBe(true);
      }
    },
  );

  it('under --tool-calling native, stops with one line naming the wrapper and the choices (exit 2)', async () => {
    await home.writeConfig({ mcpServers: { everything: { ...EVERYTHING_SERVER, allowedTools: ['echo'] } } });
    const run = await runCli(
      ['-m', `local:${chatmlModel}`, '-p', 'echo something', '--tool-calling', 'native'],
      home.path,
      { env, timeoutMs: 60_000 },
    );
    expect(run.code).toBe(2);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`local:${chatmlModel} has no tool calling in its chat template`);
    expect(lines[0]).toContain('ChatML chat wrapper');
    expect(lines[0]).toContain('--tool-calling prompt');
    expect(lines[0]).toContain('--tool-calling none');
  });
});
