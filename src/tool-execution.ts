/**
 * Running the tool calls of one step. Every call gets exactly one result, whatever happens: the
 * model must see an answer to each of its calls (vendors reject a history where one is missing).
 */
import { CANCELLED, untilAborted } from './abort.js';
import type { RunnerEvent, ToolCallRecord } from './events.js';
import type { ToolCallBlock, ToolHost, ToolResultBlock } from './types.js';
import { messageOf } from './errors.js';

/** Builds a failed result with one line of explanation for the model. */
export function errorResult(call: ToolCallBlock, text: string): ToolResultBlock {
  return {
    type: 'tool-result',
    toolCallId: call.id,
    toolName: call.name,
    content: [{ type: 'text', text }],
    isError: true,
  };
}

export interface ToolStepContext {
  readonly host: ToolHost | undefined;
  /** The names offered to the model for this step; anything else is an unknown tool. */
  readonly offered: ReadonlySet<string>;
  readonly signal: AbortSignal | undefined;
  readonly emit: (event: RunnerEvent) => void;
  readonly now: () => number;
}

/** Runs all calls of a step in parallel; results come back in the order of the calls. */
export function runToolCalls(
  calls: readonly ToolCallBlock[],
  context: ToolStepContext,
): Promise<ToolCallRecord[]> {
  for (const call of calls) context.emit({ type: 'tool-call', call });
  return Promise.all(
    calls.map(async (call) => {
      const started = context.now();
      const result = await runOne(call, context);
      const record = { call, result, durationMs: context.now() - started };
      context.emit({ type: 'tool-result', record });
      return record;
    }),
  );
}

async function runOne(call: ToolCallBlock, context: ToolStepContext): Promise<ToolResultBlock> {
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
    return await raceAbort(context.host.call(call, context.signal), call, context.signal);
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
