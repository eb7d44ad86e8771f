/**
 * A sampling request's content (sampling.ts handles the request): the server's messages as the
 * provider takes them, screened like tool results, shown for review as they would be sent, and
 * the model's finish reason as MCP names it.
 */
/* eslint-disable @typescript-eslint/no-deprecated -- sampling is deprecated by the 2026-07-28
   revision (SEP-2577), and supported here for the 2025-era servers that still ask for it. */
import type { CreateMessageRequestParams, SamplingMessageContentBlock } from '@modelcontextprotocol/client';
import type { QuestionQueue } from '../core/questions.js';
import type { FinishReason, ImageBlock, Message, TextBlock } from '../core/types.js';
import { screenUntrustedContent, type ContentFlag, type ContentScreen } from '../safety/untrusted-content.js';
import { definedProperties } from '../util/defined-properties.js';

/** The server's messages as the provider takes them: text and images; anything else declines. */
export function toMessages(
  params: CreateMessageRequestParams,
): { ok: true; messages: Message[] } | { ok: false; reason: string } {
  if (params.tools !== undefined && params.tools.length > 0) {
    return { ok: false, reason: 'it offers tools to the model, which mcphost does not allow in sampling' };
  }
  const messages: Message[] = [];
  for (const [index, message] of params.messages.entries()) {
    const blocks: readonly SamplingMessageContentBlock[] = Array.isArray(message.content)
      ? message.content
      : [message.content];
    const content: Array<TextBlock | ImageBlock> = [];
    for (const block of blocks) {
      if (block.type === 'text') content.push({ type: 'text', text: block.text });
      else if (block.type === 'image' && message.role === 'user') {
        content.push({ type: 'image', mimeType: block.mimeType, data: block.data });
      } else {
        return {
          ok: false,
          reason: `message ${index + 1} holds ${block.type} content from the ${message.role}, which mcphost cannot send`,
        };
      }
    }
    messages.push(
      message.role === 'user'
        ? { role: 'user', content }
        : {
            role: 'assistant',
            content: content.filter((block): block is TextBlock => block.type === 'text'),
          },
    );
  }
  if (messages.length === 0) return { ok: false, reason: 'it has no messages' };
  return { ok: true, messages };
}

type Screened =
  | {
      readonly ok: true;
      readonly system: string | undefined;
      readonly messages: Message[];
      readonly flag?: ContentFlag;
    }
  | { readonly ok: false; readonly reason: string; readonly flag: ContentFlag };

/**
 * The request's text (system prompt and messages) through the same detector as tool results, as
 * one result whose blocks are mapped back: hidden characters revealed, and on a finding the
 * policy decides (`block`, or `ask` answered "withhold", declines the request).
 */
export async function screen(
  server: string,
  system: string | undefined,
  messages: readonly Message[],
  options: { readonly screen?: ContentScreen; readonly queue: QuestionQueue },
  signal: AbortSignal,
): Promise<Screened> {
  const texts: TextBlock[] = [
    ...(system === undefined ? [] : [{ type: 'text' as const, text: system }]),
    ...messages.flatMap((message) =>
      message.content.filter((block): block is TextBlock => block.type === 'text'),
    ),
  ];
  const origin = { kind: 'sampling', server } as const;
  const { content, flag } =
    options.screen === undefined
      ? await screenUntrustedContent(texts, origin, { policy: 'warn', queue: options.queue }, signal)
      : await options.screen(texts, origin, signal);
  if (flag !== undefined && (flag.action === 'blocked' || flag.action === 'withheld')) {
    return {
      ok: false,
      reason: `it looks like a prompt injection (${flag.findings.join('; ')}), and it was ${flag.action}`,
      flag,
    };
  }
  const cleaned = content.map((block) => (block.type === 'text' ? block.text : ''));
  let next = 0;
  const take = (): string => cleaned[next++] ?? '';
  const cleanSystem = system === undefined ? undefined : take();
  const cleanMessages = messages.map((message): Message => {
    switch (message.role) {
      case 'user':
        return {
          role: 'user',
          content: message.content.map((block) =>
            block.type === 'text' ? { type: 'text', text: take() } : block,
          ),
        };
      case 'assistant':
        return {
          role: 'assistant',
          content: message.content.map((block) =>
            block.type === 'text' ? { type: 'text', text: take() } : block,
          ),
        };
      case 'tool':
        return message;
      default: {
        const unexpected: never = message;
        throw new TypeError(`unknown message ${JSON.stringify(unexpected)}`);
      }
    }
  });
  return {
    ok: true,
    system: cleanSystem,
    messages: cleanMessages,
    ...definedProperties({ flag }),
  };
}

/** What a person reviewing the request sees: the text as it would be sent. */
export function reviewedRequest(
  params: CreateMessageRequestParams,
  system: string | undefined,
  messages: readonly Message[],
): Readonly<Record<string, unknown>> {
  return {
    ...definedProperties({ systemPrompt: system }),
    maxTokens: params.maxTokens,
    ...definedProperties({ temperature: params.temperature }),
    messages: messages.map((message) => ({
      role: message.role,
      text: message.content
        .map((block) => (block.type === 'text' ? block.text : block.type === 'image' ? '[image]' : ''))
        .join('\n'),
    })),
  };
}

export function stopReasonOf(reason: FinishReason): string {
  switch (reason) {
    case 'stop':
      return 'endTurn';
    case 'length':
      return 'maxTokens';
    case 'tool-calls':
    case 'content-filter':
    case 'other':
      return reason;
    default: {
      const unexpected: never = reason;
      return String(unexpected);
    }
  }
}
