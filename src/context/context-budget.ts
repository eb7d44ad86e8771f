/**
 * The Runner's view of the context window: the window of the model in use, the tokens in use,
 * when to compact, and the compaction itself (a model call with the summary template).
 */
import { callModel, type ModelCallOptions } from '../core/model-call.js';
import type { CompactionReason, RunnerEvent } from '../core/events.js';
import type { GenerationSettings, Message, Provider } from '../core/types.js';
import { compactedHistory, planCompaction, SummaryRequests } from './compaction.js';
import { ContextMeter, type RequestParts } from './meter.js';
import { estimateMessagesTokens } from './tokens.js';
import { resolveContextWindow, type ContextWindow } from './windows.js';
import type { ToolSearchSetting } from './tool-catalog.js';
import { definedProperties } from '../util/defined-properties.js';

/** Compact when the next request would fill this share of the window. */
export const DEFAULT_COMPACT_AT = 0.8;

/** Tokens kept free for the answer when `maxTokens` is not set (at most a quarter of the window). */
export const DEFAULT_ANSWER_RESERVE = 8_192;

/** The share of the window the turns kept verbatim may take after a compaction. */
export const DEFAULT_KEEP_RECENT_SHARE = 0.3;

/** The summarizer's instructions beside the template. */
const SUMMARIZER_SYSTEM_PROMPT =
  'You write faithful, compact summaries of conversations so that they can go on without their history.';

/** The most tokens a summary may take (`maxTokens` of the summarizing call). */
const SUMMARY_MAX_TOKENS = 4_096;

/** How the Runner manages the context window. Every field is optional. */
export interface ContextOptions {
  /** The model's window in tokens, instead of what the provider or the table says. */
  readonly contextWindow?: number;
  /** Compact when the next request would fill this share of the window, in (0, 1]. Default {@link DEFAULT_COMPACT_AT}. */
  readonly compactAt?: number;
  /** False: never compact on its own (a context-length error then fails the run). `runner.compact()` still works. Default true. */
  readonly autoCompact?: boolean;
  /** Tokens kept free for the answer. Default: `maxTokens` if set, else {@link DEFAULT_ANSWER_RESERVE}, at most a quarter of the window. */
  readonly reserveTokens?: number;
  /** Tokens of recent turns kept verbatim by a compaction. Default {@link DEFAULT_KEEP_RECENT_SHARE} of the window. */
  readonly keepRecentTokens?: number;
  /**
   * When to send the tool-search tool instead of every tool definition: `auto` (past the vendor's
   * cap on tools, or past `toolSearchAt` of a window that is known, never of the fallback guess),
   * `always` or `never`. Default `auto`.
   */
  readonly toolSearch?: ToolSearchSetting;
  /** The share of the window tool definitions may take before `auto` turns to the search, in (0, 1]. Default 0.25. */
  readonly toolSearchAt?: number;
}

export type { CompactionReason } from '../core/events.js';

/** What a compaction did. */
export interface Compaction {
  readonly reason: CompactionReason;
  /** Messages the summary replaced. */
  readonly replacedMessages: number;
  /** Estimated tokens of the history before and after. */
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  /** The summary's text. */
  readonly summary: string;
  /** The history after the compaction. */
  readonly messages: readonly Message[];
}

/** Tokens in use against the window. */
export interface ContextUsage {
  readonly tokens: number;
  readonly window: ContextWindow;
  /** `tokens / window.tokens`. */
  readonly fraction: number;
}

function checkOptions(options: ContextOptions): void {
  const positive = (name: string, value: number | undefined): void => {
    if (value !== undefined && (!Number.isInteger(value) || value < 1)) {
      throw new TypeError(`context.${name} must be a positive whole number of tokens, got ${String(value)}`);
    }
  };
  positive('contextWindow', options.contextWindow);
  positive('keepRecentTokens', options.keepRecentTokens);
  if (
    options.reserveTokens !== undefined &&
    (!Number.isInteger(options.reserveTokens) || options.reserveTokens < 0)
  ) {
    throw new TypeError(
      `context.reserveTokens must be a whole number >= 0, got ${String(options.reserveTokens)}`,
    );
  }
  const at = options.compactAt;
  if (at !== undefined && !(at > 0 && at <= 1)) {
    throw new TypeError(`context.compactAt must be a share of the window in (0, 1], got ${String(at)}`);
  }
  const searchAt = options.toolSearchAt;
  if (searchAt !== undefined && !(searchAt > 0 && searchAt <= 1)) {
    throw new TypeError(
      `context.toolSearchAt must be a share of the window in (0, 1], got ${String(searchAt)}`,
    );
  }
  const search: unknown = options.toolSearch;
  if (search !== undefined && search !== 'auto' && search !== 'always' && search !== 'never') {
    throw new TypeError(
      `context.toolSearch must be 'auto', 'always' or 'never', got ${JSON.stringify(search)}`,
    );
  }
}

/** One Runner's window, meter and compactions. */
export class ContextBudget {
  readonly #options: ContextOptions;
  readonly meter = new ContextMeter();
  #window: { provider: Provider; window: Promise<ContextWindow> } | undefined;
  #lastUsage: ContextUsage | undefined;

