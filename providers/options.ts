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
  /** HTTP client; defaults to the global `fetch`. */
  readonly fetch?: typeof fetch;
  /** Reports something the user should know once (an unsupported setting…). Goes to stderr in the CLI. */
  readonly warn?: (message: string) => void;
}
