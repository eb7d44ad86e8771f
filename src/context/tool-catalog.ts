/**
 * Which tool definitions one step sends. Below a vendor's cap on the number of tools and below a
 * share of a window that is known, all of them, as they come from the host. Past either, the
 * tool-search tool (see `tool-search.ts`) and the tools the conversation has loaded so far.
 *
 * The share is judged only against a window someone stated (the override, the provider, the
 * vendors' table, a refusal), never against the fallback guess: small local models rarely manage
 * the two-step search, so a guess must not take their tools away (issue 26).
 */
import type { Message, ToolCallBlock, ToolHost, ToolResultBlock, ToolSpec } from '../core/types.js';
import { estimateToolsTokens } from './tokens.js';
import type { ContextWindow } from './windows.js';
import {
  TOOL_SEARCH_NAME,
  ToolIndex,
  readSearchInput,
  searchResultText,
  toolSearchSpec,
} from './tool-search.js';
import { definedProperties } from '../util/defined-properties.js';

/**
 * Send the tool-search tool instead of every definition when these pass this share of the window.
 * A quarter: with the answer's reserve (a quarter of the window at most) and compaction at 80%, a
 * third of the window is left for the conversation. filesystem + memory + everything (40 tools,
 * about 6k tokens) fit a 32k local window whole; 10%, Claude Code's figure for 200k windows, would
 * leave such a model with the search alone.
 */
export const DEFAULT_TOOL_SEARCH_AT = 0.25;

/**
 * The most tools each vendor takes in one request, where the vendor refuses more (with a 400).
 * OpenAI: "Invalid 'tools': array too long. Expected an array with maximum length 128" (also the
 * rule of most OpenAI-compatible gateways). Gemini API: "At most 512 function declarations can be
 * specified." Anthropic documents no count (a request is capped at 32 MB) and Ollama none.
 */
export const VENDOR_TOOL_LIMITS: Readonly<Record<string, number>> = { openai: 128, google: 512 };

/** `toolSearch`: when to send the tool-search tool instead of every definition. */
export type ToolSearchSetting =
  /** Past the vendor's cap, or past `toolSearchAt` of a window that is known (the default). */
  | 'auto'
  /** Whenever there are tools. */
  | 'always'
  /** Never: every definition at every step (a vendor may then refuse the request). */
  | 'never';

/** How the tools of one step were chosen. A tagged union: switch on `kind`. */
export type ToolMode =
  /** Every definition is sent. */
  | { readonly kind: 'all'; readonly tools: number }
  /** The search tool and the loaded tools are sent. */
  | {
      readonly kind: 'search';
      readonly reason: ToolSearchReason;
      /** Tools the host offers. */
      readonly total: number;
      /** Of those, loaded (sent with the search tool). */
      readonly loaded: number;
      /** Estimated tokens of every definition, against `budgetTokens` of the window. */
      readonly toolTokens: number;
      readonly budgetTokens: number;
      /** The window and the share of it (`toolSearchAt`) that makes `budgetTokens`. */
      readonly window: ContextWindow;
      readonly share: number;
      /** The vendor's cap on tools per request, when it has one. */
      readonly vendorLimit?: number;
    };

export type ToolSearchReason =
  /** More tools than the vendor takes in one request. */
  | 'vendor-limit'
  /** The definitions would take more than `toolSearchAt` of a known window (not the fallback guess). */
  | 'window-share'
  /** `toolSearch: 'always'`. */
  | 'always';

/** What one step sends, and the host that answers its calls (the search tool included). */
export interface StepTools {
  readonly mode: ToolMode;
  /** The definitions sent to the model. */
  readonly offered: readonly ToolSpec[];
  /** The names the model may call: every tool of the host (a call to one not loaded loads it), and the search tool. */
  readonly callable: ReadonlySet<string>;
  readonly host: ToolHost;
}

export interface ToolCatalogOptions {
  readonly setting?: ToolSearchSetting;
  /** Share of the window, in (0, 1]. Default {@link DEFAULT_TOOL_SEARCH_AT}. */
  readonly searchAt?: number;
  /** A conversation going on: the tools it called are loaded again (a resumed session). */
  readonly history?: readonly Message[];
}

/** The tools one conversation has loaded, and the choice of each step's tools. */
export class ToolCatalog {
  readonly #setting: ToolSearchSetting;
  readonly #searchAt: number;
  /** Loaded names, oldest first (a Set keeps insertion order). */
  readonly #loaded = new Set<string>();
  #index: { tools: readonly ToolSpec[]; index: ToolIndex } | undefined;

  constructor(options: ToolCatalogOptions = {}) {
    this.#setting = options.setting ?? 'auto';
    this.#searchAt = options.searchAt ?? DEFAULT_TOOL_SEARCH_AT;
    this.forget(options.history);
  }

