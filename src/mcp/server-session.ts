/**
 * One live connection to one server (a "server session", not to be confused with a saved
 * conversation): an SDK `Client` on a transport, opened and negotiated within a deadline, with its
 * first tool list. A server that restarts gets a new session; nothing of a dead session is reused.
 *
 * Protocol generation (see docs/conformance.md, "Protocol"):
 * - HTTP: the SDK's 'auto' negotiation — a `server/discover` probe, which costs one request; a
 *   2026-07-28 server is used statelessly, anything else falls back to the `initialize` handshake.
 * - stdio: the spec (2026-07-28 stdio, "Backward Compatibility") says a dual-era client SHOULD
 *   probe with `server/discover` first and treat any other error or silence as legacy. It says
 *   nothing of servers that exit on an unknown pre-`initialize` request, and some do (SDKs that
 *   terminate on it). Our transport owns the process tree, so the SDK probes it in place; when the
 *   probe ends the process, we start the server once more and run the legacy handshake on it —
 *   unless what it said on stderr shows that it failed on its own (it would fail again), see
 *   {@link mayHaveDiedOfTheProbe}. A legacy server that ignores the probe is found out by a ping
 *   (probe-watch.ts), not by waiting out the probe. And the era, once known, is kept (the spec
 *   says to cache it): a server found legacy is restarted without a probe.
 */
import {
  Client,
  SdkError,
  SdkErrorCode,
  type FetchLike,
  type OAuthClientProvider,
  type Tool,
  type Transport,
} from '@modelcontextprotocol/client';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ServerDefinition } from './definition.js';
import { describeError, describeExit } from './describe.js';
import { npxAdvice } from './npx-advice.js';
import { childEnvironment, type ParentEnvironment } from './environment.js';
import { SignInRequiredError } from './auth/errors.js';
import { connectRemote, terminateRemote } from './remote-transport.js';
import type { ServerProcess } from './server-process.js';
import { StdioProcessTransport, type ProcessExit } from './stdio-transport.js';
import { declareTasks, watchTasks } from './tasks/session-tasks.js';
import { carryTraceContext, type TraceContextSource } from './trace-meta.js';
import { definedProperties } from '../util/defined-properties.js';

/**
 * Installs client capabilities (`client.registerCapabilities`) and request handlers
 * (`client.setRequestHandler`) on a server's fresh SDK `Client`, before it connects. Called for
 * every client made, so a restarted or reconnected server gets the same setup.
 */
export type ConfigureClient = (client: Client, serverName: string, definition: ServerDefinition) => void;

/** How a server's protocol generation is chosen: see the file comment. */
export type NegotiationMode = 'auto' | 'legacy';

/** Who we say we are in `initialize` and in the 2026-07-28 per-request `_meta`. */
export interface ClientIdentity {
  readonly name: string;
  readonly version: string;
}

/** A connected session. */
export interface ServerSession {
  readonly client: Client;
  readonly transport: Transport;
  /** The server process, for stdio servers. */
  readonly process: StdioProcessTransport | undefined;
  /** The transport in use (`http` may have fallen back to `sse`; `builtin` is in-process). */
  readonly kind: 'stdio' | 'http' | 'sse' | 'builtin';
  /** The protocol revision agreed with the server (`2026-07-28`, `2025-11-25`, …). */
  readonly protocolVersion: string | undefined;
  /** Every tool the server listed (all pages), before any filtering. */
  readonly tools: readonly Tool[];
}

