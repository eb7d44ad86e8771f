/**
 * The extension's shapes on the wire, checked where they come in (zod): a server's task answers
 * are untrusted input like the rest of what it says.
 */
import * as z from 'zod';

/** A task's status (SEP-2663 "Task Status"). `completed`, `failed` and `cancelled` are terminal. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

const TERMINAL: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

/** Whether a status is final (the spec: once reached, the task's state does not change). */
export function isTerminal(status: TaskStatus): boolean {
  return TERMINAL.has(status);
}

const taskFields = {
  taskId: z.string().min(1),
  status: z.enum(['working', 'input_required', 'completed', 'failed', 'cancelled']),
  statusMessage: z.string().optional(),
  createdAt: z.string().optional(),
  lastUpdatedAt: z.string().optional(),
  ttlMs: z.number().nullable().optional(),
  pollIntervalMs: z.number().nonnegative().optional(),
};

/** `CreateTaskResult`, and the `Task` inside every later answer; unknown keys are kept. */
const taskSchema = z.looseObject(taskFields);

/** `tasks/get`'s answer: a task with its status's payload (`result`, `error`, `inputRequests`). */
export const detailedTaskSchema = z.looseObject({
  ...taskFields,
  result: z.unknown().optional(),
  error: z.unknown().optional(),
  inputRequests: z.unknown().optional(),
});

/** A task as mcphost keeps it. */
export type Task = z.infer<typeof taskSchema>;
/** A task with its payload, as `tasks/get` gives it. */
export type DetailedTask = z.infer<typeof detailedTaskSchema>;

/** The result a `completed` tool-call task must carry: a `CallToolResult`. */
const callToolResultSchema = z.looseObject({
  content: z.array(z.looseObject({ type: z.string() })),
  isError: z.boolean().optional(),
  structuredContent: z.record(z.string(), z.unknown()).optional(),
  resultType: z.string().optional(),
});

export type TaskToolResult = z.infer<typeof callToolResultSchema>;

/** The JSON-RPC error a `failed` task must carry. */
const taskErrorSchema = z.looseObject({ code: z.number(), message: z.string() });

export type TaskError = z.infer<typeof taskErrorSchema>;

/** A `CreateTaskResult` (the handle a `tools/call` was answered with), or why it is not one. */
export function parseCreatedTask(raw: unknown): Task | string {
  const parsed = taskSchema.safeParse(raw);
  return parsed.success ? parsed.data : `not a task handle (${parsed.error.issues[0]?.message ?? 'invalid'})`;
}

/** The tool result of a `completed` task, or what is wrong with it. */
export function parseTaskResult(raw: unknown): TaskToolResult | string {
  if (raw === undefined) return 'gave no result';
  if (typeof raw === 'object' && raw !== null) {
    const { resultType, status } = raw as { resultType?: unknown; status?: unknown };
    if (resultType !== undefined && resultType !== 'complete') {
      const statusText = typeof status === 'string' ? `, status "${status}"` : '';
      return `gave a result that is not final (resultType ${JSON.stringify(resultType)}${statusText})`;
    }
  }
  const parsed = callToolResultSchema.safeParse(raw);
  return parsed.success ? parsed.data : 'gave a result that is not a tool result';
}

/** The error of a `failed` task, or a stand-in when it carries none that can be read. */
export function parseTaskError(raw: unknown): TaskError {
  const parsed = taskErrorSchema.safeParse(raw);
  return parsed.success ? parsed.data : { code: 0, message: 'no error was given' };
}
