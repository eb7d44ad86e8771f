/**
 * The Runner's tool-calling bookkeeping for one run: which tools a step offers, the `tool-mode`
 * event when the mode or the way of calling changes, the calls refused before they run (arguments
 * against the schema), and the bound on steps whose every call was refused.
 */
import type { StepTools, ToolMode } from '../../context/tool-catalog.js';
import type { RunnerEvent } from '../events.js';
import type { CheckedToolCalls } from '../model-output.js';
import type { ToolSpec } from '../types.js';
import type { ToolCalling } from './calling-mode.js';
import { argumentProblems } from './tool-arguments.js';

/** Steps in a row whose every call was refused (unknown tool, bad arguments) before a step without tools. */
export const MAX_BAD_CALL_STEPS = 3;

export class ToolStepState {
  #lastMode: ToolMode | undefined;
  #lastCalling: ToolCalling | undefined;
  #badCallSteps = 0;

  /** Says the step's mode when it differs from the last one said (and at a run's first step). */
  report(
    emit: (event: RunnerEvent) => void,
    tools: StepTools | undefined,
    calling: ToolCalling | undefined,
  ): void {
    if (tools === undefined || calling === undefined) return;
    if (sameMode(this.#lastMode, tools.mode) && this.#lastCalling === calling) return;
    emit({ type: 'tool-mode', mode: tools.mode, ...(calling.kind === 'native' ? {} : { calling }) });
    this.#lastMode = tools.mode;
    this.#lastCalling = calling;
  }

  /** Reports the step's mode (when changed) and gives the definitions it sends. */
  start(
    emit: (event: RunnerEvent) => void,
    tools: StepTools | undefined,
    calling: ToolCalling | undefined,
    askingAnswer: boolean,
  ): readonly ToolSpec[] {
    this.report(emit, tools, calling);
    return this.offered(tools, calling, askingAnswer);
  }

  /**
   * The definitions a step sends: none under `none`, after an answer refused by the output schema
   * (the model was done with tools), or after {@link MAX_BAD_CALL_STEPS} refused steps (it must answer).
   */
  offered(
    tools: StepTools | undefined,
    calling: ToolCalling | undefined,
    askingAnswer: boolean,
  ): readonly ToolSpec[] {
    if (askingAnswer || calling?.kind === 'none' || this.#badCallSteps >= MAX_BAD_CALL_STEPS) return [];
    return tools?.offered ?? [];
  }

  /** Every call that must not run, by id, with what the model is told; counts a step of refusals. */
  async refused(
    checked: CheckedToolCalls,
    offered: readonly ToolSpec[],
    callable: ReadonlySet<string>,
  ): Promise<Map<string, string>> {
    const refused = new Map([
      ...checked.refused,
      ...(await argumentProblems(checked.toolCalls, offered, checked.refused)),
    ]);
    const allRefused = checked.toolCalls.every((call) => refused.has(call.id) || !callable.has(call.name));
    this.#badCallSteps = allRefused ? this.#badCallSteps + 1 : 0;
    return refused;
  }
}

/** Same kind and reason: the mode is reported again only when it changes (or at a run's start). */
function sameMode(before: ToolMode | undefined, now: ToolMode): boolean {
  if (before === undefined || before.kind !== now.kind) return false;
  return before.kind === 'all' || (now.kind === 'search' && before.reason === now.reason);
}
