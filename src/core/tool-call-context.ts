/**
 * What a tool call may report while it runs, besides its result: a host that runs a model of its
 * own (the `agent` tool, src/agents) reports that run's events to the run that made the call.
 *
 * Carried in an AsyncLocalStorage rather than as a parameter of `ToolHost.call`: the event type
 * lives in events.ts, which imports types.ts, so `ToolHost` cannot name it without an import cycle;
 * and every host between the Runner and the agent tool (the guard, the pool) passes it on for free.
 * The Runner sets it around each call (tool-execution.ts); a host reads it once, when its call starts.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { RunnerEvent } from './events.js';

export interface ToolCallContext {
  /** Reports an event to the run that made the call (as given to the run's `onEvent`). */
  readonly emit: (event: RunnerEvent) => void;
}

const current = new AsyncLocalStorage<ToolCallContext>();

/** Runs `call` with `context` as the context of the tool call it starts. */
export function withToolCallContext<Result>(context: ToolCallContext, call: () => Result): Result {
  return current.run(context, call);
}

/** The context of the tool call running now, if a Runner started it. */
export function currentToolCallContext(): ToolCallContext | undefined {
  return current.getStore();
}
