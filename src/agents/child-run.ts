/**
 * One call of the `agent` tool: a child Runner with a fresh history (the task is its first message),
 * the agent's model and only its tools, over the session's guard (its calls are approved, hooked,
 * budgeted and audited as the agent's). Its events go to the parent run wrapped in `agent-event`;
 * its answer (the JSON of a structured one) is the tool result; its failure is an error result the
 * parent's model reads. The parent's signal (Ctrl-C, a cancel, a timeout) aborts it.
 */
import { AbortedError, messageOf } from '../core/errors.js';
import type { RunResult, RunnerEvent } from '../core/events.js';
import { addUsage, ZERO_USAGE } from '../core/run-accounting.js';
import { Runner, type RunnerOptions } from '../core/runner.js';
import { currentToolCallContext } from '../core/tool-call-context.js';
import { errorResult } from '../core/tool-execution.js';
import type { Message, Provider, ToolCallBlock, ToolHost, ToolResultBlock, Usage } from '../core/types.js';
import type { AgentDefinition } from './definition.js';
import { toolFilterOf, type ToolFilter } from './tool-filter.js';

/** Agent calls of one step that run at once, unless `maxParallelAgents` says otherwise. */
export const DEFAULT_MAX_PARALLEL_AGENTS = 4;

/** What every child of a session is built from (createRunner makes one; see src/setup/agents.ts). */
export interface AgentRuntime {
  readonly agents: ReadonlyMap<string, AgentDefinition>;
  /** The session's guard, for an agent's calls (`GuardedToolHost.forAgent`). */
  readonly hostFor: (agent: string) => ToolHost;
  /** The server behind an exposed tool name (for an agent's `servers`). */
  readonly serverOf: (exposedName: string) => string | undefined;
  /** The provider of `provider:model`; `undefined`: the parent's model. */
  readonly modelFor: (
    model: string | undefined,
  ) => Promise<{ readonly provider: Provider; readonly model: string }>;
  /** The Runner options a child of this agent gets besides its provider and tools. */
  readonly childOptions: (definition: AgentDefinition) => Omit<RunnerOptions, 'provider' | 'tools'>;
  /** Agent calls of one step that run at once (the rest wait their turn). */
  readonly maxParallel: number;
  /** Told of each child run when it ends (saved conversations keep its transcript; `/agents`). */
  readonly onRun?: (run: AgentRun) => void;
  /** The clock. Default `Date.now`. */
  readonly now?: () => number;
}

/** A child run, as it ended. */
export interface AgentRun {
  readonly agent: string;
  readonly model: string;
  /** The parent's tool call that ran it. */
  readonly toolCallId: string;
  /** 1 for a child of the main run. */
  readonly depth: number;
  readonly task: string;
  readonly outcome: 'completed' | 'failed' | 'cancelled';
  /** Why it failed or was cancelled. */
  readonly error?: string;
  readonly usage: Usage;
  readonly steps: number;
  /** The child's whole conversation: the task, its steps, its answer. */
  readonly messages: readonly Message[];
  readonly startedAt: number;
  readonly endedAt: number;
}

/** Waits for one of `size` places; the place is given back by the function it resolves to. */
export class Slots {
  #free: number;
  readonly #waiting: Array<() => void> = [];

  constructor(size: number) {
    if (!Number.isInteger(size) || size < 1) {
      throw new TypeError(`maxParallelAgents must be a positive integer, got ${String(size)}`);
    }
    this.#free = size;
  }

  async take(signal: AbortSignal | undefined): Promise<() => void> {
    if (this.#free > 0) {
      this.#free -= 1;
      return this.#giveBack();
    }
    await new Promise<void>((resolve, reject) => {
      const wake = () => {
        signal?.removeEventListener('abort', cancel);
        resolve();
      };
      const cancel = () => {
        const index = this.#waiting.indexOf(wake);
        if (index !== -1) this.#waiting.splice(index, 1);
        reject(new AbortedError());
      };
      if (signal?.aborted === true) {
        cancel();
        return;
      }
      signal?.addEventListener('abort', cancel, { once: true });
      this.#waiting.push(wake);
    });
    // A place handed over by `#giveBack` was not added to `#free`.
    return this.#giveBack();
  }

  #giveBack(): () => void {
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const next = this.#waiting.shift();
      if (next === undefined) this.#free += 1;
      else next();
    };
  }
}

/** What {@link runChild} needs to run one call. */
export interface ChildCall {
  readonly call: ToolCallBlock;
  readonly definition: AgentDefinition;
  readonly task: string;
  /** The child's depth: 1 for a child of the main run. */
  readonly depth: number;
  readonly runtime: AgentRuntime;
  readonly slots: Slots;
  readonly signal?: AbortSignal;
  /** The child's tool host: the agent tool (if it may delegate) over `inner`, narrowed to `filter`. */
  readonly childHost: (inner: ToolHost, filter: ToolFilter | undefined) => ToolHost;
}