/** What {@link openServerSession} needs. */
export interface OpenServerSessionOptions {
  /** The configured name, for messages and {@link ConfigureClient}. */
  readonly serverName: string;
  readonly definition: ServerDefinition;
  /** Sets up each fresh client (capabilities, request handlers). */
  readonly configureClient?: ConfigureClient;
  /** OAuth for a remote server (HTTP and SSE). Without it a 401/403 means "needs sign-in". */
  readonly authProvider?: OAuthClientProvider;
  readonly parentEnv: ParentEnvironment;
  readonly clientInfo: ClientIdentity;
  /** Bounds spawning, `initialize` and `tools/list` together. */
  readonly initTimeoutMs: number;
  readonly killGraceMs?: number;
  readonly fetch?: FetchLike;
  readonly onDebug: (message: string) => void;
  readonly onStderrLine: (line: string) => void;
  /** The server announced `notifications/tools/list_changed`. */
  readonly onToolsChanged: () => void;
  /**
   * The server announced that its prompts or resources changed. Given, these lists are also
   * listened for on a 2026-07-28 connection (where notifications come on a `subscriptions/listen`
   * stream the SDK opens for the lists named here).
   */
  readonly onListChanged?: (list: 'prompts' | 'resources') => void;
  /** The connection ended (for any reason, after or during opening). */
  readonly onClosed: (client: Client) => void;
  /** Called as soon as a stdio server process exists, so it can be killed even mid-handshake. */
  readonly onSpawn?: (process: StdioProcessTransport) => void;
  /** Abandons the attempt (the pool is closing). */
  readonly signal?: AbortSignal;
  /** This stdio server was found to be legacy before: skip the probe, run `initialize`. */
  readonly knownLegacy?: boolean;
  /** A stdio server's process spawned already (by the pool, before the SDK loaded): used first. */
  readonly spawnedProcess?: ServerProcess;
  /** The trace context every request carries in `params._meta` (trace-meta.ts). */
  readonly traceContext?: TraceContextSource;
}

/**
 * Opening failed. `stderrTail` holds the server's stderr lines that best say why (stdio only): all
 * of them when few, else the first and the last ones around a `…` line.
 */
export class ServerSessionStartError extends Error {
  readonly stderrTail: readonly string[];
  constructor(message: string, stderrTail: readonly string[], options?: ErrorOptions) {
    super(message, options);
    this.name = 'ServerSessionStartError';
    this.stderrTail = stderrTail;
  }
}

/** The longest a `server/discover` probe may go unanswered before a stdio server counts as legacy. */
const PROBE_TIMEOUT_MS = 10_000;

/** How long a failed start waits for the server's exit status before describing the failure. */
const EXIT_GRACE_MS = 300;

/**
 * The process's exit and the end of its output, or nothing after {@link EXIT_GRACE_MS}. A process that never started (no
 * such command, not executable) has no exit to wait for. The grace timer is referenced on purpose:
 * the start awaits it, and an unreferenced one let Node run out of work mid-await when the failed
 * server was the only thing running — the run then ended silently with exit code 0 (issue 26).
 */
async function exitOrTimeout(serverProcess: StdioProcessTransport): Promise<void> {
  if (serverProcess.pid === undefined) return;
  const settled = new AbortController();
  const grace = sleep(EXIT_GRACE_MS, undefined, { signal: settled.signal }).catch(() => undefined);
  try {
    // Its exit, and the end of its output: the last stderr lines (why it failed) may come after
    // the exit is seen.
    await Promise.race([Promise.all([serverProcess.exited, serverProcess.outputEnded]), grace]);
  } finally {
    // Once the exit came, the timer must not hold the process open for the rest of the grace.
    settled.abort();
  }
}

