/**
 * A saved conversation as the `session/update` notifications that would have shown it: what the
 * user said, the answers, each tool call and its result. `session/load` sends them before it answers.
 */
import type { ContentBlock, SessionUpdate } from '@agentclientprotocol/sdk';
import type { Message } from '../core/types.js';
import { toolCallOf, toolResultUpdateOf, type LocateTool } from './tool-updates.js';

export function replayUpdates(messages: readonly Message[], locate: LocateTool): SessionUpdate[] {
  return messages.flatMap((message): SessionUpdate[] => {
    switch (message.role) {
      case 'user':
        return message.content.map((block): SessionUpdate => ({
          sessionUpdate: 'user_message_chunk',
          content: contentOf(block),
        }));
      case 'assistant':
        return message.content.map((block): SessionUpdate =>
          block.type === 'text'
            ? { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: block.text } }
            : { sessionUpdate: 'tool_call', ...toolCallOf(block, locate) },
        );
      case 'tool':
        return message.content.map((result): SessionUpdate => ({
          sessionUpdate: 'tool_call_update',
          ...toolResultUpdateOf(result),
        }));
      default: {
        const unexpected: never = message;
        throw new TypeError(`unknown message ${JSON.stringify(unexpected)}`);
      }
    }
  });
}

function contentOf(
  block:
    | { readonly type: 'text'; readonly text: string }
    | { readonly type: 'image'; readonly mimeType: string; readonly data: string },
): ContentBlock {
  return block.type === 'text'
    ? { type: 'text', text: block.text }
    : { type: 'image', mimeType: block.mimeType, data: block.data };
}
