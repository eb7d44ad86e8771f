import type { FunctionDeclaration } from '@google/genai';
import { describe, expect, it } from 'vitest';
import { toGeminiRequest } from '../../providers/google.js';
import type { ChatRequest, Message, ToolCallBlock } from '../../src/core/types.js';
import { CONVERSATION, SYSTEM_PROMPT, TINY_PNG_BASE64, TOOLS } from '../fixtures/conversation.js';

const request = (overrides: Partial<ChatRequest> = {}): ChatRequest => ({
  system: SYSTEM_PROMPT,
  messages: CONVERSATION,
  tools: TOOLS,
  settings: {},
  ...overrides,
});

describe('toGeminiRequest', () => {
  it('maps the shared conversation, turn by turn', () => {
    const parameters = toGeminiRequest(request(), 'gemini-2.5-flash');
    expect(parameters.model).toBe('gemini-2.5-flash');
    expect(parameters.contents).toEqual([
      {
        role: 'user',
        parts: [
          { text: 'Echo "hello", read /tmp/a.txt, and look at this picture.' },
          { inlineData: { mimeType: 'image/png', data: TINY_PNG_BASE64 } },
        ],
      },
      {
        role: 'model',
        parts: [
          { text: 'I will do both at once.' },
          { functionCall: { name: 'everything__echo', args: { message: 'hello' } } },
          { functionCall: { name: 'filesystem__read_file', args: { path: '/tmp/a.txt' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'everything__echo', response: { output: 'Echo: hello' } } },
          {
            functionResponse: {
              name: 'filesystem__read_file',
              response: { error: 'ENOENT: no such file or directory' },
            },
          },
        ],
      },
      { role: 'model', parts: [{ functionCall: { name: 'everything__get_tiny_image', args: {} } }] },
      {
        role: 'user',
        parts: [
          {
            functionResponse: {
              name: 'everything__get_tiny_image',
              response: {
                output:
                  'Here is the image:\n[1 image from everything__get_tiny_image attached after the function responses]',
              },
            },
          },
          { inlineData: { mimeType: 'image/png', data: TINY_PNG_BASE64 } },
        ],
      },
      { role: 'model', parts: [{ text: 'The echo said hello; the file is missing.' }] },
      { role: 'user', parts: [{ text: 'Thanks. Now summarise.' }] },
    ]);
  });

  it('puts the system prompt, the cleaned tool schemas and every setting in the config', () => {
    const { config } = toGeminiRequest(
      request({
        settings: { maxTokens: 256, temperature: 0.2, topP: 0.9, topK: 40, stopSequences: ['END'] },
      }),
      'gemini-2.5-flash',
    );
    expect(config?.systemInstruction).toBe(SYSTEM_PROMPT);
    expect(config).toMatchObject({
      maxOutputTokens: 256,
      temperature: 0.2,
      topP: 0.9,
      topK: 40,
      stopSequences: ['END'],
    });
    const tool = config?.tools?.[0];
    const declarations: readonly FunctionDeclaration[] =
      tool !== undefined && 'functionDeclarations' in tool ? (tool.functionDeclarations ?? []) : [];
    expect(declarations.map((declaration) => declaration.name)).toEqual(TOOLS.map((tool) => tool.name));
    expect(declarations[0]).toEqual({
      name: 'everything__echo',
      description: 'Echoes back the input',
      parametersJsonSchema: {
        type: 'object',
        properties: { message: { type: 'string', description: 'Message to echo' } },
        required: ['message'],
        additionalProperties: false,
      },
    });
    expect(declarations.every((declaration) => declaration.parameters === undefined)).toBe(true);
  });

  it('leaves out what is empty: no system, no tools, no settings, empty messages and text', () => {
    const { config, contents } = toGeminiRequest(
      request({
        system: '',
        tools: [],
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: '' },
              { type: 'text', text: 'hi' },
            ],
          },
          { role: 'assistant', content: [] },
          { role: 'user', content: [{ type: 'text', text: 'again' }] },
        ],
      }),
      'm',
    );
    expect(config).toEqual({});
    expect(contents).toEqual([
      { role: 'user', parts: [{ text: 'hi' }] },
      { role: 'user', parts: [{ text: 'again' }] },
    ]);
  });

  it("sends a call's thought signature and Gemini id back unchanged, and the id with its response", () => {
    const call: ToolCallBlock = {
      type: 'tool-call',
      id: 'gemini-id-7',
      name: 'everything__echo',
      input: { message: 'x' },
      providerMetadata: { google: { thoughtSignature: 'opaque/sig+==', functionCallId: 'gemini-id-7' } },
    };
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      { role: 'assistant', content: [call] },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'gemini-id-7',
            toolName: 'everything__echo',
            content: [],
            isError: false,
          },
        ],
      },
    ];
    const { contents } = toGeminiRequest(request({ messages }), 'm');
    expect(contents).toEqual([
      { role: 'user', parts: [{ text: 'go' }] },
      {
        role: 'model',
        parts: [
          {
            functionCall: { name: 'everything__echo', args: { message: 'x' }, id: 'gemini-id-7' },
            thoughtSignature: 'opaque/sig+==',
          },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'everything__echo', response: { output: '' }, id: 'gemini-id-7' } },
        ],
      },
    ]);
  });
});