/** Starts (or reaches) the server, runs the handshake and lists its tools. */
export async function openServerSession(options: OpenServerSessionOptions): Promise<ServerSession> {
  const { definition, initTimeoutMs } = options;
  const deadline = new AbortController();
  const timer = setTimeout(() => {
    deadline.abort(new Error('startup deadline passed'));
  }, initTimeoutMs);
  timer.unref();
  const abandon = (): void => {
    deadline.abort(new Error('abandoned'));
  };
  options.signal?.addEventListener('abort', abandon, { once: true });
  if (options.signal?.aborted === true) abandon();
  const startedAt = Date.now();
  const remaining = (): number => Math.max(1, initTimeoutMs - (Date.now() - startedAt));

  let stage: 'initialize' | 'tools/list' = 'initialize';
  let client: Client | undefined;
  let transport: Transport | undefined;
  let serverProcess: StdioProcessTransport | undefined;
  try {
    let kind: ServerSession['kind'];
    if (definition.transport === 'stdio') {
      let spawnedAlready = options.spawnedProcess;
      const spawnServer = (): StdioProcessTransport => {
        const adopted = spawnedAlready;
        // Only the first start adopts it: a start again after the probe spawns anew.
        spawnedAlready = undefined;
        const spawned = new StdioProcessTransport({
          ...definedProperties({ process: adopted }),
          command: definition.command,
          args: definition.args,
          ...definedProperties({ cwd: definition.cwd }),
          env: childEnvironment(options.parentEnv, definition),
          ...definedProperties({ sandbox: definition.sandbox }),
          onStderrLine: options.onStderrLine,
          onDebug: options.onDebug,
          ...definedProperties({ killGraceMs: options.killGraceMs }),
        });
        options.onSpawn?.(spawned);
        if (options.traceContext !== undefined) carryTraceContext(spawned, options.traceContext);
        return spawned;
      };
      serverProcess = spawnServer();
      transport = serverProcess;
      client = makeClient(options, options.knownLegacy === true ? 'legacy' : 'auto');
      try {
        await client.connect(serverProcess, { signal: deadline.signal, timeout: remaining() });
      } catch (error) {
        if (deadline.signal.aborted || !probeEndedTheServer(error)) throw error;
        await exitOrTimeout(serverProcess);
        if (!mayHaveDiedOfTheProbe(serverProcess)) throw error;
        options.onDebug(
          `the server/discover probe ended the server (${describeError(error)}); starting it again with "initialize"`,
        );
        await closeQuietly(client, serverProcess);
        serverProcess = spawnServer();
        transport = serverProcess;
        client = makeClient(options, 'legacy');
        await client.connect(serverProcess, { signal: deadline.signal, timeout: remaining() });
      }
      kind = 'stdio';
    } else if (definition.transport === 'builtin') {
      // In-process: the server's module (and the server SDK) load only when one is configured.
      const { connectBuiltin } = await import('../builtin/connect.js');
      transport = await connectBuiltin({
        settings: definition.builtin,
        parentEnv: options.parentEnv,
        version: options.clientInfo.version,
        ...definedProperties({ host: definition.host }),
      });
      if (options.traceContext !== undefined) carryTraceContext(transport, options.traceContext);
      // 'auto' like every server: the in-memory server answers the probe at once (today with an
      // error, so the handshake is `initialize` on the same transport, ~1 ms).
      client = makeClient(options, 'auto');
      await client.connect(transport, { signal: deadline.signal, timeout: remaining() });
      kind = 'builtin';
    } else {
      const remote = await connectRemote({
        serverName: options.serverName,
        definition,
        makeClient: () => makeClient(options, 'auto'),
        signal: deadline.signal,
        timeoutMs: remaining(),
        ...(options.fetch ? { fetch: options.fetch } : {}),
        ...(options.authProvider ? { authProvider: options.authProvider } : {}),
        onDebug: options.onDebug,
        ...definedProperties({ traceContext: options.traceContext }),
      });
      ({ client, transport, kind } = remote);
    }
    options.onDebug(
      `speaking MCP ${client.getNegotiatedProtocolVersion() ?? 'of an unknown revision'} over ${kind}`,
    );
    watchTasks(transport, definition);
    stage = 'tools/list';
    const { tools } = await client.listTools(undefined, { signal: deadline.signal, timeout: remaining() });
    return {
      client,
      transport,
      process: serverProcess,
      kind,
      protocolVersion: client.getNegotiatedProtocolVersion(),
      tools,
    };
  } catch (error) {
    // A server that exits at once makes our first write fail (EPIPE) before its exit is seen;
    // give the exit a moment to arrive, so the user reads "exited with code 3", not "write EPIPE",
    // and its last stderr lines (which may come after the exit) a moment to be read.
    if (serverProcess !== undefined && !deadline.signal.aborted) {
      await exitOrTimeout(serverProcess);
    }
    const timedOut =
      deadline.signal.aborted || (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout);
    const reason = describeStartFailure(error, stage, serverProcess?.exit, timedOut, initTimeoutMs);
    if (client !== undefined) await closeQuietly(client, transport);
    else await serverProcess?.close();
    const stderr = serverProcess?.stderrExcerpt() ?? [];
    const advice =
      definition.transport === 'stdio'
        ? npxAdvice({ command: definition.command, stderr, timedOut })
        : undefined;
    throw new ServerSessionStartError(advice === undefined ? reason : `${reason}; ${advice}`, stderr, {
      cause: error,
    });
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', abandon);
  }
}

