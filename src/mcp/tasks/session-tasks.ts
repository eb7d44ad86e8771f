/** What a fresh session does for tasks: declare the extension, and catch the task handles. */
import type { Client, Transport } from '@modelcontextprotocol/client';
import type { ServerDefinition } from '../definition.js';
import { watchTaskHandles } from './task-handles.js';
import { DEFAULT_TASKS_MODE, TASKS_EXTENSION, type TasksMode } from './tasks-mode.js';

/** The server's tasks mode, the default applied. */
export function tasksModeOf(definition: ServerDefinition): TasksMode {
  return definition.tasks ?? DEFAULT_TASKS_MODE;
}

/**
 * Declares the extension on a fresh client unless tasks are off for the server. On the 2026-07-28
 * era the SDK sends it in every request's capabilities, which is where the spec wants it; the
 * 2025-11-25 era has no such extension (its servers ignore it).
 */
export function declareTasks(client: Client, definition: ServerDefinition): void {
  if (tasksModeOf(definition) === 'never') return;
  client.registerCapabilities({ extensions: { [TASKS_EXTENSION]: {} } });
}

/** Once connected: watch for task handles, when the extension was declared. */
export function watchTasks(transport: Transport, definition: ServerDefinition): void {
  if (tasksModeOf(definition) !== 'never') watchTaskHandles(transport);
}

/** Whether the server offers the extension (in its `server/discover` or `initialize` capabilities). */
export function offersTasks(client: Client): boolean {
  const extensions: unknown = client.getServerCapabilities()?.extensions;
  return typeof extensions === 'object' && extensions !== null && Object.hasOwn(extensions, TASKS_EXTENSION);
}
