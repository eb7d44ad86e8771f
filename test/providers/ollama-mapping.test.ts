import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/core/errors.js';
import type { ChatRequest } from '../../src/core/types.js';
import {
  fromOllamaChunk,
  parseOllamaChunk,
  toFinishReason,
  toOllamaRequest,
  toToolCallBlock,
} from '../../providers/ollama.js';
import { CONVERSATION, SYSTEM_PROMPT, TINY_PNG_BASE64, TOOLS } from '../fixtures/conversation.js';
import { validateChatBody } from '../fakes/ollama-validation.js';

const request: ChatRequest = {
  system: SYSTEM_PROMPT,
  messages: CONVERSATION,
  tools: TOOLS,
  settings: { maxTokens: 256, temperature: 0.2, topP: 0.9, topK: 40, stopSequences: ['END'] },
};

describe('toOllamaRequest', () => {
  const body = toOllamaRequest(request, 'qwen2.5:3b');

  it('maps every block of the shared conversation to where Ollama expects it', () => {
    expect(body.messages).toEqual([
      { role: 'system', content: SYSTEM_PROMPT },
      {
        role: 'user',
        content: 'Echo "hello", read /tmp/a.txt, and look at this picture.',
        images: [TINY_PNG_BASE64],
      },
      {
        role: 'assistant',
        content: 'I will do both at once.',
        tool_calls: [
          { function: { name: 'everything__echo', arguments: { message: 'hello' } } },
          { function: { name: 'filesystem__read_file', arguments: { path: '/tmp/a.txt' } } },
        ],
      },
      // One tool message per result, in call order, named; the failure says so in its text.
      { role: 'tool', content: 'Echo: hello', tool_name: 'everything__echo' },
      {
        role: 'tool',
        content: 'Error: ENOENT: no such file or directory',
        tool_name: 'filesystem__read_file',
      },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ function: { name: 'everything__get_tiny_image', arguments: {} } }],
      },
      {
        role: 'tool',
        content: 'Here is the image:',
        tool_name: 'everything__get_tiny_image',
        images: [TINY_PNG_BASE64],
      },
      { role: 'assistant', content: 'The echo said hello; the file is missing.' },
      { role: 'user', content: 'Thanks. Now summarise.' },
    ]);
  });

  it('offers every tool as a function with its schema unchanged', () => {
    expect(body.tools).toEqual(
      TOOLS.map((tool) => ({
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
      })),
    );
  });

  it('passes all five settings, maxTokens as num_predict, and streams', () => {
    expect(body.model).toBe('qwen2.5:3b');
    expect(body.stream).toBe(true);
    expect(body.options).toEqual({
      temperature: 0.2,
      top_p: 0.9,
      top_k: 40,
      num_predict: 256,
      stop: ['END'],
    });
  });

  it('produces a body the Ollama rules accept', () => {
    const validation = validateChatBody(body, new Set(['qwen2.5:3b']));
    expect(validation).toMatchObject({ ok: true });
  });

  it('leaves out the system message, tools and options when there are none', () => {
    const bare = toOllamaRequest(
      { messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], tools: [], settings: {} },
      'llama3.2',
    );
    expect(bare).toEqual({ model: 'llama3.2', messages: [{ role: 'user', content: 'hi' }], stream: true });
  });

  it('joins several text blocks of one message into paragraphs', () => {
    const joined = toOllamaRequest(
      {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'one' },
              { type: 'text', text: 'two' },
            ],
          },
        ],
        tools: [],
        settings: {},
      },
      'm',
    );
    expect(joined.messages[0]?.content).toBe('one\n\ntwo');
  });
});

describe('fromOllamaChunk', () => {
  const ids = () => {
    let next = 0;
    return () => `id_${++next}`;
  };

  it('turns content into a text delta and skips empty content', () => {
    const context = { createId: ids(), sawToolCalls: false };
    expect(fromOllamaChunk(parseOllamaChunk({ message: { content: 'Hel' }, done: false }), context)).toEqual([
      { type: 'text-delta', text: 'Hel' },
    ]);
    expect(fromOllamaChunk(parseOllamaChunk({ message: { content: '' }, done: false }), context)).toEqual([]);
  });

  it('gives each tool call a fresh id, and a call chunk that is final ends with tool-calls', () => {
    const chunk = parseOllamaChunk({
      message: {
        content: '',
        tool_calls: [
          { function: { name: 'a__x', arguments: { n: 1 } } },
          { function: { name: 'b__y', arguments: {} } },
        ],
      },
      done: true,
      done_reason: 'stop',
      prompt_eval_count: 12,
      eval_count: 7,
    });
    expect(fromOllamaChunk(chunk, { createId: ids(), sawToolCalls: false })).toEqual([
      { type: 'tool-call', call: { type: 'tool-call', id: 'id_1', name: 'a__x', input: { n: 1 } } },
      { type: 'tool-call', call: { type: 'tool-call', id: 'id_2', name: 'b__y', input: {} } },
      { type: 'finish', reason: 'tool-calls', usage: { inputTokens: 12, outputTokens: 7 } },
    ]);
  });

  it('counts a missing prompt_eval_count (cached prompt) as zero and omits usage when there is none', () => {
    const context = { createId: ids(), sawToolCalls: false };
    expect(fromOllamaChunk(parseOllamaChunk({ done: true, eval_count: 3 }), context)).toEqual([
      { type: 'finish', reason: 'stop', usage: { inputTokens: 0, outputTokens: 3 } },
    ]);
    expect(fromOllamaChunk(parseOllamaChunk({ done: true, done_reason: 'length' }), context)).toEqual([
      { type: 'finish', reason: 'length' },
    ]);
  });

  it('rejects a chunk that is not an Ollama chat line with a non-retryable ProviderError', () => {
    expect(() => parseOllamaChunk({ message: { content: 42 }, done: false })).toThrow(ProviderError);
    expect(() => parseOllamaChunk({ nothing: true })).toThrow(
      expect.objectContaining({
        name: 'ProviderError',
        retryable: false,
        message: expect.stringMatching(/^Ollama sent an answer mcphost cannot read/) as unknown,
      }),
    );
  });
});

describe('toToolCallBlock', () => {
  it('keeps object arguments as input', () => {
    expect(toToolCallBlock({ name: 't', arguments: { a: [1, 2] } }, 'c')).toEqual({
      type: 'tool-call',
      id: 'c',
      name: 't',
      input: { a: [1, 2] },
    });
  });

  it.each([
    ['a string', '{"a":1}', '{"a":1}'],
    ['an array', [1, 2], '[1,2]'],
    ['null', null, 'null'],
    ['nothing', undefined, ''],
  ])('keeps %s as rawInput with empty input', (_label, value, raw) => {
    expect(toToolCallBlock({ name: 't', arguments: value }, 'c')).toEqual({
      type: 'tool-call',
      id: 'c',
      name: 't',
      input: {},
      rawInput: raw,
    });
  });
});

describe('toFinishReason', () => {
  it.each([
    ['stop', false, 'stop'],
    ['stop', true, 'tool-calls'],
    [undefined, false, 'stop'],
    [undefined, true, 'tool-calls'],
    ['length', true, 'length'],
    ['load', false, 'other'],
    ['unload', false, 'other'],
  ] as const)('done_reason %s with tool calls %s is %s', (doneReason, sawToolCalls, expected) => {
    expect(toFinishReason(doneReason, sawToolCalls)).toBe(expected);
  });
});
