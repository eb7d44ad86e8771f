/**
 * How a pool is built: its options with their defaults, and the options each server's connection
 * gets from them. Kept out of pool.ts, which routes the tools.
 */
import type { Client, FetchLike, OAuthClientProvider } from '@modelcontextprotocol/client';
import type { ServerConnectionOptions, ToolProgress } from './connection-options.js';
import type { ServerDefinition } from './definition.js';
import type { ParentEnvironment } from './environment.js';
import type { ServerProcess } from './server-process.js';
import type { PoolLog } from './status.js';
import type { ServerLogLevel } from './server-logs.js';
import type { ClientIdentity, ConfigureClient } from './server-session.js';
import type { PoolSignIn, ServerAuth } from './auth/pool-sign-in.js';
import type { RunningTasks } from './tasks/running-tasks.js';
import type { TraceContextSource } from './trace-meta.js';
import type { ServerStartObserver } from './start-observer.js';
import { definedProperties } from '../util/defined-properties.js';

/** How long a server may take to start and list its tools, unless configured otherwise. */
export const DEFAULT_INIT_TIMEOUT_MS = 30_000;
/** How long one tool call may take without progress notifications, unless configured otherwise. */
export const DEFAULT_TOOL_TIMEOUT_MS = 120_000;
/** The longest a call may take even while it reports progress, unless configured otherwise. */
export const DEFAULT_MAX_TOOL_TIMEOUT_MS = 600_000;
/** Who we say we are to servers, unless told otherwise. */
export const DEFAULT_CLIENT_INFO: ClientIdentity = { name: 'mcphost', version: '0.0.0' };

/** How to build a pool. Every boundary (environment, fetch, clock, log) is injected. */
export interface McpPoolOptions {
  /** The servers, by name (the name is the `server` part of exposed tool names). */
  readonly servers: Readonly<Record<string, ServerDefinition>>;
  /** Our environment, from which a stdio server's minimal environment is drawn (`process.env`). */
  readonly env: ParentEnvironment;
  /** Receives diagnostics: `warn` for the user (a server failed, crashed, was given up), `debug` for `--debug`. */
  readonly log?: PoolLog;
  /** Default for servers without `initTimeoutMs`. Default {@link DEFAULT_INIT_TIMEOUT_MS}. */
  readonly initTimeoutMs?: number;
  /** Default for servers without `toolTimeoutMs`. Default {@link DEFAULT_TOOL_TIMEOUT_MS}. */
  readonly toolTimeoutMs?: number;
  /** Cap on a call that keeps reporting progress. Default {@link DEFAULT_MAX_TOOL_TIMEOUT_MS}. */
  readonly maxToolTimeoutMs?: number;
  /** Sent in `initialize`. Default {@link DEFAULT_CLIENT_INFO}. */
  readonly clientInfo?: ClientIdentity;
  /** For remote servers. Default: the global `fetch`. */
  readonly fetch?: FetchLike;
  /**
   * Sets up every SDK client the pool makes (capabilities via `client.registerCapabilities`,
   * handlers via `client.setRequestHandler`), before it connects — again on every restart.
   */
  readonly configureClient?: ConfigureClient;
  /**
   * OAuth per remote server: the provider for a server name, or undefined for none. Default: with
   * {@link signIn}, mcphost's own provider (`McpOAuthProvider`) for every remote server
   * whose sign-in is not off. A provider of another kind is used as it is, with no sign-in step.
   */
  readonly authProviderFor?: (serverName: string) => OAuthClientProvider | undefined;
  /** The clock for restart backoff. Default `Date.now`. */
  readonly now?: () => number;
  /** Between SIGTERM and SIGKILL when ending a server's process group. Default 1.5 s. */
  readonly killGraceMs?: number;
  /**
   * Signing in to remote servers that ask for it (OAuth). Absent: no sign-in (only static headers
   * are sent). With `questions.signIn`, a server that needs sign-in asks the person during its
   * start; without, it is reported as needing `mcphost auth login` and left out.
   */
  readonly signIn?: PoolSignIn;
  /** Cancels the start: every server begun is ended, and {@link McpPool.start} rejects with AbortedError. */
  readonly signal?: AbortSignal;
  /**
   * The least severe log level servers should send (`logging/setLevel`, asked of each server that
   * declares logging right after it connects, restarts too). Default: the server's own.
   */
  readonly serverLogLevel?: ServerLogLevel;
  /** Every tool call carries a progress token; its progress reports arrive here. */
  readonly onProgress?: (progress: ToolProgress) => void;
  /**
   * A server announced that its prompts or resources changed (its tools are refreshed by the pool
   * itself). Given, the pool also listens for these on 2026-07-28 connections.
   */
  readonly onListChanged?: (server: string, list: 'prompts' | 'resources') => void;
  /**
   * The trace context each request carries in `params._meta` (telemetry: the active span's
   * `traceparent`). Default: none.
   */
  readonly traceContext?: TraceContextSource;
  /** Hears each server's start (and restart) and each sign-in (telemetry's spans). Default: none. */
  readonly startObserver?: ServerStartObserver;
}

/** What the pool adds to its options for one server's connection. */
export interface PoolConnectionContext {
  /** The server's OAuth provider and sign-in step, when it has them. */
  readonly auth: ServerAuth;
  readonly spawnedProcess: ServerProcess | undefined;
  readonly runningTasks: RunningTasks;
  readonly now: () => number;
  readonly log: PoolLog;
  readonly onReconnected: (client: Client) => void;
  readonly onToolsChanged: () => void;
}

/** One server's connection options: its own settings first, then the pool's, then the defaults. */
export function connectionOptionsFor(
  name: string,
  definition: ServerDefinition,
  options: McpPoolOptions,
  context: PoolConnectionContext,
): ServerConnectionOptions {
  const { authProvider, signIn: signInStep } = context.auth;
  return {
    name,
    definition,
    parentEnv: options.env,
    clientInfo: options.clientInfo ?? DEFAULT_CLIENT_INFO,
    initTimeoutMs: definition.initTimeoutMs ?? options.initTimeoutMs ?? DEFAULT_INIT_TIMEOUT_MS,
    toolTimeoutMs: definition.toolTimeoutMs ?? options.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
    maxToolTimeoutMs: options.maxToolTimeoutMs ?? DEFAULT_MAX_TOOL_TIMEOUT_MS,
    killGraceMs: options.killGraceMs,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.configureClient ? { configureClient: options.configureClient } : {}),
    ...(authProvider ? { authProvider } : {}),
    serverLogLevel: options.serverLogLevel,
    onProgress: options.onProgress,
    runningTasks: context.runningTasks,
    ...(options.onListChanged === undefined
      ? {}
      : {
          onListChanged: (list: 'prompts' | 'resources') => {
            options.onListChanged?.(name, list);
          },
        }),
    onReconnected: context.onReconnected,
    ...(signInStep ? { signIn: observedSignIn(name, signInStep, options.startObserver) } : {}),
    spawnedProcess: context.spawnedProcess,
    now: context.now,
    log: context.log,
    onToolsChanged: context.onToolsChanged,
    ...definedProperties({ traceContext: options.traceContext, startObserver: options.startObserver }),
  };
}

type SignInStep = (signal: AbortSignal, scope: string | undefined) => Promise<void>;

/** The sign-in step, heard by the observer when there is one. */
function observedSignIn(
  server: string,
  step: SignInStep,
  observer: ServerStartObserver | undefined,
): SignInStep {
  if (observer === undefined) return step;
  return (signal, scope) => observer.signingIn(server, () => step(signal, scope));
}
