/**
 * One configured server over its whole life: started, used, crashed, restarted, given up, closed.
 * Its state is one {@link ConnectionState} (see connection-state.ts for the diagram).
 *
 * A server that never started is not retried: it has no tools, so nothing would "use" it. A server
 * that crashed keeps offering the tools it had, and the next call to one of them restarts it
 * (after a backoff when the previous restart failed too). After {@link MAX_CONSECUTIVE_FAILURES}
 * crashes or failed restarts without a successful call in between, we give up and say so.
 */
import type { Client, Tool } from '@modelcontextprotocol/client';
import { setTimeout as sleep } from 'node:timers/promises';
import { applyLogLevel } from './client-features.js';
import { toToolResultBody, type ToolResultBody } from './content.js';
import { isRemoteServer } from './definition.js';
import { offeredTools, type ServerConnectionOptions } from './connection-options.js';
import { describeCallFailure, describeSessionEnd } from './call-failure.js';
import {
  publicState,
  unavailableReason,
  type ConnectionState,
  type StartingState,
} from './connection-state.js';
import {
  closeServerSession,
  openServerSession,
  ServerSessionStartError,
  type ServerSession,
} from './server-session.js';
import { MAX_CONSECUTIVE_FAILURES, restartDelay } from './restart-policy.js';
import type { ServerStatus } from './status.js';
import type { ServerProcess } from './server-process.js';
import { STDERR_GAP_PREFIX, type StdioProcessTransport } from './stdio-transport.js';
import { optional } from '../util/optional.js';
import { messageOf } from '../core/errors.js';
import type { ToolResultOrigin } from '../core/types.js';
import { SignInRequiredError } from './auth/errors.js';
import { signInRequiredIn } from './remote-transport.js';
import { sharedSignIn, withSignInRetry } from './auth/step-up.js';
import {
  answerAsTask,
  refusalWithoutTasks,
  resumeTaskCall,
  type ConnectionCall,
} from './tasks/connection-tasks.js';
import { RunningTasks } from './tasks/running-tasks.js';

export type { ServerConnectionOptions, ToolProgress } from './connection-options.js';

/** A server and its current session. */
export class ServerConnection {
  readonly name: string;
  readonly #options: ServerConnectionOptions;
  #state: ConnectionState;
  /** Abandons a start in progress when the pool closes. */
  readonly #closing = new AbortController();
  #refreshing: Promise<void> | undefined;
  /** The sign-in a refused call may run (see sharedSignIn), if someone can be asked. */
  readonly #stepUpSignIn: ((scope: string | undefined) => Promise<void>) | undefined;
  // What outlives a session: its tools (offered again while it restarts) and its history.
  #offered: readonly Tool[] = [];
  #toolsStale = false;
  #failures = 0;
  #restarts = 0;
  #lastError: string | undefined;
  #lastStderrTail: readonly string[] = [];
  #kind: ServerStatus['transport'];
  #protocolVersion: string | undefined;
  /** A stdio server found legacy: restarted without the probe (the spec: cache the era). */
  #knownLegacy = false;
  /** The process the pool spawned for the first start, until that start takes it. */
  #spawnedProcess: ServerProcess | undefined;
  /** Where its tasks are listed when the pool keeps no list of its own. */
  readonly #ownTasks = new RunningTasks();

  constructor(options: ServerConnectionOptions) {
    this.name = options.name;
    this.#options = options;
    this.#stepUpSignIn = sharedSignIn(options.signIn, this.#closing.signal);
    this.#kind = options.definition.transport;
    this.#spawnedProcess = options.spawnedProcess;
    // Not started yet: `start()` replaces this with the first attempt.
    this.#state = { kind: 'down', retryAt: 0, reason: 'not started yet' };
  }

  /** First start. Never throws: a failure is logged and kept in {@link status}. */
  async start(): Promise<void> {
    await this.#beginStart(false);
  }

  /** The tools offered to the model, by their real names (empty unless ready or restartable). */
  tools(): readonly Tool[] {
    switch (this.#state.kind) {
      case 'starting':
      case 'ready':
      case 'down':
        return this.#offered;
      case 'failed':
      case 'closed':
        return [];
      default: {
        const unreachable: never = this.#state;
        return unreachable;
      }
    }
  }

