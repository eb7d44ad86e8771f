/** A saved conversation with every kind of block, and the checks the saved-conversation and journal tests share. */
import { expect } from 'vitest';
import { ConfigError } from '../../src/core/errors.js';
import {
  loadSavedConversation,
  SAVED_CONVERSATION_FORMAT_VERSION,
  type SavedConversation,
} from '../../src/conversation/saved-conversation.js';
import type { Message } from '../../src/core/types.js';

/** A conversation with every kind of block the format holds. */
export const messages: Message[] = [
  {
    role: 'user',
    content: [
      { type: 'text', text: 'What is in the picture? And echo "hi".' },
      { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' },
    ],
  },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Let me look.' },
      {
        type: 'tool-call',
        id: 'call_1',
        name: 'everything__echo',
        input: { message: 'hi' },
        providerMetadata: { google: { thoughtSignature: 'c2ln' } },
      },
      { type: 'tool-call', id: 'call_2', name: 'broken__tool', input: {}, rawInput: '{not json' },
    ],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'call_1',
        toolName: 'everything__echo',
        content: [{ type: 'text', text: 'Echo: hi' }],
        isError: false,
      },
      {
        type: 'tool-result',
        toolCallId: 'call_2',
        toolName: 'broken__tool',
        content: [{ type: 'text', text: 'arguments are not JSON' }],
        isError: true,
      },
    ],
  },
  { role: 'assistant', content: [{ type: 'text', text: 'A cat. The echo said hi.' }] },
];

export const session: SavedConversation = {
  model: 'ollama:qwen2.5:3b',
  systemPrompt: 'Be brief.',
  createdAt: '2025-01-31T12:00:00.000Z',
  updatedAt: '2025-01-31T12:03:10.412Z',
  messages,
};

export async function expectConfigError(
  promise: Promise<unknown>,
  path: string,
  detail: RegExp,
): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ConfigError);
  expect((error as ConfigError).source).toBe(path);
  expect((error as ConfigError).detail).toMatch(detail);
}

/** The version-1 format (one JSON document), as mcphost 0.1 wrote it, for the loading tests. */
export function versionOneText(conversation: SavedConversation): string {
  const file = {
    version: 1,
    model: conversation.model,
    ...(conversation.systemPrompt === undefined ? {} : { systemPrompt: conversation.systemPrompt }),
    createdAt: conversation.createdAt,
    updatedAt: conversation.updatedAt,
    messages: conversation.messages,
  };
  return `${JSON.stringify(file, null, 2)}\n`;
}

/** What loading adds to a conversation: the format and what the reader noticed. */
export function loadedAs(conversation: SavedConversation, format: 1 | 2) {
  return {
    ...conversation,
    format,
    version: format === 1 ? 1 : SAVED_CONVERSATION_FORMAT_VERSION,
    notes: [],
    compactions: 0,
  };
}

export async function load(path: string): Promise<SavedConversation> {
  const { model, systemPrompt, createdAt, updatedAt, messages } = await loadSavedConversation(path);
  return { model, ...(systemPrompt === undefined ? {} : { systemPrompt }), createdAt, updatedAt, messages };
}
