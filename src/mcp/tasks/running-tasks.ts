/** The tasks being followed right now, for `/tasks` and the library: one registry per pool. */
import type { TaskStatus } from './task-wire.js';

/** One task being followed. */
export interface RunningTask {
  readonly server: string;
  /** The tool's own name on its server. */
  readonly tool: string;
  readonly taskId: string;
  /** The model's tool call the task answers, when known. */
  readonly toolCallId?: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  /** When mcphost began following it (ms since the epoch); a resumed task: when it was resumed. */
  readonly startedAt: number;
}

/** The running tasks, by task id (ids are unguessable handles, unique per server at least). */
export class RunningTasks {
  readonly #tasks = new Map<string, RunningTask>();

  /** Adds a task or replaces what is known of it. */
  set(task: RunningTask): void {
    this.#tasks.set(`${task.server}\u0000${task.taskId}`, task);
  }

  /** The task ended (or is no longer followed). */
  delete(server: string, taskId: string): void {
    this.#tasks.delete(`${server}\u0000${taskId}`);
  }

  /** Every running task, oldest first. */
  list(): readonly RunningTask[] {
    return [...this.#tasks.values()].sort((first, second) => first.startedAt - second.startedAt);
  }
}
