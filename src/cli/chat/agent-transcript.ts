/**
 * What a subagent run did, as lines for a person, from its saved transcript: its calls, results and
 * text under its name, as the chat showed them live (`/agents N`, and `/history` under the agent
 * call that ran it, also in a resumed conversation).
 */
import type { AgentRun } from '../../agents/child-run.js';
import type { Message } from '../../core/types.js';
import { stripControlCharacters } from '../../safety/output-limits.js';
import { describeToolCall, previewResult } from '../activity.js';
import { oneLine } from './sanitize.js';
import type { Style } from './style.js';

/** A run's transcript: the task, then each call, result and text of the agent, under its name. */
export function agentRunTranscript(run: AgentRun, style: Style): string {
  const who = oneLine(run.agent);
  const lines = [style.dim(`⤷ ${who} (${oneLine(run.model)}): ${oneLine(stripControlCharacters(run.task))}`)];
  lines.push(...agentRunLines(run));
  const tokens = run.usage.inputTokens + run.usage.outputTokens;
  const ending =
    run.outcome === 'completed' ? 'done' : `${run.outcome}${run.error === undefined ? '' : `: ${run.error}`}`;
  lines.push(
    style.dim(
      `⤶ ${who} (${oneLine(run.model)}) ${oneLine(stripControlCharacters(ending))}: ${run.steps} steps, ${tokens.toLocaleString('en-US')} tokens`,
    ),
  );
  return lines.join('\n');
}

/** The run's calls, results and text, one line each, `[agent]` first (the task is left out). */
export function agentRunLines(run: AgentRun): string[] {
  const who = oneLine(run.agent);
  // The first message is the task.
  return run.messages.slice(1).flatMap((message) => messageLines(message, who));
}

function messageLines(message: Message, who: string): string[] {
  switch (message.role) {
    case 'user':
      return [];
    case 'assistant':
      return message.content.map((block) =>
        block.type === 'text'
          ? `[${who}] ${oneLine(stripControlCharacters(block.text))}`
          : `[${who}] ${describeToolCall(block)}`,
      );
    case 'tool':
      return message.content.map((result) => {
        const preview = previewResult(result);
        const body = preview.lines.length === 0 ? '(empty)' : preview.lines.join(' ');
        return `[${who}]   ${result.isError ? '✗' : '←'} ${oneLine(result.toolName)} ${oneLine(body)}`;
      });
    default: {
      const unexpected: never = message;
      return unexpected;
    }
  }
}
