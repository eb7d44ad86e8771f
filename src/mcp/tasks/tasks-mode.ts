/**
 * The tasks extension (SEP-2663, `io.modelcontextprotocol/tasks`): its id, how a server's calls
 * may run as tasks, and the named bounds of following one. Its own file so that declaring the
 * extension loads nothing else of tasks.
 */

import { AbortedError } from '../../core/errors.js';

/** The extension's id, as declared in capabilities. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/**
 * Whether a server's tool calls may run as tasks (config `tasks`, per server and globally):
 * - `auto` (default): the extension is declared; a call the server answers with a task is followed
 *   to its end, any other answer is used as it is.
 * - `never`: the extension is not declared, so the server must answer at once (a tool it can only
 *   run as a task fails with a line that says so).
 * - `always`: as `auto`, and a server that does not offer the extension is refused: its calls fail
 *   with a line that says so (for servers whose tools are known to be long).
 */
export type TasksMode = 'auto' | 'never' | 'always';

/** The tasks mode when none is configured. */
export const DEFAULT_TASKS_MODE: TasksMode = 'auto';

/**
 * How long a call that became a task may take in all, from the call to its last status (config
 * `taskTimeout`). A task is how a server says "this takes long": an hour, not the tool timeout.
 */
export const DEFAULT_TASK_TIMEOUT_MS = 60 * 60 * 1000;

/**
 * The shortest and longest wait between two `tasks/get` polls. The server's `pollIntervalMs` is
 * honoured within them: the floor keeps a careless server from being polled in a busy loop, the
 * ceiling keeps a task that finished from waiting long to be noticed.
 */
export const MIN_POLL_INTERVAL_MS = 20;
export const MAX_POLL_INTERVAL_MS = 10_000;
/** The wait when the server suggests none. */
export const DEFAULT_POLL_INTERVAL_MS = 1_000;

/** How long one `tasks/get` may go unanswered before the task counts as lost. */
export const TASK_REQUEST_TIMEOUT_MS = 30_000;

/** How long a `tasks/cancel` sent on the way out may take: cancelling must not hold up Ctrl-C. */
export const CANCEL_TIMEOUT_MS = 2_000;

/**
 * The abort reason of a stop that should leave tasks running on their servers (a closed terminal,
 * SIGTERM): the calls end, but no `tasks/cancel` is sent, so that `mcphost -c` can follow them.
 * Ctrl-C (any other reason) cancels them.
 */
export class TasksLeftRunning extends AbortedError {}

/** How the result of a call left running as a task begins, until a later run follows the task. */
export const TASK_LEFT_RUNNING = 'no result yet';
