/**
 * The embedded provider's pure mappings: history folding, schema clean-up for node-llama-cpp's
 * grammar, dropping the nulls that stand for omitted arguments, finish reasons, threads. (Model names and paths: local-model-names.test.ts.)
 * (The binding itself runs in test/e2e/local-provider.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { EventChannel } from '../../providers/local/event-channel.js';
import { toFinishReason, toLlamaFunctions, toLlamaHistory } from '../../providers/local/mapping.js';
import { localThreads } from '../../providers/local/runtime.js';
import { cleanSchemaForLlama, dropOmittedProperties } from '../../providers/local/schema.js';
import { ConfigError } from '../../src/core/errors.js';
import type { Message } from '../../src/core/types.js';

describe('toLlamaHistory', () => {
  it('folds the steps of one model turn, with each result on its call, into one model item', () => {
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'list and read' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Looking.' },
          { type: 'tool-call', id: 'a', name: 'fs__list', input: { path: '.' } },
          { type: 'tool-call', id: 'b', name: 'fs__stat', input: { path: 'x' } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'b',
            toolName: 'fs__stat',
            content: [{ type: 'text', text: 'no such file' }],
            isError: true,
          },
          {
            type: 'tool-result',
            toolCallId: 'a',
            toolName: 'fs__list',
            content: [{ type: 'text', text: 'x.txt' }],
            isError: false,
          },
        ],
      },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', id: 'c', name: 'fs__read', input: { path: 'x.txt' } }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c',
            toolName: 'fs__read',
            content: [{ type: 'text', text: 'hi' }],
            isError: false,
            untrusted: { source: 'fs__read' },
          },
        ],
      },
    ];
    const { history, notes } = toLlamaHistory({ system: 'Be brief.', messages });
    expect(notes.droppedImages).toBe(false);
    expect(history).toEqual([
      { type: 'system', text: 'Be brief.' },
      { type: 'user', text: 'list and read' },
      {
        type: 'model',
        response: [
          'Looking.',
          { type: 'functionCall', name: 'fs__list', params: { path: '.' }, result: 'x.txt' },
          { type: 'functionCall', name: 'fs__stat', params: { path: 'x' }, result: 'Error: no such file' },
          {
            type: 'functionCall',
            name: 'fs__read',
            params: { path: 'x.txt' },
            result: '<untrusted-tool-output source="fs__read">\nhi\n</untrusted-tool-output>',
          },
        ],
      },
    ]);
  });

  it('starts a new model item after a user message, names images it leaves out, and skips an empty system prompt', () => {
    const { history, notes } = toLlamaHistory({
      system: '',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'one' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'first' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'two' },
            { type: 'image', mimeType: 'image/png', data: 'AAAA' },
          ],
        },
      ],
    });
    expect(notes.droppedImages).toBe(true);
    expect(history).toEqual([
      { type: 'user', text: 'one' },
      { type: 'model', response: ['first'] },
      { type: 'user', text: 'two\n\n[image image/png left out]' },
    ]);
  });
});

describe('cleanSchemaForLlama', () => {
  it('makes optional properties nullable, inlines references, merges allOf and keeps what the grammar reads', () => {
    const schema = cleanSchemaForLlama({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { Mode: { type: 'string', enum: ['fast', 'slow'] } },
      properties: {
        path: { type: 'string', minLength: 1, pattern: '^/', description: 'where' },
        mode: { $ref: '#/$defs/Mode' },
        count: { type: 'integer', minimum: 0, default: 1 },
        when: { type: 'string', format: 'uri' },
      },
      allOf: [{ properties: { depth: { type: 'number' } } }],
      required: ['path'],
    });
    expect(schema).toEqual({
      type: 'object',
      properties: {
        path: { type: 'string', minLength: 1, description: 'where' },
        mode: { oneOf: [{ type: 'string', enum: ['fast', 'slow'] }, { type: 'null' }] },
        count: { oneOf: [{ type: 'integer' }, { type: 'null' }] },
        when: { oneOf: [{ type: 'string' }, { type: 'null' }] },
        depth: { oneOf: [{ type: 'number' }, { type: 'null' }] },
      },
    });
  });

  it('gives "anything" and free-form objects a form, turns anyOf into oneOf and type lists with objects into oneOf', () => {
    const schema = cleanSchemaForLlama({
      type: 'object',
      properties: {
        value: {},
        extra: { type: 'object' },
        either: { anyOf: [{ type: 'string' }, { type: 'number' }] },
        mixed: { type: ['string', 'array'], items: { type: 'string' } },
        plain: { type: ['string', 'null'] },
      },
      required: ['value', 'extra', 'either', 'mixed', 'plain'],
    });
    const scalar = { type: ['string', 'number', 'boolean', 'null'] };
    expect(schema.properties).toEqual({
      value: {
        oneOf: [scalar, { type: 'array', items: scalar }, { type: 'object', additionalProperties: scalar }],
      },
      extra: { type: 'object', properties: {}, additionalProperties: scalar },
      either: { oneOf: [{ type: 'string' }, { type: 'number' }] },
      mixed: {
        oneOf: [
          { type: 'string', items: { type: 'string' } },
          { type: 'array', items: { type: 'string' } },
        ],
      },
      plain: { type: ['string', 'null'] },
    });
  });

  it('gives a tool without parameters an empty object', () => {
    expect(cleanSchemaForLlama({})).toEqual({ type: 'object', properties: {} });
    expect(cleanSchemaForLlama({ type: 'object' })).toEqual({ type: 'object', properties: {} });
  });

  it('maps tools to functions, leaving out empty descriptions', () => {
    const functions = toLlamaFunctions([
      { name: 'a__b', description: '', inputSchema: { type: 'object', properties: {} } },
      { name: '__proto__', description: 'odd', inputSchema: { type: 'object', properties: {} } },
    ]);
    expect(Object.keys(functions ?? {})).toEqual(['a__b', '__proto__']);
    expect(functions?.a__b).toEqual({ params: { type: 'object', properties: {} } });
    expect(toLlamaFunctions([])).toBeUndefined();
  });
});

describe('dropOmittedProperties', () => {
  const schema = {
    type: 'object',
    properties: { path: { type: 'string' }, tag: { type: 'string' }, note: { type: ['string', 'null'] } },
    required: ['path'],
  };

  it('removes the nulls of optional properties that do not take null, and keeps the rest', () => {
    expect(dropOmittedProperties({ path: 'x', tag: null, note: null }, schema)).toEqual({
      path: 'x',
      note: null,
    });
    expect(dropOmittedProperties({ path: null, tag: 't' }, schema)).toEqual({ path: null, tag: 't' });
    expect(dropOmittedProperties('not an object', schema)).toEqual({});
  });
});

describe('toFinishReason', () => {
  it('maps node-llama-cpp stop reasons to the closed set', () => {
    expect(toFinishReason('functionCalls', true)).toBe('tool-calls');
    expect(toFinishReason('eogToken', false)).toBe('stop');
    expect(toFinishReason('customStopTrigger', false)).toBe('stop');
    expect(toFinishReason('maxTokens', false)).toBe('length');
    expect(toFinishReason('maxTokens', true)).toBe('tool-calls');
  });
});

describe('threads', () => {
  it('uses every core unless MCPHOST_LOCAL_THREADS says otherwise, and refuses a bad count', () => {
    expect(localThreads({})).toBeGreaterThanOrEqual(1);
    expect(localThreads({ MCPHOST_LOCAL_THREADS: '3' })).toBe(3);
    expect(() => localThreads({ MCPHOST_LOCAL_THREADS: '0' })).toThrow(
      /^MCPHOST_LOCAL_THREADS: "0" is not a positive/,
    );
    expect(() => localThreads({ MCPHOST_LOCAL_THREADS: 'many' })).toThrow(ConfigError);
  });
});

describe('EventChannel', () => {
  const join = (waiting: string, next: string): string | undefined =>
    waiting.startsWith('text:') && next.startsWith('text:') ? `${waiting}${next.slice(5)}` : undefined;

  it('joins text waiting to be read, keeps order, and ends or fails after what was pushed', async () => {
    const channel = new EventChannel<string>();
    channel.pushMerging('text:a', join);
    channel.pushMerging('text:b', join);
    channel.push('call');
    channel.pushMerging('text:c', join);
    channel.end();
    const read: string[] = [];
    for await (const event of channel) read.push(event);
    expect(read).toEqual(['text:ab', 'call', 'text:c']);

    const failing = new EventChannel<string>();
    failing.push('first');
    failing.fail(new Error('broken'));
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const event of failing) seen.push(event);
      })(),
    ).rejects.toThrow('broken');
    expect(seen).toEqual(['first']);
  });

  it('hands a piece to a reader already waiting without holding it back', async () => {
    const channel = new EventChannel<string>();
    const iterator = channel[Symbol.asyncIterator]();
    const next = iterator.next();
    channel.pushMerging('text:x', join);
    await expect(next).resolves.toEqual({ value: 'text:x', done: false });
    channel.pushMerging('text:y', join);
    channel.end();
    await expect(iterator.next()).resolves.toEqual({ value: 'text:y', done: false });
    await expect(iterator.next()).resolves.toEqual({ value: undefined, done: true });
  });
});
