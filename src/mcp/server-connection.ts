/**
 * One configured server over its whole life: started, used, crashed, restarted, given up, closed.
 *
 * States (see {@link ServerState}):
 *
 *     starting ──ok──▶ ready ──exits by itself──▶ down ──next call──▶ starting (restart)
 *        │                                          │
 *        └──fails (first start)──▶ failed ◀──too many failures in a row
 *
 * A server that never started is not retried: it has no tools, so nothing would "use" it. A server
 * that crashed keeps offering the tools it had, and the next call to one of them restarts it
 * (after a backoff when the previous restart failed too). After {@link MAX_CONSECUTIVE_FAILURES}
 * crashes or failed restarts without a successful call in between, we give up and say so.
 */
import {
  ProtocolError,
  SdkError,
  SdkErrorCode,
  type Client,
  type FetchLike,
  type OAuthClientProvider,
  type Tool,
} from '@modelcontextprotocol/client';
import { setTimeout as sleep } from 'node:timers/promises';
import { applyLogLevel } from './client-features.js';
import type { ServerLogLevel } from './server-logs.js';
import { toToolResultBody, type ToolResultBody } from './content.js';
import { isRemoteServer, type ServerDefinition } from './definition.js';
import type { ParentEnvironment } from './environment.js';
import { describeError, describeExit } from './describe.js';
import {
  closeServerSession,
  openServerSession,
  ServerSessionStartError,
  type ClientIdentity,
  type ConfigureClient,
  type ServerSession,
} from './server-session.js';
import { MAX_CONSECUTIVE_FAILURES, restartDelay } from './restart-policy.js';
import type { PoolLog, ServerState, ServerStatus } from './status.js';
import { STDERR_GAP_PREFIX, type StdioProcessTransport } from './stdio-transport.js';
import { messageOf } from '../errors.js';
import { SignInRequiredError } from './auth/errors.js';
import { signInRequiredIn } from './remote-transport.js';

/** Stderr lines quoted to the model when a server dies during a call. */
const STDERR_LINES_FOR_MODEL = 5;

/** Everything a connection needs, resolved by the pool. */
export interface ServerConnectionOptions {
  readonly name: string;
  readonly definition: ServerDefinition;
  readonly parentEnv: ParentEnvironment;
  readonly clientInfo: ClientIdentity;
  readonly initTimeoutMs: number;
  readonly toolTimeoutMs: number;
  readonly maxToolTimeoutMs: number;
  readonly killGraceMs?: number;
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
  /** The server announced that its prompts or resources changed. */
  readonly onListChanged?: (list: 'prompts' | 'resources') => void;
  /** Asked of the server right after each connect, when it declares logging. */
  readonly serverLogLevel?: ServerLogLevel;
  /** A tool call's `notifications/progress`, with the call's own id given to {@link call}. */
  readonly onProgress?: (progress: ToolProgress) => void;
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
}

/** A server and its current session. */
export class ServerConnection {
  readonly name: string;
  private readonly options: ServerConnectionOptions;
  private state: ServerState = 'starting';
  private session: ServerSession | undefined;
  private starting: Promise<void> | undefined;
  /** A process whose handshake is in progress: it must die with us too. */
  private pendingProcess: StdioProcessTransport | undefined;
  /** Abandons a start in progress when the pool closes. */
  private readonly closing = new AbortController();
  private refreshing: Promise<void> | undefined;
  private offered: readonly Tool[] = [];
  private toolsStale = false;
  private failures = 0;
  private restarts = 0;
  private nextStartAt = 0;
  private lastError: string | undefined;
  private lastStderrTail: readonly string[] = [];
  private kind: ServerStatus['transport'];
  private protocolVersion: string | undefined;

  constructor(options: ServerConnectionOptions) {
    this.name = options.name;
    this.options = options;
    this.kind = options.definition.transport;
  }

  /** First start. Never throws: a failure is logged and kept in {@link status}. */
  async start(): Promise<void> {
    this.starting = this.openAndAdopt(false);
    await this.starting;
  }

