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
import { applyLogLevel, sendRootsChanged } from './client-features.js';
import { sessionOptionsFor } from './connection-session-options.js';
import type { ToolResultBody } from './content.js';
import type { ServerConnectionOptions } from './connection-options.js';
import { OfferedTools } from './offered-tools.js';
import { describeSessionEnd } from './call-failure.js';
import type { ConnectionState, StartingState } from './connection-state.js';
import { usableSession, type RestartableConnection } from './usable-session.js';
import {
  closeServerSession,
  openServerSession,
  ServerSessionStartError,
  type ServerSession,
} from './server-session.js';
import { MAX_CONSECUTIVE_FAILURES, restartDelay } from './restart-policy.js';
import type { ServerStatus } from './status.js';
import type { ServerProcess } from './server-process.js';
import type { StdioProcessTransport } from './stdio-transport.js';
import { connectionStatus, withStderrLines } from './connection-report.js';
import { definedProperties } from '../util/defined-properties.js';
import { messageOf } from '../core/errors.js';
import type { SignInRequiredError } from './auth/errors.js';
import { signInAtStart } from './auth/start-sign-in.js';
import { observedOpening } from './start-observer.js';
import { signInRequiredIn } from './remote-transport.js';
import { sharedSignIn } from './auth/step-up.js';
import {
  callToolOnSession,
  errorBody,
  resumeTaskOnSession,
  type SessionToolCallContext,
} from './session-tool-call.js';
import { RunningTasks } from './tasks/running-tasks.js';

export type { ServerConnectionOptions, ToolProgress } from './connection-options.js';

/** A server and its current session. */
export class ServerConnection {
  readonly name: string;
  readonly #options: ServerConnectionOptions;
  #state: ConnectionState;
  /** Abandons a start in progress when the pool closes. */
  readonly #closing = new AbortController();
  // What outlives a session: its tools (offered again while it restarts) and its history.
  readonly #offered: OfferedTools;
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
  /** What a tool call needs to know of this connection (see session-tool-call.ts). */
  readonly #toolCallContext: SessionToolCallContext;
  /** What waiting for a usable session needs (see usable-session.ts). */
  readonly #restartable: RestartableConnection;

