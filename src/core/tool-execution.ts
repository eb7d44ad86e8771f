/**
 * Running the tool calls of one step. Every call gets exactly one result, whatever happens: the
 * model must see an answer to each of its calls (vendors reject a history where one is missing).
 */
import { setMaxListeners } from 'node:events';
import { CANCELLED, untilAborted } from '../util/abort.js';
import type { RunnerEvent, ToolCallRecord } from './events.js';
import type { ToolCallBlock, ToolHost, ToolResultBlock } from './types.js';
import { messageOf } from './errors.js';
import { withToolCallContext } from './tool-call-context.js';

/**
 * A failed result in the host's own words (one line of explanation for the model): not screened
 * or marked as untrusted content, since no server wrote it.
 */
export function errorResult(call: ToolCallBlock, text: string): ToolResultBlock {
  return {
    type: 'tool-result',
    toolCallId: call.id,
    toolName: call.name,
    content: [{ type: 'text', text }],
    isError: true,
    origin: 'host',
  };
}

export interface ToolStepContext {
  readonly host: ToolHost | undefined;
  /** The names offered to the model for this step; anything else is an unknown tool. */
  readonly offered: ReadonlySet<string>;
  /** Calls the model's output check refused (see `checkToolCalls`), by id: what the model is told. */
  readonly refused?: ReadonlyMap<string, string>;
  readonly signal: AbortSignal | undefined;
  readonly emit: (event: RunnerEvent) => void;
  readonly now: () => number;
  /** Runs the host's call of `call` (telemetry: inside the call's span). Default: as it is. */
  readonly around?: <T>(call: ToolCallBlock, work: () => Promise<T>) => Promise<T>;
}

/** Runs all calls of a step in parallel; results come back in the order of the calls. */
export function runToolCalls(
  calls: readonly ToolCallBlock[],
  context: ToolStepContext,
): Promise<ToolCallRecord[]> {
  for (const call of calls) context.emit({ type: 'tool-call', call });
  // Each call waits on the signal (and its host may listen too): with many calls in a step, that is
  // more listeners on one signal than Node's leak warning allows (10). They are bounded by the
  // calls of this step and removed as each call ends, so the limit is raised for this step's signal.
  const step = stepSignal(context.signal, calls.length);
  const stepContext = { ...context, signal: step.signal };
  return Promise.all(
    calls.map(async (call) => {
      const started = context.now();
      const result = await runOne(call, stepContext);
      const record = { call, result, durationMs: context.now() - started };
      context.emit({ type: 'tool-result', record });
      return record;
    }),
  ).finally(step.dispose);
}

/** A signal for one step that follows the run's, with room for a few listeners per call. */
function stepSignal(
  signal: AbortSignal | undefined,
  calls: number,
): { signal: AbortSignal | undefined; dispose: () => void } {
  if (signal === undefined) return { signal, dispose: () => undefined };
  const controller = new AbortController();
  setMaxListeners(Math.max(10, calls * LISTENERS_PER_CALL), controller.signal);
  const follow = () => controller.abort(signal.reason);
  if (signal.aborted) follow();
  else signal.addEventListener('abort', follow, { once: true });
  return { signal: controller.signal, dispose: () => signal.removeEventListener('abort', follow) };
}

/** Listeners one call may add to its signal: the wait here, the guard's, the pool's and the SDK's. */
const LISTENERS_PER_CALL = 4;

async function runOne(call: ToolCallBlock, context: ToolStepContext): Promise<ToolResultBlock> {
  const refusal = context.refused?.get(call.id);
  if (refusal !== undefined) return errorResult(call, refusal);
  if (call.rawInput !== undefined) {
    return errorResult(
      call,
      `The arguments for ${call.name} were not a JSON object, so the tool was not run. Received: ${call.rawInput}`,
    );
  }
  if (context.host === undefined || !context.offered.has(call.name)) {
    const available = listNames([...context.offered]);
    return errorResult(call, `Unknown tool "${call.name}". Available tools: ${available}.`);
  }
  if (context.signal?.aborted === true) return cancelled(call);
  try {
    const host = context.host;
    // A subagent's events find their way through the tool-call context; telemetry's `around` runs
    // the call inside its span.
    const callHost = (): Promise<ToolResultBlock> =>
      withToolCallContext({ emit: context.emit }, () => host.call(call, context.signal));
    const pending = context.around === undefined ? callHost() : context.around(call, callHost);
    return await raceAbort(pending, call, context.signal);
  } catch (error) {
    // Hosts should not throw for tool failures, but a bug in one must not break the conversation.
    const reason = messageOf(error);
    return errorResult(call, `The tool ${call.name} failed: ${reason}`);
  }
}

/** Enough names for the model to correct itself without flooding its context. */
const MAX_LISTED_TOOLS = 30;

function listNames(names: readonly string[]): string {
  if (names.length === 0) return 'none';
  const listed = names.slice(0, MAX_LISTED_TOOLS).join(', ');
  return names.length > MAX_LISTED_TOOLS ? `${listed} and ${names.length - MAX_LISTED_TOOLS} more` : listed;
}

function cancelled(call: ToolCallBlock): ToolResultBlock {
  return errorResult(call, `The call to ${call.name} was cancelled by the user before it finished.`);
}

/** Answers "cancelled" as soon as the signal aborts, even if the host is slow to give up. */
async function raceAbort(
  pending: Promise<ToolResultBlock>,
  call: ToolCallBlock,
  signal: AbortSignal | undefined,
): Promise<ToolResultBlock> {
  const result = await untilAborted(pending, signal);
  return result === CANCELLED ? cancelled(call) : result;
}
