/**
 * What a Runner is built and run with: its options, per-run and compaction options, and what a run
 * reports to the hooks. Re-exported by runner.ts, which stays the entry point.
 */
import type { ContextOptions } from '../context/context-budget.js';
import type { RunResult, RunnerEvent } from './events.js';
import type { RetryPolicy, Sleep } from './retry.js';
import type { TokenBudget } from './token-budget.js';
import type { ToolCallingSetting } from './tool-calling/calling-mode.js';
import type { RunObserver } from './run-observer.js';
import type {
  GenerationSettings,
  JsonSchemaObject,
  Message,
  Provider,
  ToolHost,
  UserContent,
} from './types.js';

/** Model calls per run before the Runner gives up with {@link MaxStepsError}. */
export const DEFAULT_MAX_STEPS = 20;

/** How to build a {@link Runner}. Only `provider` is required. */
export interface RunnerOptions {
  /** The model to talk to. */
  readonly provider: Provider;
  /** Where tool calls go (the MCP pool, or your own). Without one, the model gets no tools. */
  readonly tools?: ToolHost;
  /** Sent with every model call. */
  readonly systemPrompt?: string;
  /**
   * Send tool results to the model marked as data from outside (`ToolResultBlock.untrusted`;
   * createRunner turns it on unless `untrustedContent.markAsData` is false). The history keeps the
   * plain results. Default false here.
   */
  readonly markToolOutput?: boolean;
  /** Model calls per run; default {@link DEFAULT_MAX_STEPS}. */
  readonly maxSteps?: number;
  /**
   * How the model calls tools: `auto` (the default: native where the model takes tools, else by
   * prompt), `native`, `prompt` or `none` (no tools at all). docs/local-models.md.
   */
  readonly toolCalling?: ToolCallingSetting;
  /** Sampling settings for every model call. */
  readonly settings?: GenerationSettings;
  /** The default {@link RunOptions.outputSchema} of every run. */
  readonly outputSchema?: JsonSchemaObject;
  /** A conversation to continue (e.g. a loaded session). */
  readonly history?: readonly Message[];
  /** Retry policy for model calls; default {@link DEFAULT_RETRY_POLICY}. */
  readonly retry?: RetryPolicy;
  /**
   * The session's model tokens (`budgets.maxTokens`), shared with the runs of the agents it calls:
   * once spent, the next model call fails with `TokenBudgetError`. Default: no budget.
   */
  readonly tokenBudget?: TokenBudget;
  /**
   * Called, and awaited, after a run appends a message to the history (and after a failed run takes
   * its prompt back, and after a compaction, with `change` saying so). Saved conversations use it
   * to append every change to their journal; if it throws, the run fails with that error.
   */
  readonly onHistoryChange?: (history: readonly Message[], change?: HistoryChange) => void | Promise<void>;
  /** The context window and compaction (see {@link ContextOptions}); by default compaction is on. */
  readonly context?: ContextOptions;
  /**
   * Called, and awaited, with each prompt before it joins the history (createRunner runs the
   * `UserPromptSubmit` hooks here). To refuse the prompt, throw (a `PromptBlockedError`): the run
   * fails with that error, nothing is sent to the model, and the history is unchanged.
   */
  readonly beforePrompt?: (prompt: readonly UserContent[], signal?: AbortSignal) => Promise<void>;
  /**
   * Called, and awaited, when a run has ended, with its result or its error (createRunner runs the
   * `Stop` hooks here). Not called for a prompt `beforePrompt` refused. If it throws, the run fails
   * with that error.
   */
  readonly afterRun?: (outcome: RunOutcome) => Promise<void>;
  /** Called once by {@link Runner.close} (createRunner passes the MCP pool's close here). */
  readonly onClose?: () => Promise<void>;
  /** The wait between retries (injected by tests for a fake clock). Default: a real timer. */
  readonly sleep?: Sleep;
  /** Randomness for the retry jitter, in [0, 1). Default `Math.random`. */
  readonly random?: () => number;
  /** The clock for tool call durations, in milliseconds. Default `Date.now`. */
  readonly now?: () => number;
  /**
   * Follows every run (createRunner passes its OpenTelemetry listener here when the program
   * registered a tracer provider): sees each event, and says in which context the run and each
   * tool call execute, so that what they start nests under them. Default: none.
   */
  readonly observer?: RunObserver;
}

/** Per-run options. */
export interface RunOptions {
  /** Cancels the run: the model stream is aborted and running tool calls are cancelled. */
  readonly signal?: AbortSignal;
  /**
   * Receives every event of this run as it happens, one {@link RunnerEvent} each: `step-start`,
   * `text-delta`, `tool-call`, `tool-result`, `retry`, `step-finish`, `compaction`, `done`…
   *
   * Not to be confused with `createRunner({ onEvent })`, which receives the host's notices
   * (`HostEvent`: server logs, warnings, tool progress…) for the runner's whole life, between runs
   * too. Both can be given; each sees only its own kind:
   *
   * ```ts
   * const runner = await createRunner({ model, onEvent: (notice) => log(notice.type) }); // HostEvent
   * await runner.run('hello', { onEvent: (event) => show(event.type) }); // RunnerEvent, this run only
   * ```
   */
  readonly onEvent?: (event: RunnerEvent) => void;
  /**
   * The final answer must be JSON valid against this schema; the parsed value is then
   * {@link RunResult.structured}. An invalid answer is sent back with its problems and asked for
   * again up to {@link DEFAULT_OUTPUT_SCHEMA_RETRIES} times (without tools), then the run fails with
   * `StructuredOutputError`. A schema ajv cannot compile fails the run with a `ConfigError`.
   * Default: `RunnerOptions.outputSchema`.
   */
  readonly outputSchema?: JsonSchemaObject;
}

/** A prompt: plain text, or text and images. */
export type Prompt = string | readonly UserContent[];

/** What changed in the history, when it was more than a message added or a turn taken back. */
export type HistoryChange = {
  readonly type: 'compaction';
  /** The summary's text. */
  readonly summary: string;
  /** Messages the summary replaced. */
  readonly replacedMessages: number;
};

/** Options of {@link Runner.compact}. */
export interface CompactOptions {
  /** What the summary should pay most attention to (`/compact FOCUS`). */
  readonly focus?: string;
  readonly signal?: AbortSignal;
  /** Receives the `compaction` event (and `retry` events of the summarizing call). */
  readonly onEvent?: (event: RunnerEvent) => void;
}

/** How a run ended, for {@link RunnerOptions.afterRun}. */
export type RunOutcome =
  | { readonly kind: 'completed'; readonly result: RunResult }
  | { readonly kind: 'failed'; readonly error: unknown };