  constructor(options: ServerConnectionOptions) {
    this.name = options.name;
    this.#options = options;
    this.#kind = options.definition.transport;
    this.#spawnedProcess = options.spawnedProcess;
    this.#offered = new OfferedTools({
      serverName: this.name,
      definition: options.definition,
      listTimeoutMs: options.initTimeoutMs,
      onChanged: () => options.onToolsChanged(),
      debug: (message) => this.#debug(message),
      warn: (message) => this.#warn(message, []),
    });
    // Not started yet: `start()` replaces this with the first attempt.
    this.#state = { kind: 'down', retryAt: 0, reason: 'not started yet' };
    this.#toolCallContext = {
      serverName: this.name,
      options: this.#options,
      ownTasks: new RunningTasks(),
      stepUpSignIn: sharedSignIn(options.signIn, this.#closing.signal),
      state: () => this.#state,
      restartVerb: () => this.#restartVerb(),
      debug: (message) => this.#debug(message),
      succeeded: () => {
        this.#failures = 0;
      },
      unreachable: (client, reason) => this.#handleClosed(client, reason),
    };
    this.#restartable = {
      name: this.name,
      state: () => this.#state,
      now: options.now,
      restart: () => {
        this.#debug('restarting');
        void this.#beginStart(true);
      },
    };
  }

  /** First start. Never throws: a failure is logged and kept in {@link status}. */
  async start(): Promise<void> {
    await this.#beginStart(false);
  }

  /** The tools only an MCP App may call, by their real names (empty when {@link tools} is). */
  appOnlyTools(): readonly Tool[] {
    const { kind } = this.#state;
    return kind === 'failed' || kind === 'closed' ? [] : this.#offered.appOnlyTools;
  }

  /** The tools offered to the model, by their real names (empty unless ready or restartable). */
  tools(): readonly Tool[] {
    switch (this.#state.kind) {
      case 'starting':
      case 'ready':
      case 'down':
        return this.#offered.tools;
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
    if (state.kind !== 'ready') return;
    await this.#offered.refreshIfStale(
      state.session,
      (session) => this.#state.kind === 'ready' && this.#state.session === session,
    );
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
    const call = {
      tool,
      input,
      ...definedProperties({ signal, toolCallId, meta }),
    };
    return callToolOnSession(session, call, this.#toolCallContext);
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
    const task = { tool, taskId, toolCallId, ...definedProperties({ signal }) };
    return resumeTaskOnSession(session, task, this.#toolCallContext);
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
    await sendRootsChanged(state.session.client, (message) => this.#debug(message));
  }

  /** A snapshot for `/servers`. */
  status(): ServerStatus {
    return connectionStatus({
      name: this.name,
      transport: this.#kind,
      state: this.#state,
      toolCount: this.tools().length,
      lastError: this.#lastError,
      lastStderrTail: this.#lastStderrTail,
      protocolVersion: this.#protocolVersion,
      restarts: this.#restarts,
    });
  }

  /** Ends the server (its whole process tree). Idempotent. */
  /** The close of a session that ended by itself (its process group being ended). */
  #ending: Promise<void> = Promise.resolve();

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
        await this.#ending;
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

  #usableSession(signal: AbortSignal | undefined): Promise<ServerSession | string> {
    return usableSession(this.#restartable, signal);
  }

  /** `signIns`: how many sign-ins this start has run already. */
  async #openAndAdopt(isRestart: boolean, spawned: StartingState['spawned'], signIns = 0): Promise<void> {
    let session: ServerSession;
    const spawnedProcess = this.#spawnedProcess;
    this.#spawnedProcess = undefined;
    const facts = { server: this.name, definition: this.#options.definition, restart: isRestart };
    const open = (): Promise<ServerSession> =>
      openServerSession(
        sessionOptionsFor(this.#options, {
          ...definedProperties({ spawnedProcess }),
          onDebug: (message) => this.#debug(message),
          onStderrLine: (line) => this.#debug(`stderr: ${line}`),
          onToolsChanged: () => this.#offered.markStale(),
          onClosed: (client) => this.#handleClosed(client),
          onSpawn: (serverProcess) => spawned.add(serverProcess),
          signal: this.#closing.signal,
          knownLegacy: this.#knownLegacy,
        }),
      );
    try {
      session = await observedOpening(this.#options.startObserver, facts, open);
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
    const toolCount = this.#offered.adopt(session.tools);
    if (isRestart) {
      this.#restarts += 1;
      this.#debug(`restarted (${toolCount} tools)`);
      // As soon as it is ready, before the use that restarted it goes on: subscriptions are asked first.
      this.#options.onReconnected?.(session.client);
    } else {
      this.#debug(`ready over ${session.kind} with ${toolCount} tools`);
    }
    this.#options.onToolsChanged();
  }

  /** The server wants the user to sign in (see start-sign-in.ts); left out when it cannot. */
  async #handleSignInRequired(
    required: SignInRequiredError,
    isRestart: boolean,
    spawned: StartingState['spawned'],
    signIns: number,
  ): Promise<void> {
    const hint = await signInAtStart({
      serverName: this.name,
      definition: this.#options.definition,
      required,
      signIn: this.#options.signIn,
      signIns,
      signal: this.#closing.signal,
      startAgain: () => this.#openAndAdopt(isRestart, spawned, signIns + 1),
    });
    if (hint === undefined) return;
    if (!this.#isCurrentAttempt(spawned)) return;
    this.#lastError = hint;
    this.#state = { kind: 'failed', reason: hint };
    this.#offered.clear();
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
    // Its process group may still hold children: make sure they go too (close() waits for it).
    this.#ending = closeServerSession(session);
  }

  /** Counts a failure, moves to `down` or `failed`, and tells the user once. */
  #recordFailure(reason: string, fatal: boolean): void {
    this.#lastError = reason;
    this.#failures += 1;
    if (fatal || this.#failures >= MAX_CONSECUTIVE_FAILURES) {
      this.#state = { kind: 'failed', reason };
      const suffix = fatal ? '' : ` — giving up after ${this.#failures} failures in a row`;
      this.#warn(`server "${this.name}" ${reason}${suffix}`, this.#lastStderrTail);
      this.#offered.clear();
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

  /** Stdio servers are restarted; remote ones are reconnected. */
  #restartVerb(): string {
    return this.#kind === 'stdio' ? 'restarted' : 'reconnected';
  }

  #debug(message: string): void {
    this.#options.log({ server: this.name, level: 'debug', message });
  }

  /** Tells the user, with the server's stderr lines that say why (`stderr`, when there are any). */
  #warn(message: string, stderr: readonly string[]): void {
    this.#options.log({ server: this.name, level: 'warn', message: withStderrLines(message, stderr) });
  }
}
