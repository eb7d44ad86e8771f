import { describe, expect, it } from 'vitest';
import {
  DEFAULT_ANTHROPIC_MAX_TOKENS,
  toAnthropicMessages,
  toAnthropicRequest,
  toAnthropicTool,
  unsupportedAnthropicSettings,
} from '../../providers/anthropic.js';
import type { ChatRequest, Message } from '../../src/core/types.js';
import { CONVERSATION, SYSTEM_PROMPT, TINY_PNG_BASE64, TOOLS } from '../fixtures/conversation.js';

const request = (overrides: Partial<ChatRequest> = {}): ChatRequest => ({
  system: SYSTEM_PROMPT,
  messages: CONVERSATION,
  tools: TOOLS,
  settings: {},
  ...overrides,
});

describe('toAnthropicRequest', () => {
  it('maps the shared conversation, turn by turn', () => {
    const body = toAnthropicRequest(request(), 'claude-sonnet-4-5');
    expect(body.model).toBe('claude-sonnet-4-5');
    expect(body.system).toBe(SYSTEM_PROMPT);
    expect(body.max_tokens).toBe(DEFAULT_ANTHROPIC_MAX_TOKENS);
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Echo "hello", read /tmp/a.txt, and look at this picture.' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: TINY_PNG_BASE64 } },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'I will do both at once.' },
          { type: 'tool_use', id: 'call_1', name: 'everything__echo', input: { message: 'hello' } },
          { type: 'tool_use', id: 'call_2', name: 'filesystem__read_file', input: { path: '/tmp/a.txt' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_1', content: [{ type: 'text', text: 'Echo: hello' }] },
          {
            type: 'tool_result',
            tool_use_id: 'call_2',
            content: [{ type: 'text', text: 'ENOENT: no such file or directory' }],
            is_error: true,
          },
        ],
      },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'call_3', name: 'everything__get_tiny_image', input: {} }],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'call_3',
            content: [
              { type: 'text', text: 'Here is the image:' },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: TINY_PNG_BASE64 } },
            ],
          },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'The echo said hello; the file is missing.' }] },
      { role: 'user', content: [{ type: 'text', text: 'Thanks. Now summarise.' }] },
    ]);
  });

  it('maps tools with name, description and an object input_schema', () => {
    const body = toAnthropicRequest(request(), 'm');
    expect(body.tools).toEqual(
      TOOLS.map((tool) => ({
        name: tool.name,
        description: tool.description,
        input_schema: tool.inputSchema,
      })),
    );
    expect(toAnthropicTool({ name: 'a', description: '', inputSchema: { properties: {} } })).toEqual({
      name: 'a',
      input_schema: { type: 'object', properties: {} },
    });
  });

  it('sends max_tokens and stop_sequences, leaves out empty system and tools', () => {
    const body = toAnthropicRequest(
      request({ system: '  ', tools: [], settings: { maxTokens: 123, stopSequences: ['END', '###'] } }),
      'm',
    );
    expect(body.max_tokens).toBe(123);
    expect(body.stop_sequences).toEqual(['END', '###']);
    expect(body).not.toHaveProperty('system');
    expect(body).not.toHaveProperty('tools');
  });

  it('never sends temperature, top_p or top_k, and names them as unsupported', () => {
    const settings = { temperature: 0.2, topP: 0.9, topK: 40, maxTokens: 10 };
    const body = toAnthropicRequest(request({ settings }), 'm');
    expect(Object.keys(body).sort()).toEqual(['max_tokens', 'messages', 'model', 'system', 'tools']);
    expect(unsupportedAnthropicSettings(settings)).toEqual(['--temperature', '--top-p', '--top-k']);
    expect(unsupportedAnthropicSettings({ maxTokens: 5, stopSequences: ['x'] })).toEqual([]);
  });

  it('merges a user message that follows tool results into the same user turn, results first', () => {
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      { role: 'assistant', content: [{ type: 'tool-call', id: 't1', name: 'x', input: {} }] },
      {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 't1', toolName: 'x', content: [], isError: false }],
      },
      { role: 'user', content: [{ type: 'text', text: 'and then?' }] },
    ];
    expect(toAnthropicMessages(messages)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'x', input: {} }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1' },
          { type: 'text', text: 'and then?' },
        ],
      },
    ]);
  });

  it('drops empty text, and messages left empty by that', () => {
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'assistant', content: [{ type: 'text', text: '' }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: ' \n' },
          { type: 'text', text: 'again' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: '' },
          { type: 'tool-call', id: 't', name: 'x', input: {} },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 't',
            toolName: 'x',
            content: [{ type: 'text', text: '' }],
            isError: true,
          },
        ],
      },
    ];
    expect(toAnthropicMessages(messages)).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'hi' },
          { type: 'text', text: 'again' },
        ],
      },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'x', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', is_error: true }] },
    ]);
  });

  it('turns images of types Anthropic refuses into a note, and accepts image/jpg as JPEG', () => {
    const messages: Message[] = [
      {
        role: 'user',
        content: [
          { type: 'image', mimeType: 'image/svg+xml', data: 'PHN2Zz4=' },
          { type: 'image', mimeType: 'image/jpg', data: 'AAAA' },
        ],
      },
    ];
    expect(toAnthropicMessages(messages)[0]?.content).toEqual([
      { type: 'text', text: '[an image of type image/svg+xml was left out: Anthropic does not accept it]' },
      { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: 'AAAA' } },
    ]);
  });
});