  /** The tools offered to the model, by their real names (empty unless ready or restartable). */
  tools(): readonly Tool[] {
    return this.state === 'ready' || this.state === 'down' || this.state === 'starting' ? this.offered : [];
  }

  /** Fetches the tool list again if the server announced a change since the last fetch. */
  async refreshIfChanged(): Promise<void> {
    if (!this.toolsStale || this.state !== 'ready') return;
    this.refreshing ??= this.refresh().finally(() => {
      this.refreshing = undefined;
    });
    await this.refreshing;
  }

  /** Runs one tool. Never throws: every failure is an error body the model can read. */
  async call(
    tool: string,
    input: Readonly<Record<string, unknown>>,
    signal?: AbortSignal,
    toolCallId?: string,
  ): Promise<ToolResultBody> {
    const session = await this.usableSession(signal);
    if (typeof session === 'string') return errorBody(session);
    if (signal?.aborted) return errorBody(`the call to "${tool}" was cancelled`);
    const { toolTimeoutMs, maxToolTimeoutMs } = this.options;
    try {
      const result = await session.client.callTool(
        { name: tool, arguments: { ...input } },
        {
          ...(signal ? { signal } : {}),
          timeout: toolTimeoutMs,
          // Progress notifications show the tool is alive: each one restarts the timeout, up to a cap.
          resetTimeoutOnProgress: true,
          maxTotalTimeout: Math.max(maxToolTimeoutMs, toolTimeoutMs),
          onprogress: (progress) => {
            this.debug(
              `"${tool}" progress ${progress.progress}${progress.total === undefined ? '' : `/${progress.total}`}`,
            );
            this.options.onProgress?.({
              server: this.name,
              tool,
              ...(toolCallId === undefined ? {} : { toolCallId }),
              progress: progress.progress,
              ...(progress.total === undefined ? {} : { total: progress.total }),
              ...(progress.message === undefined ? {} : { message: progress.message }),
            });
          },
        },
      );
      this.failures = 0;
      return toToolResultBody(result);
    } catch (error) {
      return errorBody(this.describeCallFailure(error, session, tool, signal));
    }
  }

  /**
   * The live SDK client (starting or restarting the server as a tool call would), for requests
   * other than tool calls: resources, prompts, completion. A string says why there is none.
   */
  async client(signal?: AbortSignal): Promise<Client | string> {
    const session = await this.usableSession(signal);
    return typeof session === 'string' ? session : session.client;
  }

  /** A snapshot for `/servers`. */
  status(): ServerStatus {
    const serverProcess = this.session?.process;
    const running = serverProcess !== undefined && serverProcess.exit === undefined;
    const implementation = this.session?.client.getServerVersion();
    return {
      name: this.name,
      transport: this.kind,
      state: this.state,
      toolCount: this.tools().length,
      ...(this.lastError === undefined ? {} : { lastError: this.lastError }),
      stderrTail: serverProcess?.stderrTail() ?? this.lastStderrTail,
      ...(running && serverProcess.pid !== undefined ? { pid: serverProcess.pid } : {}),
      ...(this.protocolVersion === undefined ? {} : { protocolVersion: this.protocolVersion }),
      restarts: this.restarts,
      ...(implementation === undefined
        ? {}
        : { implementation: { name: implementation.name, version: implementation.version } }),
    };
  }

  /** Ends the server (its whole process tree). Idempotent. */
  async close(): Promise<void> {
    this.state = 'closed';
    this.closing.abort();
    const session = this.session;
    this.session = undefined;
    if (session !== undefined) {
      this.lastStderrTail = session.process?.stderrTail() ?? [];
      await closeServerSession(session);
    }
    // An abandoned start closes what it opened before it settles.
    await this.starting;
  }

  /** Kills the server's process group synchronously (process `exit` hook). */
  killSync(): void {
    this.session?.process?.killSync();
    this.pendingProcess?.killSync();
  }

