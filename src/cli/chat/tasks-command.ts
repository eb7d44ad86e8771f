/**
 * `/tasks`: the tool calls running as tasks now (the tasks extension), each with its server, tool,
 * task id, status and how long it has run.
 */
import type { RunningTask } from '../../mcp/tasks/running-tasks.js';
import { stripControlCharacters } from '../../safety/output-limits.js';
import { show, type ChatCommand } from './command-table.js';
import type { Style } from './style.js';

export const TASKS_COMMANDS: readonly ChatCommand[] = [
  {
    name: '/tasks',
    summary: 'list the tool calls running as tasks on servers',
    run: (_, context) => show(listTasks(context.runningTasks?.() ?? [], context.style, Date.now())),
  },
];

/** The listing: one task per line, its status message (the server's words) indented below it. */
export function listTasks(tasks: readonly RunningTask[], style: Style, now: number): string {
  if (tasks.length === 0) return 'No tasks running.';
  const lines = [`Tasks running (${tasks.length}):`];
  for (const task of tasks) {
    const seconds = Math.max(0, Math.round((now - task.startedAt) / 1000));
    lines.push(
      `  ${style.bold(`${stripControlCharacters(task.server)}/${stripControlCharacters(task.tool)}`)}  ${task.status}  ${style.dim(`task ${stripControlCharacters(task.taskId)}, ${seconds} s`)}`,
    );
    if (task.statusMessage !== undefined) {
      lines.push(`      ${stripControlCharacters(task.statusMessage).replace(/\s+/g, ' ').trim()}`);
    }
  }
  return lines.join('\n');
}