  constructor(options: ContextOptions = {}) {
    checkOptions(options);
    this.#options = options;
  }

  /** True unless automatic compaction was turned off. */
  get autoCompact(): boolean {
    return this.#options.autoCompact !== false;
  }

  /**
   * The vendor refused a request of about `refusedTokens` (our measure) as too long: the window is
   * smaller than we thought. From now on it is taken as 90% of that, for this provider.
   */
  async windowBelow(provider: Provider, refusedTokens: number): Promise<void> {
    const current = await this.window(provider);
    const tokens = Math.max(1, Math.floor(refusedTokens * 0.9));
    if (tokens >= current.tokens) return;
    const window: ContextWindow = { tokens, source: 'refusal' };
    this.#window = { provider, window: Promise.resolve(window) };
    if (this.#lastUsage !== undefined) {
      this.#lastUsage = { ...this.#lastUsage, window, fraction: this.#lastUsage.tokens / tokens };
    }
  }

  /** The window of `provider`'s model (asked once per provider). */
  window(provider: Provider): Promise<ContextWindow> {
    if (this.#window?.provider !== provider) {
      this.meter.forget();
      this.#window = {
        provider,
        window: resolveContextWindow({
          provider: provider.name,
          model: provider.model,
          ...definedProperties({ override: this.#options.contextWindow }),
          ...(provider.contextWindow === undefined
            ? {}
            : { askProvider: () => provider.contextWindow?.() ?? Promise.resolve(undefined) }),
        }),
      };
    }
    return this.#window.window;
  }

  /** The figures of the last request measured (`undefined` before the first model call). */
  get lastUsage(): ContextUsage | undefined {
    return this.#lastUsage;
  }

  /** Measures the next request; true when it should be compacted first. */
  async shouldCompact(
    provider: Provider,
    parts: RequestParts,
    settings: GenerationSettings,
  ): Promise<boolean> {
    const window = await this.window(provider);
    const tokens = this.meter.measure(parts);
    this.#lastUsage = { tokens, window, fraction: tokens / window.tokens };
    if (!this.autoCompact) return false;
    const reserve = Math.min(
      this.#options.reserveTokens ?? settings.maxTokens ?? DEFAULT_ANSWER_RESERVE,
      Math.floor(window.tokens / 4),
    );
    return tokens + reserve > window.tokens * (this.#options.compactAt ?? DEFAULT_COMPACT_AT);
  }

  /** Records the vendor's count for a request (and the figure shown as context use). */
  observe(messages: readonly Message[], inputTokens: number, outputTokens: number): void {
    this.meter.observe(messages, { inputTokens, outputTokens });
    const window = this.#lastUsage?.window;
    if (window !== undefined && inputTokens > 0) {
      const tokens = inputTokens + outputTokens;
      this.#lastUsage = { tokens, window, fraction: tokens / window.tokens };
    }
  }

  /**
   * Summarizes the older part of `messages` with the model. `undefined` when there is nothing to
   * summarize (the history is one turn). Throws what the model call throws.
   */
  async compact(request: {
    readonly provider: Provider;
    readonly messages: readonly Message[];
    readonly reason: CompactionReason;
    readonly focus?: string;
    readonly settings: GenerationSettings;
    readonly signal?: AbortSignal;
    readonly emit: (event: RunnerEvent) => void;
    readonly retry: ModelCallOptions;
  }): Promise<Compaction | undefined> {
    const window = await this.window(request.provider);
    const keepRecent =
      this.#options.keepRecentTokens ?? Math.floor(window.tokens * DEFAULT_KEEP_RECENT_SHARE);
    const plan = planCompaction(request.messages, keepRecent);
    if (plan === undefined) return undefined;
    const summaryTokens = Math.min(SUMMARY_MAX_TOKENS, Math.floor(window.tokens / 4));
    // The part to summarize may itself be larger than the window (a vendor refused the request as
    // too long): it goes in parts that fit, each answer the summary so far, so every turn counts.
    const requests = new SummaryRequests(plan.older, {
      focus: request.focus,
      maxTokens: Math.floor(window.tokens * 0.9) - summaryTokens,
      summaryTokens,
    });
    let summary = requests.earlierSummary;
    do {
      const text = requests.next(summary);
      const reply = await callModel(
        request.provider,
        {
          system: SUMMARIZER_SYSTEM_PROMPT,
          messages: [{ role: 'user', content: [{ type: 'text', text }] }],
          tools: [],
          settings: { ...request.settings, maxTokens: summaryTokens },
          signal: request.signal,
        },
        // The summary is not the answer: only retries are reported.
        (event) => {
          if (event.type === 'retry') request.emit(event);
        },
        request.retry,
      );
      const answer = reply.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
      if (answer.trim() === '') return undefined;
      summary = answer.trim();
    } while (!requests.done);
    const messages = compactedHistory(summary, plan.recent);
    this.meter.forget();
    return {
      reason: request.reason,
      replacedMessages: plan.older.length,
      tokensBefore: estimateMessagesTokens(request.messages),
      tokensAfter: estimateMessagesTokens(messages),
      summary,
      messages,
    };
  }
}
