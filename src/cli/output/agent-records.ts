/**
 * Subagent runs in the JSON outputs: each child's usage for `--output-format json` (from the
 * `agent-event`s of its run), and a child's events for `stream-json`, tagged with the agent's name,
 * its model and the parent's tool-call id.
 */
import type { AgentEvent, RunnerEvent } from '../../core/events.js';
import type { Usage } from '../../core/types.js';
import { blocksAsText } from '../../util/content-text.js';
import { definedProperties } from '../../util/defined-properties.js';

/** One child run in the result object. */
export interface JsonAgentRun {
  readonly agent: string;
  readonly model: string;
  /** The parent's tool call that ran it. */
  readonly toolCallId: string;
  /** 1 for a child of the main run, 2 for a child of a child… */
  readonly depth: number;
  readonly steps: number;
  readonly toolCalls: number;
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number };
  /** False until the child answered (a failed or cancelled child stays false). */
  readonly completed: boolean;
}

/** A child's event in `stream-json`, in the same words as the parent's own lines. */
export type JsonAgentChildEvent =
  | { readonly type: 'step-start'; readonly step: number }
  | {
      readonly type: 'step-finish';
      readonly step: number;
      readonly finishReason: string;
      readonly usage?: Usage;
    }
  | {
      readonly type: 'tool-call';
      readonly id: string;
      readonly name: string;
      readonly arguments: Readonly<Record<string, unknown>>;
    }
  | {
      readonly type: 'tool-result';
      readonly id: string;
      readonly name: string;
      readonly result: string;
      readonly isError: boolean;
      readonly durationMs: number;
    }
  | { readonly type: 'done'; readonly text: string; readonly steps: number; readonly usage: Usage }
  | { readonly type: 'retry'; readonly attempt: number; readonly delayMs: number; readonly message: string };

/** One `stream-json` line of a child's run. */
export interface JsonAgentStreamEvent {
  readonly type: 'agent';
  readonly agent: string;
  /** The child's model, `provider:model`. */
  readonly model: string;
  /** The parent's tool call that runs the agent (its `tool-call` line has this id). */
  readonly parentToolCallId: string;
  /** 1 for a child of the main run. */
  readonly depth: number;
  readonly event: JsonAgentChildEvent;
}

/** The innermost event of a (possibly nested) agent event, its agent and its depth. */
export function unwrapAgentEvent(event: AgentEvent): {
  inner: AgentEvent;
  depth: number;
  event: RunnerEvent;
} {
  let inner = event;
  let depth = 1;
  while (inner.event.type === 'agent-event') {
    inner = inner.event;
    depth += 1;
  }
  return { inner, depth, event: inner.event };
}

/** Keeps each child's figures as its events come. */
export class AgentRunTracker {
  readonly #runs = new Map<string, { -readonly [Key in keyof JsonAgentRun]: JsonAgentRun[Key] }>();

  observe(event: AgentEvent): void {
    const { inner, depth, event: child } = unwrapAgentEvent(event);
    let run = this.#runs.get(inner.toolCallId);
    if (run === undefined) {
      run = {
        agent: inner.agent,
        model: inner.model,
        toolCallId: inner.toolCallId,
        depth,
        steps: 0,
        toolCalls: 0,
        usage: { inputTokens: 0, outputTokens: 0 },
        completed: false,
      };
      this.#runs.set(inner.toolCallId, run);
    }
    switch (child.type) {
      case 'step-finish':
        run.steps = child.step;
        if (child.usage !== undefined) run.usage = add(run.usage, child.usage);
        return;
      case 'tool-result':
        run.toolCalls += 1;
        return;
      case 'done':
        run.completed = true;
        return;
      case 'step-start':
      case 'text-delta':
      case 'reasoning-delta':
      case 'tool-call-delta':
      case 'tool-call':
      case 'retry':
      case 'compaction':
      case 'tool-mode':
      case 'agent-event':
        return;
      default: {
        const unexpected: never = child;
        return unexpected;
      }
    }
  }

  get runs(): readonly JsonAgentRun[] {
    return [...this.#runs.values()];
  }
}

function add(total: JsonAgentRun['usage'], usage: Usage): JsonAgentRun['usage'] {
  return {
    inputTokens: total.inputTokens + usage.inputTokens,
    outputTokens: total.outputTokens + usage.outputTokens,
  };
}

/**
 * A child's event as one `stream-json` line: `{"type":"agent", agent, model, parentToolCallId,
 * depth, event: {...}}`, the inner event in the same words as the parent's own lines. Text deltas
 * of a child are left out (its answer comes back as the agent call's result).
 */
export function jsonAgentEvent(event: AgentEvent): JsonAgentStreamEvent | undefined {
  const { inner, depth, event: child } = unwrapAgentEvent(event);
  const tag = {
    type: 'agent' as const,
    agent: inner.agent,
    model: inner.model,
    parentToolCallId: inner.toolCallId,
    depth,
  };
  switch (child.type) {
    case 'step-start':
      return { ...tag, event: { type: 'step-start', step: child.step } };
    case 'step-finish':
      return {
        ...tag,
        event: {
          type: 'step-finish',
          step: child.step,
          finishReason: child.finishReason,
          ...definedProperties({ usage: child.usage }),
        },
      };
    case 'tool-call':
      return {
        ...tag,
        event: { type: 'tool-call', id: child.call.id, name: child.call.name, arguments: child.call.input },
      };
    case 'tool-result':
      return {
        ...tag,
        event: {
          type: 'tool-result',
          id: child.record.call.id,
          name: child.record.call.name,
          result: blocksAsText(child.record.result.content),
          isError: child.record.result.isError,
          durationMs: Math.round(child.record.durationMs),
        },
      };
    case 'done':
      return {
        ...tag,
        event: {
          type: 'done',
          text: child.result.text,
          steps: child.result.steps,
          usage: child.result.usage,
        },
      };
    case 'retry':
      return {
        ...tag,
        event: {
          type: 'retry',
          attempt: child.attempt,
          delayMs: Math.round(child.delayMs),
          message: child.error.message,
        },
      };
    case 'text-delta':
    case 'reasoning-delta':
    case 'tool-call-delta':
    case 'compaction':
    case 'tool-mode':
    case 'agent-event':
      return undefined;
    default: {
      const unexpected: never = child;
      throw new TypeError(`unknown event ${JSON.stringify(unexpected)}`);
    }
  }
}
