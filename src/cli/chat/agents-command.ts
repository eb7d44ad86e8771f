/**
 * `/agents`: the subagent runs of this conversation, oldest first: which agent, its model, how it
 * ended, its steps and tokens, and the task it was given.
 */
import type { AgentRun } from '../../agents/child-run.js';
import { stripControlCharacters } from '../../safety/output-limits.js';
import { show, type ChatCommand } from './command-table.js';
import type { Style } from './style.js';

export const AGENTS_COMMANDS: readonly ChatCommand[] = [
  {
    name: '/agents',
    summary: 'list the agent runs of this conversation (agent, model, outcome, tokens, task)',
    run: (_, context) => show(listAgentRuns(context.agentRuns?.() ?? [], context.style)),
  },
];

/** The task is cut to this many characters in the listing. */
const TASK_PREVIEW = 100;

export function listAgentRuns(runs: readonly AgentRun[], style: Style): string {
  if (runs.length === 0) return 'No agent has run in this conversation.';
  const lines = [`Agent runs (${runs.length}):`];
  for (const run of runs) {
    const tokens = run.usage.inputTokens + run.usage.outputTokens;
    const task = stripControlCharacters(run.task).replace(/\s+/g, ' ').trim();
    lines.push(
      `  ${'  '.repeat(run.depth - 1)}${style.bold(run.agent)}  ${style.dim(`${run.model} · ${run.outcome} · ${run.steps} steps · ${tokens.toLocaleString('en-US')} tokens`)}`,
    );
    lines.push(
      `  ${'  '.repeat(run.depth - 1)}    ${task.length > TASK_PREVIEW ? `${task.slice(0, TASK_PREVIEW)}…` : task}`,
    );
    if (run.error !== undefined && run.outcome === 'failed') {
      lines.push(`  ${'  '.repeat(run.depth - 1)}    ${style.dim(stripControlCharacters(run.error))}`);
    }
  }
  return lines.join('\n');
}
