/**
 * From the Runner's events and errors to the JSON shapes of `schema.ts`, and a tracker that keeps
 * what a run did so far (a failed run has no RunResult, but its JSON still reports steps and calls).
 */
import {
  AbortedError,
  MaxStepsError,
  McpHostError,
  ProviderError,
  TokenBudgetError,
} from '../../core/errors.js';
import type { RunResult, RunnerEvent, ToolCallRecord } from '../../core/events.js';
import type { ToolCallBlock, Usage } from '../../core/types.js';
import type { JsonError, JsonStopReason, JsonToolCall, JsonUsage } from './schema.js';
import { blocksAsText } from '../../util/content-text.js';
import { oneLineMessage } from '../exit-codes.js';
import { definedProperties } from '../../util/defined-properties.js';
import { AgentRunTracker } from './agent-records.js';

/** Where an exposed tool name comes from: its MCP server and the tool's own name there. */
export interface ToolAddress {
  readonly server: string;
  readonly tool: string;
}

/** Exposed name → server and tool, for the JSON records. */
export type ToolDirectory = ReadonlyMap<string, ToolAddress>;

/** A failure as JSON: the error class (our tree) and its one-line message. */
export function jsonError(error: unknown): JsonError {
  const message = oneLineMessage(error);
  if (!(error instanceof McpHostError)) return { type: 'InternalError', message };
  return {
    type: error.name,
    message,
    ...(error instanceof ProviderError && error.status !== undefined ? { status: error.status } : {}),
  };
}

/** Why a failed run ended, for `stopReason`. */
export function failureStopReason(error: unknown): JsonStopReason {
  if (error instanceof MaxStepsError) return 'max-steps';
  if (error instanceof TokenBudgetError) return 'token-budget';
  if (error instanceof AbortedError) return 'interrupted';
  return 'error';
}

function address(name: string, directory: ToolDirectory): Partial<ToolAddress> {
  const found = directory.get(name);
  return found === undefined ? {} : { server: found.server, tool: found.tool };
}

/** The request half of a tool call record. */
export function jsonToolCallRequest(
  call: ToolCallBlock,
  directory: ToolDirectory,
): Omit<JsonToolCall, 'result' | 'isError' | 'durationMs'> {
  return {
    id: call.id,
    name: call.name,
    ...address(call.name, directory),
    arguments: call.input,
    ...definedProperties({ rawArguments: call.rawInput }),
  };
}

/** A finished tool call as JSON. */
export function jsonToolCall(record: ToolCallRecord, directory: ToolDirectory): JsonToolCall {
  return {
    ...jsonToolCallRequest(record.call, directory),
    result: blocksAsText(record.result.content),
    isError: record.result.isError,
    durationMs: Math.round(record.durationMs),
  };
}

function jsonUsage(usage: Usage): JsonUsage {
  return { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens };
}

/** What a run has done so far, from its events. */
export class RunTracker {
  #step = 0;
  #stepText = '';
  #usage: Usage = { inputTokens: 0, outputTokens: 0 };
  readonly #toolCalls: ToolCallRecord[] = [];
  /** The subagent runs seen so far, with their usage. */
  readonly agents = new AgentRunTracker();

  /** The step in progress (0 before the first model call). */
  get step(): number {
    return this.#step;
  }

  observe(event: RunnerEvent): void {
    switch (event.type) {
      case 'step-start':
        this.#step = event.step;
        this.#stepText = '';
        return;
      case 'text-delta':
        this.#stepText += event.text;
        return;
      case 'tool-result':
        this.#toolCalls.push(event.record);
        return;
      case 'step-finish':
        if (event.usage !== undefined) {
          this.#usage = {
            inputTokens: this.#usage.inputTokens + event.usage.inputTokens,
            outputTokens: this.#usage.outputTokens + event.usage.outputTokens,
          };
        }
        return;
      case 'agent-event':
        this.agents.observe(event);
        return;
      case 'tool-call':
      case 'tool-call-delta':
      case 'reasoning-delta':
      case 'retry':
      case 'compaction':
      case 'tool-mode':
      case 'done':
        return;
      default: {
        const unexpected: never = event;
        throw new TypeError(`unknown event ${JSON.stringify(unexpected)}`);
      }
    }
  }

  /** The run's figures: from its result when it answered, else from what the events showed. */
  summary(
    directory: ToolDirectory,
    result?: RunResult,
  ): { text: string; steps: number; toolCalls: JsonToolCall[]; usage: JsonUsage } {
    return {
      text: result?.text ?? this.#stepText,
      steps: result?.steps ?? this.#step,
      toolCalls: (result?.toolCalls ?? this.#toolCalls).map((record) => jsonToolCall(record, directory)),
      usage: jsonUsage(result?.usage ?? this.#usage),
    };
  }
}