  /** The names loaded so far, oldest first. */
  get loaded(): readonly string[] {
    return [...this.#loaded];
  }

  /** A new conversation: nothing is loaded but the tools `history` (a saved conversation) called. */
  forget(history: readonly Message[] = []): void {
    this.#loaded.clear();
    for (const message of history) {
      if (message.role !== 'assistant') continue;
      for (const block of message.content) {
        if (block.type === 'tool-call' && block.name !== TOOL_SEARCH_NAME) this.#loaded.add(block.name);
      }
    }
  }

  /** Chooses the definitions of the next step from everything `host` offers. */
  select(
    host: ToolHost,
    tools: readonly ToolSpec[],
    context: { readonly provider: string; readonly window: ContextWindow },
  ): StepTools {
    const vendorLimit = VENDOR_TOOL_LIMITS[context.provider];
    const toolTokens = estimateToolsTokens(tools);
    const budgetTokens = Math.floor(context.window.tokens * this.#searchAt);
    // A guessed window says nothing about what fits: only a stated one may turn the search on.
    const windowKnown = context.window.source !== 'fallback';
    const reason = this.#searchReason(tools.length, vendorLimit, windowKnown && toolTokens > budgetTokens);
    if (reason === undefined) {
      return {
        mode: { kind: 'all', tools: tools.length },
        offered: tools,
        callable: new Set(tools.map((tool) => tool.name)),
        host,
      };
    }
    const index = this.#indexOf(tools);
    // The host's own tools (no `__`, so no server's: the `skill` tool) are always sent: there are
    // few, and the skills the `skill` tool lists must be seen up front, not found by a search.
    const hostTools = tools.filter((tool) => !tool.name.includes('__'));
    // The search tool takes one place of the vendor's cap; the oldest loaded tools give theirs up.
    const room = vendorLimit === undefined ? Infinity : vendorLimit - 1 - hostTools.length;
    const loaded = [...this.#loaded].filter((name) => name.includes('__') && index.get(name) !== undefined);
    const kept = loaded.slice(Math.max(0, loaded.length - room));
    const offered = [
      toolSearchSpec(tools.length),
      ...hostTools,
      ...kept.map((name) => index.get(name) as ToolSpec),
    ];
    const callable = new Set(tools.map((tool) => tool.name));
    callable.add(TOOL_SEARCH_NAME);
    return {
      mode: {
        kind: 'search',
        reason,
        total: tools.length,
        loaded: kept.length,
        toolTokens,
        budgetTokens,
        window: context.window,
        share: this.#searchAt,
        ...definedProperties({ vendorLimit }),
      },
      offered,
      callable,
      host: this.#searchingHost(host, index),
    };
  }

  #searchReason(
    count: number,
    vendorLimit: number | undefined,
    passesWindowShare: boolean,
  ): ToolSearchReason | undefined {
    if (count === 0) return undefined;
    switch (this.#setting) {
      case 'never':
        return undefined;
      case 'always':
        return 'always';
      case 'auto':
        if (vendorLimit !== undefined && count > vendorLimit) return 'vendor-limit';
        return passesWindowShare ? 'window-share' : undefined;
      default: {
        const unexpected: never = this.#setting;
        throw new TypeError(`unknown toolSearch setting ${String(unexpected)}`);
      }
    }
  }

  /** One index per list of tools: the host gives the same array back until its tools change. */
  #indexOf(tools: readonly ToolSpec[]): ToolIndex {
    if (this.#index?.tools !== tools) this.#index = { tools, index: new ToolIndex(tools) };
    return this.#index.index;
  }

  #load(name: string): void {
    this.#loaded.delete(name); // loaded again: it becomes the most recent
    this.#loaded.add(name);
  }

  /** The host answers the search tool itself; any other call loads its tool and goes on to `host`. */
  #searchingHost(host: ToolHost, index: ToolIndex): ToolHost {
    return {
      tools: () => host.tools(),
      call: async (call: ToolCallBlock, signal?: AbortSignal): Promise<ToolResultBlock> => {
        if (call.name !== TOOL_SEARCH_NAME) {
          if (index.get(call.name) !== undefined) this.#load(call.name);
          return host.call(call, signal);
        }
        const request = readSearchInput(call.input);
        const result = (text: string, isError: boolean): ToolResultBlock => ({
          type: 'tool-result',
          toolCallId: call.id,
          toolName: call.name,
          content: [{ type: 'text', text }],
          isError,
          // A refused search is the host's words; found tools quote their servers' descriptions.
          ...(isError ? { origin: 'host' as const } : {}),
        });
        if (typeof request === 'string') return result(request, true);
        const found = index.search(request.query, request.limit);
        for (const tool of found) this.#load(tool.name);
        return result(searchResultText(request.query, found, index.size), false);
      },
    };
  }
}