/** Ends a session: politely for remote servers, and the whole process tree for stdio ones. */
export async function closeServerSession(session: ServerSession): Promise<void> {
  await closeQuietly(session.client, session.transport);
}

/** What a shell says when the command itself could not run: the probe has nothing to do with it. */
const SHELL_COULD_NOT_RUN = new Set([126, 127]);

/**
 * Whether a server that ended during the probe may have ended because of it, and so deserves a
 * second start with `initialize`. A server that exits on a request before `initialize` either
 * says nothing or names what it got (the method, `initialize`); one that explains a failure of
 * its own on stderr without either (a missing setting, a bad flag) would only fail again, so it
 * is reported at once instead of being started twice.
 */
function mayHaveDiedOfTheProbe(serverProcess: StdioProcessTransport): boolean {
  const code = serverProcess.exit?.code;
  if (code !== undefined && code !== null && SHELL_COULD_NOT_RUN.has(code)) return false;
  const stderr = serverProcess.stderrExcerpt();
  return stderr.length === 0 || stderr.some((line) => /discover|initiali[sz]/i.test(line));
}

/**
 * A probe answered by the process ending: the SDK reports the close during an in-place probe as a
 * failed negotiation (on HTTP a close is an outage, so this is asked only of stdio).
 */
function probeEndedTheServer(error: unknown): boolean {
  return error instanceof SdkError && error.code === SdkErrorCode.EraNegotiationFailed;
}

function makeClient(options: OpenServerSessionOptions, mode: NegotiationMode): Client {
  const client = new Client(
    { name: options.clientInfo.name, version: options.clientInfo.version },
    {
      versionNegotiation: {
        mode,
        // A silent stdio server is a legacy one (the spec's "reasonable timeout"); an HTTP server
        // that says nothing is down. Either way the probe must leave time for the handshake.
        probe: { timeoutMs: Math.max(1, Math.min(PROBE_TIMEOUT_MS, Math.floor(options.initTimeoutMs / 2))) },
      },
      // No auto-refresh: the pool refreshes a changed list right before the next model call, so the
      // model never sees a list that is still being fetched.
      listChanged: {
        tools: {
          autoRefresh: false,
          debounceMs: 0,
          onChanged: () => {
            options.onToolsChanged();
          },
        },
        ...(options.onListChanged === undefined
          ? {}
          : {
              prompts: listChangedHandler(options.onListChanged, 'prompts'),
              resources: listChangedHandler(options.onListChanged, 'resources'),
            }),
      },
    },
  );
  declareTasks(client, options.definition);
  options.configureClient?.(client, options.serverName, options.definition);
  client.onclose = () => {
    options.onClosed(client);
  };
  client.onerror = (error) => {
    options.onDebug(`protocol: ${error.message}`);
  };
  return client;
}

/** A list's change handler: no auto-refresh (the catalog lists again when next asked). */
function listChangedHandler(
  onListChanged: (list: 'prompts' | 'resources') => void,
  list: 'prompts' | 'resources',
): { autoRefresh: false; debounceMs: number; onChanged: () => void } {
  return {
    autoRefresh: false,
    debounceMs: 0,
    onChanged: () => {
      onListChanged(list);
    },
  };
}

async function closeQuietly(client: Client, transport: Transport | undefined): Promise<void> {
  if (transport !== undefined) await terminateRemote(transport);
  try {
    await client.close();
  } catch {
    // Closing a broken connection may fail; the process tree is ended by the transport either way.
  }
  // `Client.close` is a no-op when the handshake never attached the transport.
  await transport?.close().catch(() => undefined);
}

function describeStartFailure(
  error: unknown,
  stage: string,
  exit: ProcessExit | undefined,
  timedOut: boolean,
  initTimeoutMs: number,
): string {
  if (exit !== undefined) return `${describeExit(exit)} before answering "${stage}"`;
  // Said as is: the SDK's wording of the same 401 would only repeat it.
  if (error instanceof SignInRequiredError) return error.message;
  if (timedOut) return `did not answer "${stage}" within ${initTimeoutMs} ms`;
  const message = describeError(error);
  return stage === 'initialize' ? message : `"${stage}" failed: ${message}`;
}
