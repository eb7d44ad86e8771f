/**
 * A subagent's progress as lines for a person: its tool calls and results indented under the
 * agent call that runs it (two spaces a level), its name, model and tokens when it ends. Used by
 * `-p`'s progress on stderr and, styled, by the chat.
 */
import type { AgentEvent, RunnerEvent, ToolCallRecord } from '../core/events.js';
import type { ToolCallBlock, Usage } from '../core/types.js';
import { describeToolCall, describeToolResult } from './activity.js';
import { oneLine } from './chat/sanitize.js';
import { unwrapAgentEvent } from './output/agent-records.js';

/** How a line of each kind is drawn (plain for `-p`, styled in the chat). */
export interface AgentLineStyle {
  readonly call: (call: ToolCallBlock) => string;
  readonly result: (record: ToolCallRecord) => string;
  readonly dim: (text: string) => string;
}

const PLAIN: AgentLineStyle = {
  call: (call) => describeToolCall(call),
  result: (record) => describeToolResult(record).trimStart(),
  dim: (text) => text,
};

/** The line (or lines) of a child's event, or `undefined` for events not shown. */
export function agentProgressLine(event: AgentEvent, style: AgentLineStyle = PLAIN): string | undefined {
  const { inner, depth, event: child } = unwrapAgentEvent(event);
  const indent = '  '.repeat(depth);
  const who = oneLine(inner.agent);
  const shown = shownLine(child, style, inner.model, who);
  if (shown === undefined) return undefined;
  return shown
    .split('\n')
    .map((line) => `${indent}${line}`)
    .join('\n');
}

function shownLine(
  child: RunnerEvent,
  style: AgentLineStyle,
  model: string,
  who: string,
): string | undefined {
  switch (child.type) {
    case 'step-start':
      return child.step === 1 ? style.dim(`⤷ ${who} (${oneLine(model)}) working`) : undefined;
    case 'tool-call':
      return `[${who}] ${style.call(child.call)}`;
    case 'tool-result':
      return `[${who}]   ${style.result(child.record)}`;
    case 'done':
      return style.dim(
        `⤶ ${who} (${oneLine(model)}) done: ${stepsAndTokens(child.result.steps, child.result.usage)}`,
      );
    case 'retry':
      return style.dim(`[${who}] ⟳ ${oneLine(child.error.message)} (retry ${child.attempt})`);
    case 'text-delta':
    case 'reasoning-delta':
    case 'tool-call-delta':
    case 'step-finish':
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

function stepsAndTokens(steps: number, usage: Usage): string {
  const tokens = usage.inputTokens + usage.outputTokens;
  return `${steps} step${steps === 1 ? '' : 's'}, ${tokens.toLocaleString('en-US')} tokens (${usage.inputTokens.toLocaleString('en-US')} in, ${usage.outputTokens.toLocaleString('en-US')} out)`;
}