/** Runs the child; never throws (a failure is an error result). */
export async function runChild(child: ChildCall): Promise<ToolResultBlock> {
  const { call, definition, runtime } = child;
  const name = definition.name;
  // Read now: the context belongs to the call that is starting.
  const report = currentToolCallContext()?.emit;
  const now = runtime.now ?? Date.now;
  let release: (() => void) | undefined;
  try {
    release = await child.slots.take(child.signal);
  } catch {
    return errorResult(call, `The agent "${name}" was cancelled before it started.`);
  }
  const startedAt = now();
  let model = definition.model ?? 'the parent model';
  let usage = ZERO_USAGE;
  // What counts against its `budgets.maxTokens`: its own tokens and those of the agents it calls.
  let budgetUsage = ZERO_USAGE;
  let steps = 0;
  let runner: Runner | undefined;
  // The agent's own token budget aborts its run; the parent's signal does too.
  const overBudget = new AbortController();
  const signal =
    child.signal === undefined ? overBudget.signal : AbortSignal.any([child.signal, overBudget.signal]);
  const maxTokens = definition.budgets?.maxTokens;
  const end = (outcome: AgentRun['outcome'], error?: string) =>
    runtime.onRun?.({
      agent: name,
      model,
      toolCallId: call.id,
      depth: child.depth,
      task: child.task,
      outcome,
      ...(error === undefined ? {} : { error }),
      usage,
      steps,
      messages: runner?.history ?? [],
      startedAt,
      endedAt: now(),
    });
  try {
    const chosen = await runtime.modelFor(definition.model);
    model = chosen.model;
    const filter = toolFilterOf(definition, runtime.serverOf);
    const inner = withCallBudget(runtime.hostFor(name), definition);
    runner = new Runner({
      ...runtime.childOptions(definition),
      provider: chosen.provider,
      tools: child.childHost(inner, filter),
      ...(definition.maxSteps === undefined ? {} : { maxSteps: definition.maxSteps }),
      ...(definition.outputSchema === undefined ? {} : { outputSchema: definition.outputSchema }),
    });
    const onEvent = (event: RunnerEvent) => {
      if (event.type === 'step-finish') {
        steps = event.step;
        if (event.usage !== undefined) usage = addUsage(usage, event.usage);
      }
      const used = stepUsageOf(event);
      if (used !== undefined) {
        budgetUsage = addUsage(budgetUsage, used);
        if (maxTokens !== undefined && budgetUsage.inputTokens + budgetUsage.outputTokens > maxTokens) {
          overBudget.abort();
        }
      }
      report?.({ type: 'agent-event', agent: name, toolCallId: call.id, model, event });
    };
    const result: RunResult = await runner.run(child.task, { signal, onEvent });
    end('completed');
    return answerOf(call, result);
  } catch (error) {
    if (overBudget.signal.aborted) {
      const why = `it used more than its ${String(maxTokens)} tokens (budgets.maxTokens)`;
      end('failed', why);
      return errorResult(call, `The agent "${name}" was stopped: ${why}.`);
    }
    if (child.signal?.aborted === true || error instanceof AbortedError) {
      end('cancelled', 'cancelled');
      return errorResult(call, `The agent "${name}" was cancelled before it finished.`);
    }
    const why = messageOf(error);
    end('failed', why);
    return errorResult(call, `The agent "${name}" failed: ${why}`);
  } finally {
    release();
  }
}

/** The tokens of a model call, its own or (inside `agent-event` wrappers) an agent's it called. */
function stepUsageOf(event: RunnerEvent): Usage | undefined {
  let inner = event;
  while (inner.type === 'agent-event') inner = inner.event;
  return inner.type === 'step-finish' ? inner.usage : undefined;
}

/** The child's answer as the parent's tool result: its text, or the JSON of a structured answer. */
function answerOf(call: ToolCallBlock, result: RunResult): ToolResultBlock {
  const text = result.structured === undefined ? result.text : JSON.stringify(result.structured);
  return {
    type: 'tool-result',
    toolCallId: call.id,
    toolName: call.name,
    // Written by a model that read tool output: data from outside, like any tool's result.
    content: [{ type: 'text', text: text === '' ? '(the agent gave no answer)' : text }],
    isError: false,
  };
}

/** The agent's `budgets.maxCalls`: calls past it are refused, as the session's budgets refuse. */
function withCallBudget(host: ToolHost, definition: AgentDefinition): ToolHost {
  const maxCalls = definition.budgets?.maxCalls;
  if (maxCalls === undefined) return host;
  let calls = 0;
  return {
    tools: () => host.tools(),
    call: (call, signal) => {
      if (calls >= maxCalls) {
        return Promise.resolve(
          errorResult(
            call,
            `The call to ${call.name} was not run: it is past the budget of agent ${definition.name}: at most ${maxCalls} tool calls (maxCalls), all used.`,
          ),
        );
      }
      calls += 1;
      return host.call(call, signal);
    },
  };
}
