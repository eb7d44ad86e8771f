/**
 * The `todo` built-in server: a task list the model keeps for itself during a session (as Claude
 * Code's TodoWrite). The model writes the whole list each time, which keeps the tool simple to use
 * and the list consistent; it lives as long as the server (one mcphost run).
 */
import type { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { textResult } from './tool-result.js';

const TODO_STATUSES = ['pending', 'in_progress', 'completed'] as const;

const todoItemSchema = z.object({
  content: z.string().min(1).describe('What to do'),
  status: z.enum(TODO_STATUSES).describe('pending, in_progress or completed'),
});

/** One item of the list. */
export type TodoItem = z.infer<typeof todoItemSchema>;

const STATUS_MARKS: Readonly<Record<TodoItem['status'], string>> = {
  pending: '[ ]',
  in_progress: '[~]',
  completed: '[x]',
};

/** The list as the model reads it back. */
export function renderTodos(items: readonly TodoItem[]): string {
  if (items.length === 0) return 'The todo list is empty.';
  const done = items.filter((item) => item.status === 'completed').length;
  return [
    ...items.map((item, index) => `${index + 1}. ${STATUS_MARKS[item.status]} ${item.content}`),
    `(${done} of ${items.length} done)`,
  ].join('\n');
}

/**
 * Registers `todo_write` and `todo_read` on `server`, over a list held by this server; `onChange`
 * is told the whole list after each write (an editor shows it as its plan).
 */
export function registerTodoTools(server: McpServer, onChange?: (items: readonly TodoItem[]) => void): void {
  let items: readonly TodoItem[] = [];

  server.registerTool(
    'todo_write',
    {
      description:
        'Replace the todo list with this one (send every item, in order). Use it to plan multi-step work and mark progress: at most one item in_progress.',
      inputSchema: z.object({ todos: z.array(todoItemSchema) }),
      // It changes the model's own list in this process and nothing of the user's: read-only as
      // the chat's approval default reads it (a tool that is not is asked about at every step).
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ todos }) => {
      items = todos;
      onChange?.(items);
      return Promise.resolve(textResult(renderTodos(items)));
    },
  );

  server.registerTool(
    'todo_read',
    {
      description: 'Show the todo list.',
      inputSchema: z.object({}),
      annotations: { readOnlyHint: true },
    },
    () => Promise.resolve(textResult(renderTodos(items))),
  );
}
