import { describe, expect, it } from 'vitest';
import { toOpenAIParameters, toOpenAIRequest } from '../../providers/openai.js';
import type { ChatRequest, ToolSpec } from '../../src/core/types.js';
import { validateChatRequest } from '../fakes/openai-validation.js';
import { CONVERSATION, SYSTEM_PROMPT, TINY_PNG_BASE64, TOOLS } from '../fixtures/conversation.js';

const fixtureRequest: ChatRequest = {
  system: SYSTEM_PROMPT,
  messages: CONVERSATION,
  tools: TOOLS,
  settings: {},
};
const dataUrl = `data:image/png;base64,${TINY_PNG_BASE64}`;

describe('toOpenAIRequest with the shared conversation', () => {
  const { params, warnings } = toOpenAIRequest(fixtureRequest, 'gpt-4o-mini');

  it('is a request the real API (as the fake enforces it) accepts', () => {
    expect(validateChatRequest(params)).toBeUndefined();
    expect(warnings).toEqual([]);
  });

  it('streams with usage', () => {
    expect(params).toMatchObject({
      model: 'gpt-4o-mini',
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('maps every message in order, with the system prompt first', () => {
    expect(params.messages).toEqual([
      { role: 'system', content: SYSTEM_PROMPT },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Echo "hello", read /tmp/a.txt, and look at this picture.' },
          { type: 'image_url', image_url: { url: dataUrl } },
        ],
      },
      {
        role: 'assistant',
        content: 'I will do both at once.',
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'everything__echo', arguments: '{"message":"hello"}' },
          },
          {
            id: 'call_2',
            type: 'function',
            function: { name: 'filesystem__read_file', arguments: '{"path":"/tmp/a.txt"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'Echo: hello' },
      { role: 'tool', tool_call_id: 'call_2', content: 'Error: ENOENT: no such file or directory' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_3',
            type: 'function',
            function: { name: 'everything__get_tiny_image', arguments: '{}' },
          },
        ],
      },
      {
        role: 'tool',
        tool_call_id: 'call_3',
        content: 'Here is the image:\n[one image from this result follows in the next user message]',
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Images returned by everything__get_tiny_image (call call_3):' },
          { type: 'image_url', image_url: { url: dataUrl } },
        ],
      },
      { role: 'assistant', content: 'The echo said hello; the file is missing.' },
      { role: 'user', content: 'Thanks. Now summarise.' },
    ]);
  });

  it('offers the tools as functions, schemas fixed where OpenAI would refuse them', () => {
    expect(params.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'everything__echo',
          description: 'Echoes back the input',
          parameters: TOOLS[0]?.inputSchema,
        },
      },
      {
        type: 'function',
        function: {
          name: 'filesystem__read_file',
          description: 'Read a file',
          parameters: TOOLS[1]?.inputSchema,
        },
      },
      {
        type: 'function',
        function: {
          name: 'everything__get_tiny_image',
          description: 'Returns a tiny image',
          parameters: { type: 'object', properties: {} },
        },
      },
    ]);
  });
});

