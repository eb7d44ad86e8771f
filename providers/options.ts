import type { DownloadProgress } from './local/model-files.js';

/** What every provider factory receives. Everything from outside is injected, for tests. */
export interface ProviderOptions {
  /** Model name as the vendor knows it (the part after `provider:`). */
  readonly model: string;
  /** Base URL of the vendor API (`--provider-url`); overrides the environment. */
  readonly baseUrl?: string;
  /** API key (`--provider-api-key`); overrides the environment. */
  readonly apiKey?: string;
  /** Environment to read keys and URLs from (normally `process.env`). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * The context window from the flag or config (`contextWindow`), when given. A provider that tells
   * its server the window (Ollama's `num_ctx`) sends this one.
   */
  readonly contextWindow?: number;
  /** HTTP client; defaults to the global `fetch`. */
  readonly fetch?: typeof fetch;
  /** Reports something the user should know once (an unsupported setting…). Goes to stderr in the CLI. */
  readonly warn?: (message: string) => void;
  /** Where the `local:` provider keeps and fetches model files; ignored by the other providers. */
  readonly modelFiles?: ModelFileOptions;
}

/**
 * How a `local:` model file is found and downloaded on first use. Every field has a default: the
 * user's cache folder (`~/.cache/mcphost/models`), relative paths from the process's folder, no
 * progress shown, no cancellation.
 */
export interface ModelFileOptions {
  readonly cacheFolder?: string;
  /** For `~/…` paths and the Hugging Face token file. */
  readonly homeDir?: string;
  /** Relative model paths are taken from here. */
  readonly cwd?: string;
  /** Told as a download goes (the CLI draws a bar). */
  readonly onProgress?: (progress: DownloadProgress) => void;
  /** Stops a download (its partial file is kept for the next run to resume). */
  readonly signal?: AbortSignal;
}

/**
 * A key or URL from a flag or the environment, trimmed; `undefined` when unset or blank, so that
 * `OPENAI_BASE_URL=` in a shell, or a key of only spaces, counts as missing and the next source
 * (or the default) is used.
 */
export function nonEmptySetting(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}