  private async usableSession(signal: AbortSignal | undefined): Promise<ServerSession | string> {
    for (;;) {
      const state = this.currentState();
      switch (state) {
        case 'ready':
          if (this.session !== undefined) return this.session;
          this.state = 'down';
          continue;
        case 'starting':
          await this.starting;
          if (this.currentState() === 'starting') return `server "${this.name}" is still starting`;
          // A restart that just failed is not tried again by the same call.
          if (this.currentState() === 'down') return this.unavailable();
          continue;
        case 'down': {
          const wait = this.nextStartAt - this.options.now();
          if (wait > 0) {
            try {
              await sleep(wait, undefined, signal ? { signal } : {});
            } catch {
              return 'the call was cancelled';
            }
          }
          if (this.currentState() !== 'down') continue;
          this.debug('restarting');
          this.state = 'starting';
          this.starting = this.openAndAdopt(true);
          continue;
        }
        case 'failed':
        case 'closed':
          return this.unavailable();
        default: {
          const unreachable: never = state;
          return unreachable;
        }
      }
    }
  }

  /** The state, read afresh: it changes across awaits, which type narrowing cannot see. */
  private currentState(): ServerState {
    return this.state;
  }

  private unavailable(): string {
    switch (this.state) {
      case 'closed':
        return `server "${this.name}" has been shut down`;
      case 'failed':
        return `server "${this.name}" is not available: ${this.lastError ?? 'it failed'}`;
      case 'down':
      case 'starting':
      case 'ready':
        return `server "${this.name}" is down: ${this.lastError ?? 'it stopped'}`;
    }
  }

  private async openAndAdopt(isRestart: boolean, afterSignIn = false): Promise<void> {
    let session: ServerSession;
    try {
      session = await openServerSession({
        serverName: this.name,
        definition: this.options.definition,
        ...(this.options.configureClient ? { configureClient: this.options.configureClient } : {}),
        ...(this.options.authProvider ? { authProvider: this.options.authProvider } : {}),
        parentEnv: this.options.parentEnv,
        clientInfo: this.options.clientInfo,
        initTimeoutMs: this.options.initTimeoutMs,
        ...(this.options.killGraceMs === undefined ? {} : { killGraceMs: this.options.killGraceMs }),
        ...(this.options.fetch ? { fetch: this.options.fetch } : {}),
        onDebug: (message) => {
          this.debug(message);
        },
        onStderrLine: (line) => {
          this.debug(`stderr: ${line}`);
        },
        onToolsChanged: () => {
          this.handleToolsChanged();
        },
        ...(this.options.onListChanged === undefined ? {} : { onListChanged: this.options.onListChanged }),
        onClosed: (client) => {
          this.handleClosed(client);
        },
        onSpawn: (serverProcess) => {
          this.pendingProcess = serverProcess;
        },
        signal: this.closing.signal,
      });
    } catch (error) {
      this.pendingProcess = undefined;
      const signInRequired = signInRequiredIn(error);
      if (signInRequired !== undefined && this.state !== 'closed') {
        await this.handleSignInRequired(signInRequired, isRestart, afterSignIn);
        return;
      }
      const reason = messageOf(error);
      this.lastStderrTail = error instanceof ServerSessionStartError ? error.stderrTail : [];
      if (this.state === 'closed') return;
      this.recordFailure(
        isRestart ? `could not be ${this.restartVerb()}: ${reason}` : `failed to start: ${reason}`,
        !isRestart,
      );
      return;
    }
    this.pendingProcess = undefined;
    if (this.state === 'closed') {
      await closeServerSession(session);
      return;
    }
    this.session = session;
    this.kind = session.kind;
    this.protocolVersion = session.protocolVersion;
    void applyLogLevel(session.client, this.options.serverLogLevel, (message) => {
      this.debug(message);
    });
    this.offered = this.filter(session.tools);
    this.toolsStale = false;
    this.state = 'ready';
    if (isRestart) {
      this.restarts += 1;
      this.debug(`restarted (${this.offered.length} tools)`);
    } else {
      this.debug(`ready over ${session.kind} with ${this.offered.length} tools`);
    }
    this.options.onToolsChanged();
  }