  /** Fetches the tool list again if the server announced a change since the last fetch. */
  async refreshIfChanged(): Promise<void> {
    const state = this.#state;
    if (!this.#toolsStale || state.kind !== 'ready') return;
    this.#refreshing ??= this.#refresh(state.session).finally(() => {
      this.#refreshing = undefined;
    });
    await this.#refreshing;
  }

  /** Runs one tool. Never throws: every failure is an error body the model can read. */
  async call(
    tool: string,
    input: Readonly<Record<string, unknown>>,
    signal?: AbortSignal,
    toolCallId?: string,
    meta?: Readonly<Record<string, unknown>>,
  ): Promise<ToolResultBody> {
    const session = await this.#usableSession(signal);
    // Why a server is unusable may quote it (its error, its stderr): the server's words.
    if (typeof session === 'string') return errorBody(session, 'server');
    if (signal?.aborted) return errorBody(`the call to "${tool}" was cancelled`, 'host');
    const taskCall = this.#taskCall(session.client, tool, signal, toolCallId);
    const refusal = refusalWithoutTasks(taskCall);
    if (refusal !== undefined) return refusal;
    const { toolTimeoutMs, maxToolTimeoutMs } = this.#options;
    const send = () =>
      session.client.callTool(
        { name: tool, arguments: { ...input }, ...(meta === undefined ? {} : { _meta: { ...meta } }) },
        {
          ...(signal ? { signal } : {}),
          timeout: toolTimeoutMs,
          // Progress notifications show the tool is alive: each one restarts the timeout, up to a cap.
          resetTimeoutOnProgress: true,
          maxTotalTimeout: Math.max(maxToolTimeoutMs, toolTimeoutMs),
          onprogress: (progress) => {
            this.#debug(
              `"${tool}" progress ${progress.progress}${progress.total === undefined ? '' : `/${progress.total}`}`,
            );
            this.#options.onProgress?.({
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
    try {
      // A step-up (403 insufficient_scope) or a refused token mid-session: sign in, send again.
      const result = await withSignInRetry({ send, signIn: this.#stepUpSignIn });
      this.#failures = 0;
      return toToolResultBody(result);
    } catch (error) {
      // The server answered with a task (or wants the extension): followed there, to its end.
      const asTask = await answerAsTask(error, taskCall);
      if (asTask !== undefined) {
        if (!asTask.isError) this.#failures = 0;
        return asTask;
      }
      // Not an outage: the session stays, and the one line says what to do.
      const signInRequired = signInRequiredIn(error);
      if (signInRequired !== undefined && !signal?.aborted) return errorBody(signInRequired.message, 'host');
      const failure = describeCallFailure(error, {
        serverName: this.name,
        tool,
        session,
        state: this.#state,
        cancelled: signal?.aborted === true,
        toolTimeoutMs,
        maxToolTimeoutMs,
        restartVerb: this.#restartVerb(),
      });
      if (failure.unreachable !== undefined)
        this.#handleClosed(session.client, `unreachable: ${failure.unreachable}`);
      return errorBody(failure.message, failure.origin);
    }
  }

  /** Follows a task a previous session left running to its end. Never throws. */
  async resumeTask(
    tool: string,
    taskId: string,
    toolCallId: string,
    signal?: AbortSignal,
  ): Promise<ToolResultBody> {
    const session = await this.#usableSession(signal);
    if (typeof session === 'string') return errorBody(session, 'server');
    return resumeTaskCall(this.#taskCall(session.client, tool, signal, toolCallId), taskId);
  }

  /** What the tasks part of a call needs to know of it. */
  #taskCall(
    client: Client,
    tool: string,
    signal: AbortSignal | undefined,
    toolCallId: string | undefined,
  ): ConnectionCall {
    return {
      client,
      server: this.name,
      definition: this.#options.definition,
      tool,
      ...(toolCallId === undefined ? {} : { toolCallId }),
      ...(signal === undefined ? {} : { signal }),
      startedAt: this.#options.now(),
      now: this.#options.now,
      running: this.#options.runningTasks ?? this.#ownTasks,
      ...(this.#options.onProgress === undefined ? {} : { onProgress: this.#options.onProgress }),
    };
  }

  /**
   * The live SDK client (starting or restarting the server as a tool call would), for requests
   * other than tool calls: resources, prompts, completion. A string says why there is none.
   */
  async client(signal?: AbortSignal): Promise<Client | string> {
    const session = await this.#usableSession(signal);
    return typeof session === 'string' ? session : session.client;
  }

  /**
   * Tells a running server that the roots changed (it asks for them again). A server that is not
   * running asks when it next starts; a failure is only logged.
   */
  async notifyRootsChanged(): Promise<void> {
    const state = this.#state;
    if (state.kind !== 'ready' || this.#options.definition.roots === false) return;
    const { session } = state;
    try {
      // Deprecated by the 2026-07-28 revision (SEP-2577), still how 2025-era servers learn of roots.
      // eslint-disable-next-line @typescript-eslint/no-deprecated
      await session.client.sendRootsListChanged();
    } catch (error) {
      this.#options.log({
        server: this.name,
        level: 'debug',
        message: `roots/list_changed not sent: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
  }

  /** A snapshot for `/servers`. */
  status(): ServerStatus {
    const session = this.#state.kind === 'ready' ? this.#state.session : undefined;
    const serverProcess = session?.process;
    const running = serverProcess !== undefined && serverProcess.exit === undefined;
    const implementation = session?.client.getServerVersion();
    return {
      name: this.name,
      transport: this.#kind,
      state: publicState(this.#state),
      toolCount: this.tools().length,
      ...(this.#lastError === undefined ? {} : { lastError: this.#lastError }),
      stderrTail: serverProcess?.stderrTail() ?? this.#lastStderrTail,
      ...(running && serverProcess.pid !== undefined ? { pid: serverProcess.pid } : {}),
      ...(this.#protocolVersion === undefined ? {} : { protocolVersion: this.#protocolVersion }),
      restarts: this.#restarts,
      ...(implementation === undefined
        ? {}
        : { implementation: { name: implementation.name, version: implementation.version } }),
    };
  }

  /** Ends the server (its whole process tree). Idempotent. */
  async close(): Promise<void> {
    // Spawned for a start that never came (the pool closed at once): nothing else will end it.
    this.#spawnedProcess?.killGroupSync();
    const state = this.#state;
    this.#state = { kind: 'closed' };
    this.#closing.abort();
    switch (state.kind) {
      case 'ready':
        this.#lastStderrTail = state.session.process?.stderrTail() ?? [];
        await closeServerSession(state.session);
        return;
      case 'starting':
        // An abandoned start closes what it opened before it settles.
        await state.attempt;
        return;
      case 'down':
      case 'failed':
      case 'closed':
        return;
      default: {
        const unreachable: never = state;
        return unreachable;
      }
    }
  }

  /** Kills the server's process group synchronously (process `exit` hook). */
  killSync(): void {
    this.#spawnedProcess?.killGroupSync();
    const state = this.#state;
    if (state.kind === 'ready') state.session.process?.killSync();
    if (state.kind === 'starting') for (const serverProcess of state.spawned) serverProcess.killSync();
  }

  #beginStart(restart: boolean): Promise<void> {
    const spawned = new Set<StdioProcessTransport>();
    const attempt = this.#openAndAdopt(restart, spawned);
    this.#state = { kind: 'starting', attempt, restart, spawned };
    return attempt;
  }

  /** True while `spawned` identifies the attempt the connection is waiting for. */
  #isCurrentAttempt(spawned: StartingState['spawned']): boolean {
    return this.#state.kind === 'starting' && this.#state.spawned === spawned;
  }

  async #usableSession(signal: AbortSignal | undefined): Promise<ServerSession | string> {
    let waitedForStart = false;
    for (;;) {
      // A fresh snapshot each turn: the state changes across every await below.
      const state = this.#state;
      switch (state.kind) {
        case 'ready':
          return state.session;
        case 'starting': {
          if (waitedForStart) return unavailableReason(this.name, state);
          await state.attempt;
          waitedForStart = true;
          const after = this.#state;
          // A restart that just failed is not tried again by the same call.
          if (after.kind === 'down') return unavailableReason(this.name, after);
          continue;
        }
        case 'down': {
          const wait = state.retryAt - this.#options.now();
          if (wait > 0) {
            try {
              await sleep(wait, undefined, signal ? { signal } : {});
            } catch {
              return 'the call was cancelled';
            }
            // Someone else may have restarted it meanwhile: look again.
            if (this.#state !== state) continue;
          }
          this.#debug('restarting');
          void this.#beginStart(true);
          continue;
        }
        case 'failed':
        case 'closed':
          return unavailableReason(this.name, state);
        default: {
          const unreachable: never = state;
          return unreachable;
        }
      }
    }
  }

  /** `signIns`: how many sign-ins this start has run already. */
  async #openAndAdopt(isRestart: boolean, spawned: StartingState['spawned'], signIns = 0): Promise<void> {
    let session: ServerSession;
    const spawnedProcess = this.#spawnedProcess;
    this.#spawnedProcess = undefined;
    try {
      session = await openServerSession({
        ...optional('spawnedProcess', spawnedProcess),
        serverName: this.name,
        definition: this.#options.definition,
        ...(this.#options.configureClient ? { configureClient: this.#options.configureClient } : {}),
        ...(this.#options.authProvider ? { authProvider: this.#options.authProvider } : {}),
        parentEnv: this.#options.parentEnv,
        clientInfo: this.#options.clientInfo,
        initTimeoutMs: this.#options.initTimeoutMs,
        ...(this.#options.killGraceMs === undefined ? {} : { killGraceMs: this.#options.killGraceMs }),
        ...(this.#options.fetch ? { fetch: this.#options.fetch } : {}),
        onDebug: (message) => this.#debug(message),
        onStderrLine: (line) => this.#debug(`stderr: ${line}`),
        onToolsChanged: () => this.#handleToolsChanged(),
        ...optional('onListChanged', this.#options.onListChanged),
        onClosed: (client) => this.#handleClosed(client),
        onSpawn: (serverProcess) => spawned.add(serverProcess),
        signal: this.#closing.signal,
        knownLegacy: this.#knownLegacy,
      });
    } catch (error) {
      if (!this.#isCurrentAttempt(spawned)) return;
      const signInRequired = signInRequiredIn(error);
      if (signInRequired !== undefined) {
        await this.#handleSignInRequired(signInRequired, isRestart, spawned, signIns);
        return;
      }
      const reason = messageOf(error);
      this.#lastStderrTail = error instanceof ServerSessionStartError ? error.stderrTail : [];
      this.#recordFailure(
        isRestart ? `could not be ${this.#restartVerb()}: ${reason}` : `failed to start: ${reason}`,
        !isRestart,
      );
      return;
    }
    if (!this.#isCurrentAttempt(spawned)) {
      await closeServerSession(session);
      return;
    }
    this.#state = { kind: 'ready', session };
    this.#kind = session.kind;
    this.#protocolVersion = session.protocolVersion;
    // Revisions are dates: anything before 2026-07-28 is the `initialize` generation.
    this.#knownLegacy = session.kind === 'stdio' && (session.protocolVersion ?? '') < '2026-07-28';
    void applyLogLevel(session.client, this.#options.serverLogLevel, (message) => {
      this.#debug(message);
    });
    this.#offered = this.#filter(session.tools);
    this.#toolsStale = false;
    if (isRestart) {
      this.#restarts += 1;
      this.#debug(`restarted (${this.#offered.length} tools)`);
      // As soon as it is ready, before the use that restarted it goes on: subscriptions are asked first.
      this.#options.onReconnected?.(session.client);
    } else {
      this.#debug(`ready over ${session.kind} with ${this.#offered.length} tools`);
    }
    this.#options.onToolsChanged();
  }

  /**
   * The server wants the user to sign in. With an interactive sign-in at hand (the chat) it runs,
   * and the start is tried once more; otherwise, or when it fails, the server is left out with
   * one line that says what to do.
   */
  async #handleSignInRequired(
    required: SignInRequiredError,
    isRestart: boolean,
    spawned: StartingState['spawned'],
    signIns: number,
  ): Promise<void> {
    const { signIn, definition } = this.#options;
    // Sign-in turned off: `mcphost auth login` would not help, so say what the server answered.
    let hint =
      isRemoteServer(definition) && definition.oauth === false
        ? `server ${this.name} refused the request (HTTP ${required.status ?? 401}) and its sign-in is off ("oauth": false)`
        : required.message;
    // One sign-in per start, and one more when the server moved to another authorization server
    // meanwhile (SEP-2352): a server that keeps refusing does not loop the person through it.
    const mayRetry = signIns === 0 || (signIns === 1 && required.authorizationServerChanged);
    if (signIn !== undefined && mayRetry) {
      try {
        await signIn(this.#closing.signal, required.scope);
        await this.#openAndAdopt(isRestart, spawned, signIns + 1);
        return;
      } catch (error) {
        if (!(error instanceof SignInRequiredError)) hint = `${messageOf(error)} (${required.message})`;
      }
    }
    if (!this.#isCurrentAttempt(spawned)) return;
    this.#lastError = hint;
    this.#state = { kind: 'failed', reason: hint };
    this.#offered = [];
    this.#warn(hint, []);
    this.#options.onToolsChanged();
  }

  /** The session ended without us closing it. `reason` says why when the transport cannot. */
  #handleClosed(client: Client, reason?: string): void {
    const state = this.#state;
    if (state.kind !== 'ready' || state.session.client !== client) return;
    const { session } = state;
    this.#lastStderrTail = session.process?.stderrTail() ?? [];
    this.#recordFailure(`stopped unexpectedly (${reason ?? describeSessionEnd(session)})`, false);
    // Its process group may still hold children: make sure they go too.
    void closeServerSession(session);
  }

  /** Counts a failure, moves to `down` or `failed`, and tells the user once. */
  #recordFailure(reason: string, fatal: boolean): void {
    this.#lastError = reason;
    this.#failures += 1;
    if (fatal || this.#failures >= MAX_CONSECUTIVE_FAILURES) {
      this.#state = { kind: 'failed', reason };
      const suffix = fatal ? '' : ` — giving up after ${this.#failures} failures in a row`;
      this.#warn(`server "${this.name}" ${reason}${suffix}`, this.#lastStderrTail);
      this.#offered = [];
      this.#options.onToolsChanged();
      return;
    }
    const delay = restartDelay(this.#failures);
    this.#state = { kind: 'down', retryAt: this.#options.now() + delay, reason };
    const when = delay === 0 ? 'when next used' : `when next used, after ${Math.ceil(delay / 1000)} s`;
    this.#warn(
      `server "${this.name}" ${reason}; it will be ${this.#restartVerb()} ${when}`,
      this.#lastStderrTail,
    );
  }

  #handleToolsChanged(): void {
    this.#toolsStale = true;
    this.#debug('tool list changed');
    this.#options.onToolsChanged();
  }

  async #refresh(session: ServerSession): Promise<void> {
    this.#toolsStale = false;
    try {
      const { tools } = await session.client.listTools(undefined, {
        timeout: this.#options.initTimeoutMs,
        cacheMode: 'refresh',
      });
      const state = this.#state;
      if (state.kind !== 'ready' || state.session !== session) return;
      this.#offered = this.#filter(tools);
      this.#debug(`tool list refreshed (${this.#offered.length} tools)`);
      this.#options.onToolsChanged();
    } catch (error) {
      this.#warn(
        `server "${this.name}": could not refresh its tool list (${messageOf(error)}); keeping the previous one`,
        [],
      );
    }
  }

  #filter(tools: readonly Tool[]): readonly Tool[] {
    return offeredTools(tools, this.#options.definition);
  }

  /** Stdio servers are restarted; remote ones are reconnected. */
  #restartVerb(): string {
    return this.#kind === 'stdio' ? 'restarted' : 'reconnected';
  }

  #debug(message: string): void {
    this.#options.log({ server: this.name, level: 'debug', message });
  }

  /** Tells the user, with the server's stderr lines that say why (`stderr`, when there are any). */
  #warn(message: string, stderr: readonly string[]): void {
    const which = stderr.some((line) => line.startsWith(STDERR_GAP_PREFIX))
      ? 'first and last stderr lines'
      : 'last stderr lines';
    const quoted =
      stderr.length === 0 ? '' : `\n  ${which}:\n${stderr.map((line) => `    ${line}`).join('\n')}`;
    this.#options.log({ server: this.name, level: 'warn', message: `${message}${quoted}` });
  }
}

function errorBody(message: string, origin: ToolResultOrigin): ToolResultBody {
  return { content: [{ type: 'text', text: message }], isError: true, origin };
}
