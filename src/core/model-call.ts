/**
 * One model call: open the provider's stream under the retry policy, then assemble the streamed
 * events into an assistant message while passing text deltas on.
 */
import { AbortedError, McpHostError, ProviderError, messageOf } from './errors.js';
import type { RunnerEvent } from './events.js';
import { retryOptionsOf, withRetry, type RetryOptions } from './retry.js';
import type { TokenBudget } from './token-budget.js';
import type {
  AssistantContent,
  ChatRequest,
  FinishReason,
  Provider,
  ProviderEvent,
  ToolCallBlock,
  Usage,
} from './types.js';

/** The assembled outcome of one model call. */
export interface ModelReply {
  readonly content: readonly AssistantContent[];
  readonly toolCalls: readonly ToolCallBlock[];
  readonly finishReason: FinishReason;
  readonly usage?: Usage;
}

/** How a model call is made: under the retry policy, and within the session's token budget if any. */
export interface ModelCallOptions extends Omit<RetryOptions, 'signal' | 'onRetry'> {
  /** Checked before the call (a spent budget refuses it) and charged with its tokens after. */
  readonly tokenBudget?: TokenBudget;
}

/** A Runner's model-call options: its retry policy, sleep and randomness, and its token budget. */
export function modelCallOptionsOf(
  given: Parameters<typeof retryOptionsOf>[0] & { readonly tokenBudget?: TokenBudget },
): ModelCallOptions {
  return {
    ...retryOptionsOf(given),
    ...(given.tokenBudget === undefined ? {} : { tokenBudget: given.tokenBudget }),
  };
}

type Opened = { iterator: AsyncIterator<ProviderEvent>; first: IteratorResult<ProviderEvent> };

/**
 * Calls the model. Only the opening of the stream (up to its first event) is retried: once text
 * has been shown to the user, trying again would show it twice, so a failure after that is final.
 */
export async function callModel(
  provider: Provider,
  request: ChatRequest,
  emit: (event: RunnerEvent) => void,
  options: ModelCallOptions,
): Promise<ModelReply> {
  const { signal } = request;
  const { tokenBudget, ...retry } = options;
  tokenBudget?.check();
  const opened = await withRetry(
    async (): Promise<Opened> => {
      const iterator = provider.chat(request)[Symbol.asyncIterator]();
      try {
        return { iterator, first: await iterator.next() };
      } catch (error) {
        throw asProviderError(provider, error, signal);
      }
    },
    { ...retry, signal, onRetry: (notice) => emit({ type: 'retry', ...notice }) },
  );
  const assembler = new ReplyAssembler();
  let next = opened.first;
  try {
    while (next.done !== true) {
      const event = next.value;
      if ((event.type === 'text-delta' || event.type === 'reasoning-delta') && event.text !== '') emit(event);
      // Passed on only: the whole call still comes as its `tool-call` event.
      if (event.type === 'tool-call-delta') emit(event);
      assembler.add(next.value);
      next = await opened.iterator.next();
    }
  } catch (error) {
    throw asProviderError(provider, error, signal);
  } finally {
    if (next.done !== true) await opened.iterator.return?.();
  }
  const reply = assembler.finish(provider);
  tokenBudget?.charge(reply.usage);
  return reply;
}

/** Collects one call's events into content blocks, keeping text and tool calls in order. */
class ReplyAssembler {
  readonly #content: AssistantContent[] = [];
  #text = '';
  #finish: { reason: FinishReason; usage?: Usage } | undefined;

  add(event: ProviderEvent): void {
    switch (event.type) {
      case 'text-delta':
        this.#text += event.text;
        return;
      case 'tool-call-delta':
        return;
      case 'reasoning-delta':
        // Shown while it streams, never kept: no vendor here needs it back in the history for a
        // run as mcphost makes them (Anthropic's thinking blocks are needed only with thinking on).
        return;
      case 'tool-call':
        this.#flushText();
        this.#content.push(event.call);
        return;
      case 'finish':
        this.#finish = event.usage === undefined ? { reason: event.reason } : event;
        return;
      default: {
        const unexpected: never = event;
        throw new TypeError(`unknown provider event ${JSON.stringify(unexpected)}`);
      }
    }
  }

  finish(provider: Provider): ModelReply {
    this.#flushText();
    if (this.#finish === undefined) {
      throw new ProviderError(provider.name, `${provider.name}: the answer stream ended before it finished`, {
        retryable: false,
      });
    }
    const toolCalls = this.#content.filter((block): block is ToolCallBlock => block.type === 'tool-call');
    // Vendors sometimes report "stop" while asking for tools; what matters is what they asked for.
    const finishReason = toolCalls.length > 0 ? 'tool-calls' : this.#finish.reason;
    const reply = { content: this.#content, toolCalls, finishReason };
    return this.#finish.usage === undefined ? reply : { ...reply, usage: this.#finish.usage };
  }

  #flushText(): void {
    if (this.#text !== '') this.#content.push({ type: 'text', text: this.#text });
    this.#text = '';
  }
}

/** Providers should throw ProviderError; anything else is wrapped so callers see one error tree. */
function asProviderError(provider: Provider, error: unknown, signal: AbortSignal | undefined): Error {
  if (signal?.aborted === true) {
    return error instanceof AbortedError ? error : new AbortedError('cancelled', { cause: error });
  }
  if (error instanceof McpHostError) return error;
  const message = messageOf(error);
  return new ProviderError(provider.name, `${provider.name}: ${message}`, { retryable: false, cause: error });
}
