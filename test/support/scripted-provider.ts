/** A keyless provider that plays a script: each model call takes the next reply. */
import type { ChatRequest, Provider, ProviderEvent, ToolCallBlock } from '../../src/core/types.js';

/** One scripted model call: events to stream, an error to throw first, or a function of the request. */
export type ScriptedReply =
  | readonly ProviderEvent[]
  | { readonly error: Error }
  | ((request: ChatRequest) => readonly ProviderEvent[] | { readonly error: Error });

export class ScriptedProvider implements Provider {
  readonly name: string;
  readonly model: string;
  readonly requests: ChatRequest[] = [];
  readonly #replies: ScriptedReply[];

  /** `identity` is the provider and model it says it is (default `scripted:test`). */
  constructor(
    replies: readonly ScriptedReply[],
    identity: { readonly name: string; readonly model: string } = { name: 'scripted', model: 'test' },
  ) {
    this.#replies = [...replies];
    this.name = identity.name;
    this.model = identity.model;
  }

  async *chat(request: ChatRequest): AsyncIterable<ProviderEvent> {
    // Snapshot: the Runner keeps appending to its history after the call.
    this.requests.push({ ...request, messages: [...request.messages] });
    const next = this.#replies.shift();
    if (next === undefined) throw new Error('the script has no more replies');
    const reply = typeof next === 'function' ? next(request) : next;
    if ('error' in reply) throw reply.error;
    for (const event of reply) {
      request.signal?.throwIfAborted();
      await Promise.resolve();
      yield event;
    }
  }
}

/** A model reply that is just text. */
export function textReply(text: string): ProviderEvent[] {
  return [
    { type: 'text-delta', text },
    { type: 'finish', reason: 'stop', usage: { inputTokens: 10, outputTokens: 5 } },
  ];
}

/** A model reply that calls tools. */
export function toolReply(...calls: Array<Omit<ToolCallBlock, 'type'>>): ProviderEvent[] {
  return [
    ...calls.map((call): ProviderEvent => ({ type: 'tool-call', call: { type: 'tool-call', ...call } })),
    { type: 'finish', reason: 'tool-calls', usage: { inputTokens: 20, outputTokens: 7 } },
  ];
}
