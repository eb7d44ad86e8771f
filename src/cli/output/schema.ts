/**
 * What `--output-format json` and `--output-format stream-json` print: the documented, stable shapes
 * (see docs/scripting.md). `json` prints one {@link JsonResult}; `stream-json` prints one
 * {@link StreamEvent} per line, the last of which is the same {@link JsonResult}.
 */
import type { JsonAgentRun, JsonAgentStreamEvent } from './agent-records.js';
import type { ServerState } from '../../mcp/status.js';
import type { StopReason } from '../../core/events.js';

/** The output formats of one-shot runs. */
export const OUTPUT_FORMATS = ['text', 'json', 'stream-json'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** A failure, as JSON. */
export interface JsonError {
  /**
   * The kind of failure: `ConfigError` (flags, config, session or script file), `ProviderError`,
   * `MaxStepsError`, `AbortedError` (interrupted), `ServerError`, `StructuredOutputError` (the answer
   * never matched `--output-schema`), or `InternalError` (a bug).
   */
  readonly type: string;
  /** One line for a human. */
  readonly message: string;
  /** The HTTP status of a provider failure, when there was one. */
  readonly status?: number;
}

/** Tokens, summed over the run's model calls. */
export interface JsonUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** One tool call of the run and its result. */
export interface JsonToolCall {
  /** The call's id (made up by mcphost for vendors that send none). */
  readonly id: string;
  /** The name the model used, `server__tool`. */
  readonly name: string;
  /** The MCP server and its own name for the tool, when the name is one of the offered tools. */
  readonly server?: string;
  readonly tool?: string;
  /** The arguments the model sent (`{}` when they were not a JSON object: see `rawArguments`). */
  readonly arguments: Readonly<Record<string, unknown>>;
  /** The model's arguments as received, only when they were not a JSON object. */
  readonly rawArguments?: string;
  /** The result's text (images as `[image MIME-TYPE]`). */
  readonly result: string;
  /** True when the call failed (unknown tool, bad arguments, the tool's own error, timeout…). */
  readonly isError: boolean;
  readonly durationMs: number;
}

/** Why the run ended: the model's own reasons, or the failure that stopped it. */
export type JsonStopReason = StopReason | 'max-steps' | 'token-budget' | 'interrupted' | 'error';

/** The outcome of a run: printed by `json`, and the last event of `stream-json`. */
export interface JsonResult {
  readonly type: 'result';
  /** True when the model answered (exit code 0). */
  readonly ok: boolean;
  /** The process's exit code (see the table in docs/scripting.md). */
  readonly exitCode: number;
  /** The final answer (on failure: the text of the unfinished step, often empty). */
  readonly text: string;
  /** With `--output-schema`: the answer parsed and validated against the schema. */
  readonly structured?: unknown;
  readonly stopReason: JsonStopReason;
  /** Model calls made. */
  readonly steps: number;
  /** Every tool call, in order. */
  readonly toolCalls: readonly JsonToolCall[];
  readonly usage: JsonUsage;
  /** Each subagent run (docs/agents.md), with its own usage; absent when no agent ran. */
  readonly agents?: readonly JsonAgentRun[];
  /** `provider:model`, once known. */
  readonly model?: string;
  /** Wall time of the whole command, in milliseconds. */
  readonly durationMs: number;
  /** The session file the conversation was saved to, if any. */
  readonly sessionFile?: string;
  /**
   * Every configured server as it was when the prompt went out (as in the `start` event): a server
   * that could not start is here with its `error`, so a script reading only this object sees it.
   * Absent when the run failed before the servers were started.
   */
  readonly servers?: readonly JsonServer[];
  /** Present exactly when `ok` is false. */
  readonly error?: JsonError;
}

/** One MCP server in the `start` event. */
export interface JsonServer {
  readonly name: string;
  readonly state: ServerState;
  /** Tools it offers. */
  readonly tools: number;
  /** Why it failed, when it did. */
  readonly error?: string;
  /** The server's stderr lines that say why, when it failed and wrote any (stdio servers). */
  readonly stderr?: readonly string[];
}

/** One line of `stream-json`. A tagged union: switch on `type`. */
export type StreamEvent =
  /** An event of a subagent's run (docs/agents.md). */
  | JsonAgentStreamEvent
  /** Servers are up and the prompt is about to be sent. */
  | {
      readonly type: 'start';
      readonly model: string;
      readonly servers: readonly JsonServer[];
      /** Tools offered to the model, over all servers. */
      readonly tools: number;
      readonly sessionFile?: string;
    }
  /** A piece of the model's text, as it streams. `step` counts model calls from 1. */
  | { readonly type: 'text-delta'; readonly step: number; readonly text: string }
  /** A piece of the model's reasoning, for a model that streams it apart from its answer; never in `text`. */
  | { readonly type: 'reasoning-delta'; readonly step: number; readonly text: string }
  /** The model asked for a tool; it is about to run. */
  | ({ readonly type: 'tool-call'; readonly step: number } & Omit<
      JsonToolCall,
      'result' | 'isError' | 'durationMs'
    >)
  /** A tool call finished. */
  | ({ readonly type: 'tool-result'; readonly step: number } & JsonToolCall)
  /** A running tool call reported progress (`notifications/progress`). `total` and `message` when sent. */
  | {
      readonly type: 'progress';
      readonly step: number;
      readonly id?: string;
      readonly server: string;
      readonly tool: string;
      readonly progress: number;
      readonly total?: number;
      readonly message?: string;
    }
  /** A resource the prompt attached (`@server:uri`, subscribed to) changed on its server. */
  | {
      readonly type: 'resource-updated';
      readonly step: number;
      readonly server: string;
      readonly uri: string;
    }
  /** A server's list of resources or prompts changed. */
  | {
      readonly type: 'list-changed';
      readonly step: number;
      readonly server: string;
      readonly list: 'resources' | 'prompts';
    }
  /** A model call failed with a retryable error; the next try starts after `delayMs`. */
  | { readonly type: 'retry'; readonly attempt: number; readonly delayMs: number; readonly error: JsonError }
  /** The older conversation was replaced by a summary (see docs/long-conversations.md). */
  | {
      readonly type: 'compaction';
      readonly reason: 'threshold' | 'context-length' | 'manual';
      readonly replacedMessages: number;
      readonly tokensBefore: number;
      readonly tokensAfter: number;
      readonly summary: string;
    }
  /**
   * The model gets the tool search instead of every definition (at the run's start, or when that
   * changes): why, and `message`, the line the text output shows. See docs/long-conversations.md.
   */
  | {
      readonly type: 'tool-search';
      readonly step: number;
      readonly reason: 'vendor-limit' | 'window-share' | 'always';
      /** Tools the servers offer. */
      readonly tools: number;
      /** Estimated tokens of their definitions, and the share of the window they may take. */
      readonly toolTokens: number;
      readonly budgetTokens: number;
      readonly windowTokens: number;
      readonly vendorLimit?: number;
      readonly message: string;
    }
  /** The run failed; a `result` with `ok: false` follows. */
  | { readonly type: 'error'; readonly error: JsonError }
  | JsonResult;
