/**
 * Streamed Chat Completions chunks → our {@link ProviderEvent}s.
 *
 * Text is passed on as it arrives. Tool calls come in fragments keyed by `index`: the first one
 * carries the id and the name, the following ones pieces of the arguments (a JSON string), and the
 * fragments of parallel calls may interleave. Calls are complete only when the stream ends, so they
 * are yielded then, in index order, followed by the `finish` event.
 */
import { createToolCallId } from './tool-call-id.js';
import * as z from 'zod';
import { ProviderError } from '../src/core/errors.js';
import type {
  FinishReason,
  ProviderEvent,
  ToolCallBlock,
  ToolCallDeltaEvent,
  Usage,
} from '../src/core/types.js';

/**
 * The parts of a chunk we read, checked because they come from a server we do not control. Lenient
 * where compatible servers differ: a missing tool-call `index`, `null` where OpenAI omits a field.
 */
const chunkSchema = z.object({
  choices: z
    .array(
      z.object({
        index: z.number().nullish(),
        delta: z
          .object({
            content: z.string().nullish(),
            refusal: z.string().nullish(),
            // Reasoning apart from the answer: `reasoning_content` (DeepSeek, vLLM, llama.cpp's
            // server), `reasoning` (OpenRouter, Ollama's /v1, vLLM since 0.10). Never sent back.
            reasoning_content: z.string().nullish(),
            reasoning: z.string().nullish(),
            tool_calls: z
              .array(
                z.object({
                  index: z.number().int().nonnegative().nullish(),
                  id: z.string().nullish(),
                  function: z
                    .object({ name: z.string().nullish(), arguments: z.string().nullish() })
                    .nullish(),
                }),
              )
              .nullish(),
          })
          .nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  usage: z
    .object({
      prompt_tokens: z.number(),
      completion_tokens: z.number(),
      // Cached prompt tokens (OpenAI's automatic prompt caching); counted in prompt_tokens too.
      prompt_tokens_details: z.looseObject({ cached_tokens: z.number().nullish() }).nullish(),
    })
    .nullish(),
});

type ToolCallDelta = NonNullable<
  NonNullable<NonNullable<z.infer<typeof chunkSchema>['choices']>[number]['delta']>['tool_calls']
>[number];

interface PartialToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** Maps OpenAI's `finish_reason` to ours. `hasToolCalls` corrects servers that say `stop` after calls. */
export function toFinishReason(reason: string | null | undefined, hasToolCalls: boolean): FinishReason {
  // Unknown values (`eos`, `end_turn`… from compatible servers) and a missing reason: see the default.
  switch (reason) {
    case 'tool_calls':
    case 'function_call':
      return 'tool-calls';
    case 'length':
      return 'length';
    case 'content_filter':
      return 'content-filter';
    case 'stop':
      return hasToolCalls ? 'tool-calls' : 'stop';
    case null:
    case undefined:
    default:
      return hasToolCalls ? 'tool-calls' : 'other';
  }
}

/**
 * Reads a call's arguments. A JSON object becomes `input`; anything else (truncated JSON, an array,
 * prose) becomes `input: {}` with the text in `rawInput`, which the Runner answers with an error
 * result. Empty arguments mean no arguments: some servers send `""` for a tool without parameters.
 */
export function parseToolArguments(text: string): Pick<ToolCallBlock, 'input' | 'rawInput'> {
  if (text.trim() === '') return { input: {} };
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      return { input: value as Record<string, unknown> };
    }
  } catch {
    // Not JSON: reported through rawInput below.
  }
  return { input: {}, rawInput: text };
}

/** Assembles one streamed answer. Holds the state of one model call; feed it every chunk, then finish. */
export class OpenAIStreamAccumulator {
  /** Calls by their `index` in the stream. */
  readonly #calls = new Map<number, PartialToolCall>();
  readonly #makeId: () => string;
  readonly #server: string;
  #finishReason: string | undefined;
  #usage: Usage | undefined;

  /**
   * `makeId` names a call whose server sent no id (injected so tests can predict it). `server`
   * names where the stream comes from in errors (the provider passes its base URL): mcphost talks
   * to MCP servers too, so "the server" alone leaves the user guessing which.
   */
  constructor(makeId: () => string = createToolCallId, server = 'the server') {
    this.#makeId = makeId;
    this.#server = server;
  }

  /**
   * Reads one chunk (as the SDK yields it) and returns the events it completes: text deltas, and a
   * call's arguments so far (`tool-call-delta`) once its id and name are known.
   */
  push(chunk: unknown): ProviderEvent[] {
    const parsed = chunkSchema.safeParse(chunk);
    if (!parsed.success) {
      throw new ProviderError(
        'openai',
        `${this.#server} sent a stream chunk this client cannot read: ${z.prettifyError(parsed.error)}`,
        {
          retryable: false,
          cause: parsed.error,
        },
      );
    }
    const { choices, usage } = parsed.data;
    // The last usage wins: OpenAI sends it once at the end; vLLM can send running totals.
    if (usage) {
      const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
      this.#usage = {
        inputTokens: usage.prompt_tokens,
        outputTokens: usage.completion_tokens,
        ...(cached > 0 ? { cacheReadInputTokens: cached } : {}),
      };
    }
    const events: ProviderEvent[] = [];
    // We never ask for `n` > 1, so only the first choice exists.
    const choice = choices?.find((candidate) => (candidate.index ?? 0) === 0);
    if (choice === undefined) return events;
    const delta = choice.delta;
    // A server that sends both fields sends the same text in each (vLLM while it moves to `reasoning`).
    const reasoning = delta?.reasoning_content ?? delta?.reasoning;
    if (reasoning) events.push({ type: 'reasoning-delta', text: reasoning });
    if (delta?.content) events.push({ type: 'text-delta', text: delta.content });
    // A refusal is the model's answer to the user; show it like text.
    if (delta?.refusal) events.push({ type: 'text-delta', text: delta.refusal });
    for (const fragment of delta?.tool_calls ?? []) {
      const growing = this.#addFragment(fragment);
      if (growing !== undefined) events.push(growing);
    }
    if (choice.finish_reason) this.#finishReason = choice.finish_reason;
    return events;
  }

  /**
   * The tool calls, in index order, then the `finish` event. Call once, after the last chunk.
   *
   * @throws ProviderError (retryable) when no chunk carried a `finish_reason`: the connection was
   * closed before the answer was complete, and the text (or a call's arguments) may be cut anywhere.
   * Where the reason comes does not matter (compatible servers put it in the usage chunk, or send
   * `[DONE]` after it), only that one came.
   */
  finish(): ProviderEvent[] {
    if (this.#finishReason === undefined) {
      throw new ProviderError(
        'openai',
        `the answer was cut off: the stream ended before the answer was complete (${this.#server} sent no finish_reason)`,
        { retryable: true },
      );
    }
    const calls = [...this.#calls.entries()].sort(([left], [right]) => left - right).map(([, call]) => call);
    const events: ProviderEvent[] = calls.map((call) => ({
      type: 'tool-call',
      call: {
        type: 'tool-call',
        id: call.id === '' ? this.#makeId() : call.id,
        name: call.name,
        ...parseToolArguments(call.arguments),
      },
    }));
    const reason = toFinishReason(this.#finishReason, calls.length > 0);
    events.push(
      this.#usage === undefined ? { type: 'finish', reason } : { type: 'finish', reason, usage: this.#usage },
    );
    return events;
  }

  /** Adds a fragment to its call; the call's arguments so far when the fragment added to them. */
  #addFragment(fragment: ToolCallDelta): ToolCallDeltaEvent | undefined {
    const index = this.#indexOf(fragment);
    let call = this.#calls.get(index);
    if (call === undefined) {
      call = { id: '', name: '', arguments: '' };
      this.#calls.set(index, call);
    }
    // The first id and name win: some servers repeat them in every fragment.
    if (call.id === '' && fragment.id) call.id = fragment.id;
    if (call.name === '' && fragment.function?.name) call.name = fragment.function.name;
    const piece = fragment.function?.arguments ?? '';
    call.arguments += piece;
    // A call whose server sends no id gets one only at the end: nothing to pair its pieces with.
    if (piece === '' || call.id === '' || call.name === '') return undefined;
    return { type: 'tool-call-delta', id: call.id, name: call.name, argumentsText: call.arguments };
  }

  /**
   * The index of the call a fragment belongs to. OpenAI always sends `index`; for servers that do
   * not, a known id names its call, a new id starts a call, and a fragment with neither continues
   * the latest call.
   */
  #indexOf(fragment: ToolCallDelta): number {
    if (fragment.index !== undefined && fragment.index !== null) return fragment.index;
    const indexes = [...this.#calls.keys()];
    const next = indexes.length === 0 ? 0 : Math.max(...indexes) + 1;
    if (fragment.id) {
      for (const [index, call] of this.#calls) if (call.id === fragment.id) return index;
      return next;
    }
    return indexes.length === 0 ? 0 : next - 1;
  }
}
