/**
 * Structured output on the embedded model: node-llama-cpp's JSON-schema grammar makes even the
 * tiny random-weight model of test/fixtures/tiny-gguf.ts write an answer that validates. Without
 * tools the grammar applies to the first answer; with tools (node-llama-cpp takes no grammar beside
 * functions) the first answer is free text, refused, and the answer step without tools applies it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProvider } from '../../providers/index.js';
import { Runner } from '../../src/core/runner.js';
import type { JsonSchemaObject, ToolHost, ToolResultBlock } from '../../src/core/types.js';
import { TINY_GGUF_SHAPE, writeTinyGguf } from '../fixtures/tiny-gguf.js';
import { answerText } from '../../providers/local/answer-grammar.js';

let folder: string;
let modelPath: string;
let qwenModelPath: string;
const env = { MCPHOST_LOCAL_THREADS: '1' };

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'mcphost-local-schema-'));
  modelPath = await writeTinyGguf(join(folder, 'tiny.gguf'));
  // Qwen3's template: its chat wrapper has a function-call syntax, so tools are called natively.
  qwenModelPath = await writeTinyGguf(join(folder, 'tiny-qwen3.gguf'), {
    ...TINY_GGUF_SHAPE,
    chatTemplate: 'qwen3',
  });
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

/**
 * Enums, booleans and a bounded array: random byte-level weights write strings of broken UTF-8
 * (each stray byte decodes to U+FFFD, so a grammar-bounded string can come out longer than its
 * `maxLength` in characters); what the grammar fixes exactly is checked here. `mood` is optional,
 * so the grammar writes it as null when the model skips it, and the provider must drop that null.
 */
const note: JsonSchemaObject = {
  type: 'object',
  properties: {
    done: { type: 'boolean' },
    kind: { enum: ['todo', 'idea'] },
    tags: { type: 'array', items: { enum: ['home', 'work'] }, maxItems: 2 },
    mood: { enum: ['calm', 'busy'] },
  },
  required: ['done', 'kind', 'tags'],
  additionalProperties: false,
};

describe('local provider: answers under a JSON-schema grammar', () => {
  it('answers a run without tools with JSON that validates, on the first answer', async () => {
    const provider = await createProvider(`local:${modelPath}`, { env });
    const runner = new Runner({ provider, settings: { maxTokens: 120 } });
    try {
      const result = await runner.run('write a note', { outputSchema: note });
      expect(result.steps).toBe(1);
      const value = result.structured as Record<string, unknown>;
      expect(typeof value.done).toBe('boolean');
      expect(['todo', 'idea']).toContain(value.kind);
      expect(Array.isArray(value.tags)).toBe(true);
      expect(value.mood === undefined || ['calm', 'busy'].includes(value.mood as string)).toBe(true);
      expect(JSON.parse(result.text)).toEqual(value);
    } finally {
      await runner.close();
      await provider.close?.();
    }
  });

  it('with tools, applies the grammar on the answer step after the free-text answer is refused', async () => {
    const provider = await createProvider(`local:${qwenModelPath}`, {
      env: { ...env, MCPHOST_LOCAL_TEST_FORCE_TOOL_CALL: '1' },
    });
    const host: ToolHost = {
      tools: () =>
        Promise.resolve([
          {
            name: 'notes__list',
            description: 'Lists notes.',
            inputSchema: { type: 'object', properties: { tag: { type: 'string', maxLength: 4 } } },
          },
        ]),
      call: (call): Promise<ToolResultBlock> =>
        Promise.resolve({
          type: 'tool-result',
          toolCallId: call.id,
          toolName: call.name,
          content: [{ type: 'text', text: 'no notes' }],
          isError: false,
        }),
    };
    const runner = new Runner({ provider, tools: host, settings: { maxTokens: 120 } });
    try {
      const result = await runner.run('write a note', { outputSchema: note });
      const roles = runner.history.map((message) => message.role);
      // Prompt, forced call, its result, a free-text answer (refused), the follow-up, the JSON answer.
      expect(roles.slice(0, 3)).toEqual(['user', 'assistant', 'tool']);
      expect(roles.at(-1)).toBe('assistant');
      expect(roles.filter((role) => role === 'user').length).toBeGreaterThanOrEqual(2);
      const value = result.structured as Record<string, unknown>;
      expect(['todo', 'idea']).toContain(value.kind);
    } finally {
      await runner.close();
      await provider.close?.();
    }
  });
});

describe('local provider: the answer without the nulls the grammar writes for omitted properties', () => {
  it('drops them at every level, keeps required and nullable ones', () => {
    const schema: JsonSchemaObject = {
      type: 'object',
      properties: {
        kind: { enum: ['todo'] },
        mood: { enum: ['calm'] },
        note: { type: ['string', 'null'] },
        items: {
          type: 'array',
          items: {
            type: 'object',
            properties: { a: { type: 'string' }, b: { type: 'string' } },
            required: ['a'],
          },
        },
      },
      required: ['kind', 'items'],
    };
    const written = '{"kind":"todo","mood":null,"note":null,"items":[{"a":"x","b":null},{"a":null,"b":"y"}]}';
    expect(JSON.parse(answerText(written, schema))).toEqual({
      kind: 'todo',
      note: null,
      items: [{ a: 'x' }, { a: null, b: 'y' }],
    });
    expect(answerText('not json', schema)).toBe('not json');
  });
});
