/**
 * One model call as a DBOS step: the whole response is collected inside the step and recorded, so
 * a workflow replayed after a crash gets the recorded response back instead of paying for the call
 * again. Text is written to the job's DBOS stream as it arrives (for `jobs status --follow`), not
 * into the step's record beyond the response itself.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { ProviderError } from '../../core/errors.js';
import type { ChatRequest, Provider, ProviderEvent } from '../../core/types.js';
import { TEXT_STREAM } from './names.js';

/**
 * A step's record: the events, or the provider's failure as plain data. A thrown error would come
 * back from the database as a plain `Error`, and the Runner retries only a `ProviderError` it can
 * recognise, so the failure is recorded as a value and thrown again as the class it was.
 */
type RecordedModelCall =
  | { readonly kind: 'answered'; readonly events: readonly ProviderEvent[] }
  | {
      readonly kind: 'failed';
      readonly provider: string;
      readonly message: string;
      readonly status: number | null;
      readonly retryable: boolean;
      readonly retryAfterMs: number | null;
      readonly contextLength: boolean;
    };

/** A provider whose every `chat` is one recorded DBOS step; use it inside a job workflow only. */
export class RecordedProvider implements Provider {
  readonly #inner: Provider;

  constructor(inner: Provider) {
    this.#inner = inner;
  }

  get name(): string {
    return this.#inner.name;
  }

  get model(): string {
    return this.#inner.model;
  }

  contextWindow(): Promise<number | undefined> {
    return this.#inner.contextWindow?.() ?? Promise.resolve(undefined);
  }

  async *chat(request: ChatRequest): AsyncIterable<ProviderEvent> {
    const recorded = await DBOS.runStep(() => this.#callOnce(request), { name: 'model-call' });
    switch (recorded.kind) {
      case 'answered':
        yield* recorded.events;
        return;
      case 'failed':
        throw new ProviderError(recorded.provider, recorded.message, {
          retryable: recorded.retryable,
          ...(recorded.status === null ? {} : { status: recorded.status }),
          ...(recorded.retryAfterMs === null ? {} : { retryAfterMs: recorded.retryAfterMs }),
          contextLength: recorded.contextLength,
        });
      default: {
        const unreachable: never = recorded;
        return unreachable;
      }
    }
  }

  async #callOnce(request: ChatRequest): Promise<RecordedModelCall> {
    const events: ProviderEvent[] = [];
    try {
      for await (const event of this.#inner.chat(request)) {
        events.push(event);
        if (event.type === 'text-delta' && event.text !== '') await DBOS.writeStream(TEXT_STREAM, event.text);
      }
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error;
      return {
        kind: 'failed',
        provider: error.provider,
        message: error.message,
        status: error.status ?? null,
        retryable: error.retryable,
        retryAfterMs: error.retryAfterMs ?? null,
        contextLength: error.contextLength,
      };
    }
    return { kind: 'answered', events };
  }
}
