/**
 * The context window of a model: how many tokens one request (history, tools, system prompt and
 * the answer) may hold. Known windows of the hosted vendors' models are in a table; a local model
 * answers for itself (`Provider.contextWindow`, Ollama's model info); an override wins over both.
 */

/** A window used when nothing is known about the model: small enough to be safe for most. */
export const FALLBACK_CONTEXT_WINDOW = 8_192;

/**
 * Context windows by provider and model-name prefix, longest prefix first within a provider. From
 * the vendors' model pages; a dated or suffixed name (`claude-sonnet-4-5-20250929`, `gpt-4o-mini`)
 * matches its family's prefix.
 */
const KNOWN_WINDOWS: Readonly<Record<string, ReadonlyArray<readonly [prefix: string, tokens: number]>>> = {
  anthropic: [
    // Every current Claude model has a 200k window (Sonnet 4's 1M is a beta behind a header).
    ['claude-', 200_000],
  ],
  openai: [
    ['gpt-5', 400_000],
    ['gpt-4.1', 1_047_576],
    ['gpt-4o', 128_000],
    ['gpt-4-turbo', 128_000],
    ['gpt-4', 8_192],
    ['gpt-3.5-turbo', 16_385],
    ['o1-mini', 128_000],
    ['o1', 200_000],
    ['o3', 200_000],
    ['o4-mini', 200_000],
  ],
  google: [
    ['gemini-1.5-pro', 2_097_152],
    ['gemini-', 1_048_576],
  ],
};

/** The window the table knows for `provider:model`, if any. */
export function knownContextWindow(provider: string, model: string): number | undefined {
  const rows = KNOWN_WINDOWS[provider] ?? [];
  let best: readonly [string, number] | undefined;
  for (const row of rows) {
    if (model.startsWith(row[0]) && (best === undefined || row[0].length > best[0].length)) best = row;
  }
  return best?.[1];
}

/** Where a window figure came from, for `/usage` and the docs. */
export type ContextWindowSource =
  /** `contextWindow` in the options (config, flag). */
  | 'override'
  /** The provider asked the model (Ollama's `/api/show`). */
  | 'provider'
  /** mcphost's table of well-known models. */
  | 'table'
  /** Nothing was known: {@link FALLBACK_CONTEXT_WINDOW}. */
  | 'fallback'
  /** The vendor refused a request as too long: 90% of that request's size. */
  | 'refusal';

/** A model's window and where the figure came from. */
export interface ContextWindow {
  readonly tokens: number;
  readonly source: ContextWindowSource;
}

/**
 * The window for a model: the override, else what the provider says (Ollama's model info), else
 * the table, else {@link FALLBACK_CONTEXT_WINDOW}. A provider that cannot say (an unreachable
 * `/api/show`) is not an error: the next source is used.
 */
export async function resolveContextWindow(options: {
  readonly provider: string;
  readonly model: string;
  readonly override?: number;
  readonly askProvider?: () => Promise<number | undefined>;
}): Promise<ContextWindow> {
  if (options.override !== undefined) return { tokens: options.override, source: 'override' };
  let fromProvider: number | undefined;
  try {
    fromProvider = await options.askProvider?.();
  } catch {
    fromProvider = undefined;
  }
  if (fromProvider !== undefined && fromProvider > 0) return { tokens: fromProvider, source: 'provider' };
  const known = knownContextWindow(options.provider, options.model);
  if (known !== undefined) return { tokens: known, source: 'table' };
  return { tokens: FALLBACK_CONTEXT_WINDOW, source: 'fallback' };
}
