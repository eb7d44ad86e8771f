/**
 * The error tree. Each class says whose fault a failure is, so that callers (and the CLI's exit
 * codes) can react without reading messages. Tool failures are not here: they are data, answered
 * to the model as error results.
 */

/** Base class of every error mcphost throws on purpose. */
export class McpHostError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * Bad configuration or bad input: a config file, a flag, a session file.
 * `source` says where (a path, or a flag such as `--max-steps`).
 */
export class ConfigError extends McpHostError {
  /** Where the problem is: a file path, a flag such as `--max-steps`, or a variable name. */
  readonly source: string;
  /** What is wrong there, in one line. */
  readonly detail: string;
  constructor(source: string, detail: string, options?: ErrorOptions) {
    super(`${source}: ${detail}`, options);
    this.source = source;
    this.detail = detail;
  }
}

/** Details of a failed model call. */
export interface ProviderErrorDetails {
  /** HTTP status, when the vendor answered with one. */
  readonly status?: number | undefined;
  /** True when trying again later may work (429, 5xx, 529, 408/409, transient network errors). */
  readonly retryable: boolean;
  /** How long the vendor asked us to wait (`Retry-After`), in milliseconds. */
  readonly retryAfterMs?: number | undefined;
  /** True when the vendor refused the request for being longer than the model's context window. */
  readonly contextLength?: boolean;
  /** The model the server does not have (Ollama: not pulled); the chat offers to fetch it. */
  readonly missingModel?: string;
  /** True when the vendor refused the request because the model takes no tools (Ollama: "does not support tools"). */
  readonly toolsUnsupported?: boolean;
  /** The underlying error. */
  readonly cause?: unknown;
}

/** A model call failed: the vendor refused it, or could not be reached. */
export class ProviderError extends McpHostError {
  /** The provider that failed, e.g. `anthropic`. */
  readonly provider: string;
  /** The HTTP status the vendor answered with, when it answered. */
  readonly status: number | undefined;
  /** True when trying again later may work; the Runner retries only these. */
  readonly retryable: boolean;
  /** How long the vendor asked us to wait before trying again, in milliseconds. */
  readonly retryAfterMs: number | undefined;
  /**
   * True when the vendor refused the request for being longer than the model's context window
   * (each provider recognises its vendor's own error). The Runner then compacts once and retries.
   */
  readonly contextLength: boolean;
  /** The model the server does not have, when that is why the call failed (Ollama: not pulled). */
  readonly missingModel: string | undefined;
  /** The vendor refused the request because the model takes no tools; `toolCalling: auto` turns to the prompt. */
  readonly toolsUnsupported: boolean;
  constructor(provider: string, message: string, details: ProviderErrorDetails) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.provider = provider;
    this.status = details.status;
    this.retryable = details.retryable;
    this.retryAfterMs = details.retryAfterMs;
    this.contextLength = details.contextLength ?? false;
    this.missingModel = details.missingModel;
    this.toolsUnsupported = details.toolsUnsupported ?? false;
  }
}

/** An MCP server could not be started or used. `stderrTail` holds its last stderr lines. */
export class ServerError extends McpHostError {
  /** The configured server name (`*` when the error is about every server). */
  readonly server: string;
  /** The server's last stderr lines, oldest first. */
  readonly stderrTail: readonly string[];
  constructor(server: string, message: string, stderrTail: readonly string[] = [], options?: ErrorOptions) {
    super(message, options);
    this.server = server;
    this.stderrTail = stderrTail;
  }
}

/** The model kept calling tools for `steps` steps without giving an answer. */
export class MaxStepsError extends McpHostError {
  /** The step limit that was reached (model calls in the run). */
  readonly steps: number;
  constructor(steps: number) {
    super(`stopped after ${steps} steps: the model kept calling tools without answering (raise --max-steps)`);
    this.steps = steps;
  }
}

/**
 * The session's model tokens are spent (`budgets.maxTokens`): the next model call is refused. The
 * steps already done stay in the history; the conversation can go on once the budget is raised.
 */
export class TokenBudgetError extends McpHostError {
  /** The budget, in tokens (input and output). */
  readonly limit: number;
  /** Tokens used when the call was refused. */
  readonly used: number;
  constructor(limit: number, used: number) {
    super(
      `stopped: this session used ${used} model tokens, its budget is ${limit} (budgets.maxTokens); no further model call is made`,
    );
    this.limit = limit;
    this.used = used;
  }
}

/** The run was cancelled through its AbortSignal (or Ctrl-C). */
export class AbortedError extends McpHostError {
  constructor(message = 'cancelled', options?: ErrorOptions) {
    super(message, options);
  }
}

/** Throws {@link AbortedError} when the signal has aborted. */
export function throwIfCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted === true) throw new AbortedError();
}

/**
 * A prompt was refused before it reached the model (by a `UserPromptSubmit` hook). Nothing was sent
 * and the history is unchanged; `reason` is the hook's.
 */
export class PromptBlockedError extends McpHostError {
  readonly reason: string;
  constructor(reason: string) {
    super(`the prompt was blocked by a UserPromptSubmit hook: ${reason}`);
    this.reason = reason;
  }
}

/**
 * The model's final answer never matched the run's output schema (`--output-schema`), after the
 * first answer and every follow-up the Runner asked for (`attempts` answers in all).
 */
export class StructuredOutputError extends McpHostError {
  /** Answers the model gave (the first one and the follow-ups). */
  readonly attempts: number;
  /** Why the last answer was refused, one line per problem (a JSON parse error or schema errors). */
  readonly problems: readonly string[];
  /** The last answer's text, as the model wrote it. */
  readonly lastAnswer: string;
  constructor(attempts: number, problems: readonly string[], lastAnswer: string) {
    super(
      `the answer did not match the output schema after ${attempts} ${attempts === 1 ? 'attempt' : 'attempts'}: ${problems.join('; ')}`,
    );
    this.attempts = attempts;
    this.problems = problems;
    this.lastAnswer = lastAnswer;
  }
}

/** True for the errors the Runner's retry policy may try again. */
export function isRetryable(error: unknown): error is ProviderError {
  return error instanceof ProviderError && error.retryable;
}

/** The message of anything thrown (errors usually; strings and other values sometimes). */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
