/** What a run reports while it happens, for the CLI, `runner.stream()` and `onEvent` callbacks. */
import type { ToolMode } from '../context/tool-catalog.js';
import type { ToolCalling } from './tool-calling/calling-mode.js';
import type { ProviderError } from './errors.js';
import type {
  FinishReason,
  Message,
  ToolCallBlock,
  ToolCallDeltaEvent,
  ToolResultBlock,
  Usage,
} from './types.js';

/** Why a compaction happened. */
export type CompactionReason =
  /** The next request would have passed `compactAt` of the window. */
  | 'threshold'
  /** The vendor refused a request as too long; the Runner compacted and tried once more. */
  | 'context-length'
  /** `runner.compact()` or `/compact`. */
  | 'manual';

/** Why a run ended. */
export type StopReason =
  /** The model answered without calling tools. */
  | 'end'
  /** The model's answer was cut by the token limit (`maxTokens`). */
  | 'length'
  /** The vendor's content filter stopped the answer. */
  | 'content-filter';

/** One tool call of a run, with what it returned. */
export interface ToolCallRecord {
  readonly call: ToolCallBlock;
  readonly result: ToolResultBlock;
  /** Wall time of the call, in milliseconds. */
  readonly durationMs: number;
}

/** The outcome of `runner.run()`. */
export interface RunResult {
  /** The final answer's text (the text of the last model message). */
  readonly text: string;
  /**
   * The final answer parsed and validated against the run's output schema
   * (`RunOptions.outputSchema`, `--output-schema`). Present only on runs with a schema.
   */
  readonly structured?: unknown;
  /** Model calls made during this run (each may have run tools). */
  readonly steps: number;
  /** Every tool call of this run, in order. */
  readonly toolCalls: readonly ToolCallRecord[];
  /** Tokens summed over this run's model calls, as the vendor reported them. */
  readonly usage: Usage;
  /** Why the run ended. */
  readonly stopReason: StopReason;
  /** The messages this run added to the history, its prompt first (`runner.history` has them all). */
  readonly messages: readonly Message[];
}

/** Events of one run, in the order they happen. A tagged union: switch on `type`. */
export type RunnerEvent =
  /** A model call begins (step counts from 1). */
  | { readonly type: 'step-start'; readonly step: number }
  /** Part of the model's text, as it streams. */
  | { readonly type: 'text-delta'; readonly text: string }
  /**
   * Part of the model's reasoning, as it streams, for a model that shows it apart from its answer.
   * Never in {@link RunResult.text} or the history; `-p` text never prints it.
   */
  | { readonly type: 'reasoning-delta'; readonly text: string }
  /**
   * The model is still writing a tool call's arguments (providers that stream them: Anthropic and
   * OpenAI-compatible ones). `argumentsText` is all of it so far; a `tool-call` event with the same
   * id follows once it is complete. MCP Apps use it to show the input as it grows.
   */
  | ToolCallDeltaEvent
  /** The model asked for a tool; it is about to run (all calls of a step run in parallel). */
  | { readonly type: 'tool-call'; readonly call: ToolCallBlock }
  /** A tool call finished (successfully or not: see `result.isError`). */
  | { readonly type: 'tool-result'; readonly record: ToolCallRecord }
  /** A model call failed with a retryable error; the next attempt starts after `delayMs`. */
  | {
      readonly type: 'retry';
      readonly attempt: number;
      readonly delayMs: number;
      readonly error: ProviderError;
    }
  /** A model call finished. */
  | {
      readonly type: 'step-finish';
      readonly step: number;
      readonly finishReason: FinishReason;
      readonly usage?: Usage;
    }
  /**
   * The older part of the conversation was replaced by a summary (before a model call that would
   * have filled the window, after the vendor refused a request as too long, or on demand).
   */
  | {
      readonly type: 'compaction';
      readonly reason: CompactionReason;
      /** Messages the summary replaced. */
      readonly replacedMessages: number;
      /** Estimated tokens of the history before and after. */
      readonly tokensBefore: number;
      readonly tokensAfter: number;
      /** The summary's text. */
      readonly summary: string;
      /** When the compaction began (ms since the epoch); the event comes when it is over. */
      readonly startedAt: number;
    }
  /**
   * Which tool definitions the model gets: all of them, or the tool-search tool and the tools
   * loaded so far (past the vendor's cap or a share of the window). Sent at a run's first step and
   * whenever the mode changes.
   */
  | {
      readonly type: 'tool-mode';
      readonly mode: ToolMode;
      /** How the model calls tools, when not natively: by prompt (and why), or not at all (`toolCalling`). */
      readonly calling?: Exclude<ToolCalling, { kind: 'native' }>;
    }
  /**
   * An event of a subagent's run (src/agents), started by this run's tool call `toolCallId`. A
   * child that delegates in turn wraps its own child's events once more, so the nesting of the
   * wrappers is the nesting of the runs.
   */
  | AgentEvent
  /** The run ended with an answer. Always the last event of a successful run. */
  | { readonly type: 'done'; readonly result: RunResult };

/** An event of a subagent's run, as its parent run reports it. */
export interface AgentEvent {
  readonly type: 'agent-event';
  /** The agent's name. */
  readonly agent: string;
  /** The parent's tool call that runs the agent (pairs with its `tool-call` and `tool-result`). */
  readonly toolCallId: string;
  /** The child's model, `provider:model`. */
  readonly model: string;
  /** What the child's run reported. */
  readonly event: RunnerEvent;
}
