/** What a {@link ServerConnection} is given, and which of a server's tools it offers. */
import type { Client, FetchLike, OAuthClientProvider, Tool } from '@modelcontextprotocol/client';
import type { ServerDefinition } from './definition.js';
import type { ParentEnvironment } from './environment.js';
import type { ClientIdentity, ConfigureClient } from './server-session.js';
import type { ServerLogLevel } from './server-logs.js';
import type { ServerProcess } from './server-process.js';
import type { PoolLog } from './status.js';
import type { RunningTasks } from './tasks/running-tasks.js';
import type { TaskStatus } from './tasks/task-wire.js';
import type { ServerStartObserver } from './start-observer.js';
import type { TraceContextSource } from './trace-meta.js';

/** Everything a connection needs, resolved by the pool. */
export interface ServerConnectionOptions {
  readonly name: string;
  readonly definition: ServerDefinition;
  readonly parentEnv: ParentEnvironment;
  readonly clientInfo: ClientIdentity;
  readonly initTimeoutMs: number;
  readonly toolTimeoutMs: number;
  readonly maxToolTimeoutMs: number;
  readonly killGraceMs?: number | undefined;
  readonly fetch?: FetchLike;
  /** Sets up each fresh SDK client of this server (capabilities, request handlers). */
  readonly configureClient?: ConfigureClient;
  /** OAuth for a remote server: signs its requests in (the SDK runs the flow on a 401). */
  readonly authProvider?: OAuthClientProvider;
  /**
   * Runs an interactive sign-in when the server needs one (the chat); absent, the server is
   * reported as needing sign-in and left out (`-p`). Rejects when the user declines or it fails.
   */
  readonly signIn?: (signal: AbortSignal, scope: string | undefined) => Promise<void>;
  readonly now: () => number;
  readonly log: PoolLog;
  /** The set of offered tools may have changed (list changed, server given up). */
  readonly onToolsChanged: () => void;
  /** The trace context each request carries (see McpPoolOptions.traceContext). */
  readonly traceContext?: TraceContextSource;
  /** Hears each start of the session and each sign-in (see McpPoolOptions.startObserver). */
  readonly startObserver?: ServerStartObserver;
  /** The server announced that its prompts or resources changed. */
  readonly onListChanged?: (list: 'prompts' | 'resources') => void;
  /**
   * A restart (stdio) or reconnect (remote) succeeded: `client` is ready, and has been told nothing
   * the previous connection was. Called before the use that caused the restart goes on.
   */
  readonly onReconnected?: (client: Client) => void;
  /** Asked of the server right after each connect, when it declares logging. */
  readonly serverLogLevel?: ServerLogLevel | undefined;
  /** A tool call's `notifications/progress`, with the call's own id given to {@link call}. */
  readonly onProgress?: ((progress: ToolProgress) => void) | undefined;
  /** A stdio server's process, spawned by the pool before the SDK loaded: the first start adopts it. */
  readonly spawnedProcess?: ServerProcess | undefined;
  /** Where the calls that run as tasks are listed while they run (the pool's, for `/tasks`). */
  readonly runningTasks?: RunningTasks | undefined;
}

/** One progress report of a running tool call. */
export interface ToolProgress {
  readonly server: string;
  readonly tool: string;
  /** The id of the model's tool call, when the caller gave one. */
  readonly toolCallId?: string;
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
  /**
   * Set when the call runs as a task (the tasks extension): its id and status. Each status the
   * task is seen in is one report, `message` says it, `progress` counts the reports.
   */
  readonly task?: TaskProgress;
}

/** The task behind a {@link ToolProgress} report. */
export interface TaskProgress {
  readonly taskId: string;
  readonly status: TaskStatus;
}

/** The tools offered to the model: not app-only, and as `allowedTools`/`excludedTools` say. */
export function offeredTools(tools: readonly Tool[], definition: ServerDefinition): readonly Tool[] {
  return configuredTools(tools, definition).filter((tool) => !isAppOnly(tool));
}

/**
 * The tools only an MCP App's page may call (src/apps), as `allowedTools`/`excludedTools` say: a
 * tool the config leaves out is left out for apps too.
 */
export function appOnlyTools(tools: readonly Tool[], definition: ServerDefinition): readonly Tool[] {
  return configuredTools(tools, definition).filter((tool) => isAppOnly(tool));
}

function configuredTools(tools: readonly Tool[], definition: ServerDefinition): readonly Tool[] {
  const { allowedTools, excludedTools } = definition;
  return tools.filter(
    (tool) =>
      (allowedTools === undefined || allowedTools.includes(tool.name)) &&
      (excludedTools === undefined || !excludedTools.includes(tool.name)),
  );
}

/**
 * A tool meant only for an app's UI (MCP Apps: `_meta.ui.visibility` without `"model"`), which
 * must not be offered to the model.
 */
export function isAppOnly(tool: Tool): boolean {
  const ui: unknown = tool._meta?.ui;
  if (typeof ui !== 'object' || ui === null || !('visibility' in ui)) return false;
  const { visibility } = ui;
  return Array.isArray(visibility) && !visibility.includes('model');
}
