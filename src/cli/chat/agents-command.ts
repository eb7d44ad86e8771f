/**
 * `/agents`: the subagent runs of this conversation, oldest first (those of a resumed conversation
 * too: the saved conversation keeps them): which agent, its model, how it ended, its steps and
 * tokens, and the task it was given. `/agents N` shows what run N did: its calls and results,
 * indented under the agent as the chat showed them live, and its answer.
 */
import type { AgentRun } from '../../agents/child-run.js';
import { stripControlCharacters } from '../../safety/output-limits.js';
import { agentRunTranscript } from './agent-transcript.js';
import { failed, show, type ChatCommand } from './command-table.js';
import type { Style } from './style.js';

export const AGENTS_COMMANDS: readonly ChatCommand[] = [
  {
    name: '/agents',
    summary: 'list the agent runs of this conversation; /agents N shows what run N did',
    run: (chosen, context) => {
      const runs = context.agentRuns?.() ?? [];
      if (chosen.trim() === '') return show(listAgentRuns(runs, context.style));
      const number = Number(chosen.trim());
      const run = Number.isInteger(number) ? runs[number - 1] : undefined;
      if (run === undefined) {
        return failed(
          runs.length === 0
            ? 'No agent has run in this conversation.'
            : `There is no agent run ${chosen.trim()}: give 1-${runs.length}.`,
        );
      }
      return show(agentRunTranscript(run, context.style));
    },
  },
];

/** The task is cut to this many characters in the listing. */
const TASK_PREVIEW = 100;

export function listAgentRuns(runs: readonly AgentRun[], style: Style): string {
  if (runs.length === 0) return 'No agent has run in this conversation.';
  const lines = [`Agent runs (${runs.length}; /agents N shows what one did):`];
  runs.forEach((run, index) => {
    const tokens = run.usage.inputTokens + run.usage.outputTokens;
    const task = stripControlCharacters(run.task).replace(/\s+/g, ' ').trim();
    const indent = '  '.repeat(run.depth - 1);
    lines.push(
      `  ${indent}${index + 1}. ${style.bold(run.agent)}  ${style.dim(`${run.model} · ${run.outcome} · ${run.steps} steps · ${tokens.toLocaleString('en-US')} tokens`)}`,
    );
    lines.push(`  ${indent}    ${task.length > TASK_PREVIEW ? `${task.slice(0, TASK_PREVIEW)}…` : task}`);
    if (run.error !== undefined && run.outcome === 'failed') {
      lines.push(`  ${indent}    ${style.dim(stripControlCharacters(run.error))}`);
    }
  });
  return lines.join('\n');
}