  /**
   * The server wants the user to sign in. With an interactive sign-in at hand (the chat) it runs,
   * and the start is tried once more; otherwise, or when it fails, the server is left out with
   * one line that says what to do.
   */
  private async handleSignInRequired(
    required: SignInRequiredError,
    isRestart: boolean,
    afterSignIn: boolean,
  ): Promise<void> {
    const { signIn, definition } = this.options;
    // Sign-in turned off: `mcphost auth login` would not help, so say what the server answered.
    let hint =
      isRemoteServer(definition) && definition.oauth === false
        ? `server ${this.name} refused the request (HTTP ${required.status ?? 401}) and its sign-in is off ("oauth": false)`
        : required.message;
    if (signIn !== undefined && !afterSignIn) {
      try {
        await signIn(this.closing.signal, required.scope);
        await this.openAndAdopt(isRestart, true);
        return;
      } catch (error) {
        if (!(error instanceof SignInRequiredError)) hint = `${messageOf(error)} (${required.message})`;
      }
    }
    if (this.state === 'closed') return;
    this.lastError = hint;
    this.state = 'failed';
    this.offered = [];
    this.warn(hint);
    this.options.onToolsChanged();
  }

  /** The session ended without us closing it. `reason` says why when the transport cannot. */
  private handleClosed(client: ServerSession['client'], reason?: string): void {
    const session = this.session;
    if (session?.client !== client || this.state === 'closed') return;
    this.session = undefined;
    const exit = session.process?.exit;
    this.lastStderrTail = session.process?.stderrTail() ?? [];
    const how =
      reason ??
      (session.process?.closedStdoutWhileRunning === true
        ? 'it closed its stdout while still running'
        : exit === undefined
          ? 'the connection closed'
          : describeExit(exit));
    this.recordFailure(`stopped unexpectedly (${how})`, false);
    // Its process group may still hold children: make sure they go too.
    void closeServerSession(session);
  }

  /** Counts a failure, sets the state, and tells the user once. */
  private recordFailure(reason: string, fatal: boolean): void {
    this.lastError = reason;
    this.failures += 1;
    const givingUp = fatal || this.failures >= MAX_CONSECUTIVE_FAILURES;
    if (givingUp) {
      this.state = 'failed';
      const suffix = fatal ? '' : ` — giving up after ${this.failures} failures in a row`;
      this.warn(`server "${this.name}" ${reason}${suffix}`);
      this.offered = [];
      this.options.onToolsChanged();
      return;
    }
    this.state = 'down';
    const delay = restartDelay(this.failures);
    this.nextStartAt = this.options.now() + delay;
    const when = delay === 0 ? 'when next used' : `when next used, after ${Math.ceil(delay / 1000)} s`;
    this.warn(`server "${this.name}" ${reason}; it will be ${this.restartVerb()} ${when}`);
  }

  private handleToolsChanged(): void {
    this.toolsStale = true;
    this.debug('tool list changed');
    this.options.onToolsChanged();
  }

  private async refresh(): Promise<void> {
    const session = this.session;
    if (session === undefined) return;
    this.toolsStale = false;
    try {
      const { tools } = await session.client.listTools(undefined, {
        timeout: this.options.initTimeoutMs,
        cacheMode: 'refresh',
      });
      if (this.session !== session) return;
      this.offered = this.filter(tools);
      this.debug(`tool list refreshed (${this.offered.length} tools)`);
      this.options.onToolsChanged();
    } catch (error) {
      this.warn(
        `server "${this.name}": could not refresh its tool list (${messageOf(error)}); keeping the previous one`,
      );
    }
  }

  private filter(tools: readonly Tool[]): readonly Tool[] {
    const { allowedTools, excludedTools } = this.options.definition;
    return tools.filter(
      (tool) =>
        !isAppOnly(tool) &&
        (allowedTools === undefined || allowedTools.includes(tool.name)) &&
        (excludedTools === undefined || !excludedTools.includes(tool.name)),
    );
  }