describe('toOpenAIRequest details', () => {
  const base: ChatRequest = {
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    tools: [],
    settings: {},
  };

  it('sends no tools key and no system message when there are none', () => {
    const { params } = toOpenAIRequest(base, 'm');
    expect(params).not.toHaveProperty('tools');
    expect(params.messages).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('maps the generation settings, and warns that top-k is not an OpenAI setting', () => {
    const { params, warnings } = toOpenAIRequest(
      {
        ...base,
        settings: { maxTokens: 100, temperature: 0.2, topP: 0.9, topK: 40, stopSequences: ['END'] },
      },
      'm',
    );
    expect(params).toMatchObject({ max_completion_tokens: 100, temperature: 0.2, top_p: 0.9, stop: ['END'] });
    expect(params).not.toHaveProperty('top_k');
    expect(warnings).toEqual(['openai: the Chat Completions API has no top-k setting; --top-k is ignored']);
    expect(validateChatRequest(params)).toBeUndefined();
  });

  it('describes images of a type the API does not take instead of sending them', () => {
    const { params } = toOpenAIRequest(
      {
        ...base,
        messages: [
          { role: 'user', content: [{ type: 'image', mimeType: 'image/svg+xml', data: 'PHN2Zy8+' }] },
        ],
      },
      'm',
    );
    expect(params.messages[0]).toEqual({
      role: 'user',
      content: [
        {
          type: 'text',
          text: '[an image of type image/svg+xml was left out: this API takes only PNG, JPEG, GIF and WebP]',
        },
      ],
    });
    expect(validateChatRequest(params)).toBeUndefined();
  });

  it('sends parsed input, not the unparsable raw text, for a call whose arguments were broken', () => {
    const { params } = toOpenAIRequest(
      {
        ...base,
        messages: [
          ...base.messages,
          {
            role: 'assistant',
            content: [{ type: 'tool-call', id: 'c1', name: 'a__b', input: {}, rawInput: '{"x":' }],
          },
          {
            role: 'tool',
            content: [
              { type: 'tool-result', toolCallId: 'c1', toolName: 'a__b', content: [], isError: true },
            ],
          },
        ],
      },
      'm',
    );
    expect(params.messages[1]).toMatchObject({ tool_calls: [{ function: { arguments: '{}' } }] });
    expect(params.messages[2]).toEqual({
      role: 'tool',
      tool_call_id: 'c1',
      content: 'Error: the tool failed without saying why',
    });
  });

  it('shortens a description over the limit given, and lists the tool', () => {
    const long: ToolSpec = {
      name: 'think__sequentialthinking',
      description: 'x'.repeat(2780),
      inputSchema: { type: 'object', properties: {} },
    };
    const { params, warnings, shortenedTools } = toOpenAIRequest({ ...base, tools: [long] }, 'm', {
      maxToolDescriptionLength: 1024,
    });
    const description =
      params.tools?.[0]?.type === 'function' ? params.tools[0].function.description : undefined;
    expect(description).toHaveLength(1024);
    expect(description?.endsWith('…')).toBe(true);
    expect(warnings).toEqual([]);
    expect(shortenedTools).toEqual([{ tool: 'think__sequentialthinking', length: 2780 }]);
    expect(validateChatRequest(params)).toBeUndefined();
    // Without a limit (an OpenAI-compatible server), the description goes whole.
    const whole = toOpenAIRequest({ ...base, tools: [long] }, 'm');
    expect(whole.shortenedTools).toEqual([]);
    const sent = whole.params.tools?.[0]?.type === 'function' ? whole.params.tools[0].function : undefined;
    expect(sent?.description).toBe(long.description);
  });
});

describe('toOpenAIParameters', () => {
  it('adds the properties OpenAI requires on an argument-less tool', () => {
    expect(toOpenAIParameters({})).toEqual({ type: 'object', properties: {} });
    expect(toOpenAIParameters({ type: 'object' })).toEqual({ type: 'object', properties: {} });
  });

  it('gives items to array schemas that have none, at any depth, without touching the input', () => {
    const schema = {
      type: 'object',
      properties: {
        tags: { type: 'array' },
        nested: { type: 'object', properties: { ids: { type: ['array', 'null'] } } },
        choice: { anyOf: [{ type: 'array' }, { type: 'string' }] },
        typed: { type: 'array', items: { type: 'string' } },
      },
    };
    const copy = structuredClone(schema);
    expect(toOpenAIParameters(schema)).toEqual({
      type: 'object',
      properties: {
        tags: { type: 'array', items: {} },
        nested: { type: 'object', properties: { ids: { type: ['array', 'null'], items: {} } } },
        choice: { anyOf: [{ type: 'array', items: {} }, { type: 'string' }] },
        typed: { type: 'array', items: { type: 'string' } },
      },
    });
    expect(schema).toEqual(copy);
  });

  it('makes schemas the fake (like OpenAI) refuses acceptable', () => {
    const tools = [
      {
        type: 'function',
        function: { name: 'a', parameters: { type: 'object', properties: { tags: { type: 'array' } } } },
      },
    ];
    const body = { model: 'm', messages: [{ role: 'user', content: 'hi' }], tools };
    expect(validateChatRequest(body)?.message).toBe(
      "Invalid schema for function 'a': In context=('properties', 'tags'), array schema missing items.",
    );
    const fixed = [
      {
        type: 'function',
        function: { name: 'a', parameters: toOpenAIParameters(tools[0]!.function.parameters) },
      },
    ];
    expect(validateChatRequest({ ...body, tools: fixed })).toBeUndefined();
  });
});