  private describeCallFailure(
    error: unknown,
    session: ServerSession,
    tool: string,
    signal: AbortSignal | undefined,
  ): string {
    if (signal?.aborted) return `the call to "${tool}" was cancelled`;
    if (this.state === 'closed') return `the MCP servers were shut down during the call to "${tool}"`;
    if (this.session !== session || session.process?.exit !== undefined) {
      const exit = session.process?.exit;
      const how =
        session.process?.closedStdoutWhileRunning === true
          ? 'it closed its stdout while still running'
          : exit === undefined
            ? 'the connection closed'
            : `the server ${describeExit(exit)}`;
      const tail = (session.process?.stderrTail() ?? []).slice(-STDERR_LINES_FOR_MODEL);
      const stderr = tail.length === 0 ? '' : `\nLast stderr lines:\n${tail.join('\n')}`;
      const next =
        this.state === 'failed'
          ? `it will not be ${this.restartVerb()}`
          : `it will be ${this.restartVerb()} on the next call`;
      return `server "${this.name}" stopped during the call to "${tool}" (${how}); ${next}.${stderr}`;
    }
    if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
      const { toolTimeoutMs, maxToolTimeoutMs } = this.options;
      // Progress notifications extend a call past toolTimeoutMs, up to the maximum. The SDK says
      // which limit ended it: the total cap's error carries `maxTotalTimeout` in its data.
      const maximum = Math.max(maxToolTimeoutMs, toolTimeoutMs);
      const limit = hitTotalTimeout(error) ? `the maximum of ${maximum} ms` : `${toolTimeoutMs} ms`;
      return `"${tool}" on server "${this.name}" did not finish within ${limit}; the call was cancelled`;
    }
    if (error instanceof ProtocolError)
      return `server "${this.name}" refused the call to "${tool}": ${error.message}`;
    const message = describeError(error);
    if (
      session.process === undefined &&
      !(error instanceof SdkError && error.code === SdkErrorCode.InvalidResult)
    ) {
      // A remote server we cannot reach any more: reconnect on the next call.
      this.handleClosed(session.client, `unreachable: ${message}`);
      return `the call to "${tool}" on server "${this.name}" failed: ${message}; it will be reconnected on the next call`;
    }
    return `the call to "${tool}" on server "${this.name}" failed: ${message}`;
  }

  /** Stdio servers are restarted; remote ones are reconnected. */
  private restartVerb(): string {
    return this.kind === 'stdio' ? 'restarted' : 'reconnected';
  }

  private debug(message: string): void {
    this.options.log({ server: this.name, level: 'debug', message });
  }

  private warn(message: string): void {
    const tail = this.state === 'failed' || this.state === 'down' ? this.lastStderrTail : [];
    const stderr =
      tail.length === 0
        ? ''
        : `\n  ${tail.some((line) => line.startsWith(STDERR_GAP_PREFIX)) ? 'first and last stderr lines' : 'last stderr lines'}:\n${tail.map((line) => `    ${line}`).join('\n')}`;
    this.options.log({ server: this.name, level: 'warn', message: `${message}${stderr}` });
  }
}

/**
 * A tool meant only for an app's UI (MCP Apps: `_meta.ui.visibility` without `"model"`), which
 * must not be offered to the model.
 */
function isAppOnly(tool: Tool): boolean {
  const ui: unknown = tool._meta?.ui;
  if (typeof ui !== 'object' || ui === null || !('visibility' in ui)) return false;
  const { visibility } = ui;
  return Array.isArray(visibility) && !visibility.includes('model');
}

/** The SDK's timeout error for the total cap (not the per-progress one) carries `maxTotalTimeout`. */
function hitTotalTimeout(error: SdkError): boolean {
  const data: unknown = error.data;
  return typeof data === 'object' && data !== null && 'maxTotalTimeout' in data;
}

function errorBody(message: string): ToolResultBody {
  return { content: [{ type: 'text', text: message }], isError: true };
}
