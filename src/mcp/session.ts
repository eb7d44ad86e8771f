/**
 * One live connection to one server: an SDK `Client` on a transport, opened and handshaken within
 * a deadline, with its first tool list. A server that restarts gets a new session; nothing of a
 * dead session is reused.
 */
import {
  Client,
  SdkError,
  SdkErrorCode,
  type FetchLike,
  type Tool,
  type Transport,
} from '@modelcontextprotocol/client';
import { capabilitiesOf, installFeatureHandlers, type SessionFeatures } from './client-features.js';
import type { ServerDefinition } from './definition.js';
import { describeError, describeExit } from './describe.js';
import { childEnvironment, type ParentEnvironment } from './environment.js';
import { connectRemote, terminateRemote } from './remote-transport.js';
import { StdioProcessTransport, type ProcessExit } from './stdio-transport.js';

/** Who we say we are in `initialize`. */
export interface ClientIdentity {
  readonly name: string;
  readonly version: string;
}

/** A connected session. */
export interface Session {
  readonly client: Client;
  readonly transport: Transport;
  /** The server process, for stdio servers. */
  readonly process: StdioProcessTransport | undefined;
  /** The transport in use (`http` may have fallen back to `sse`). */
  readonly kind: 'stdio' | 'http' | 'sse';
  /** Every tool the server listed (all pages), before any filtering. */
  readonly tools: readonly Tool[];
}

/** What {@link openSession} needs. */
export interface OpenSessionOptions {
  readonly definition: ServerDefinition;
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
  /** The connection ended (for any reason, after or during opening). */
  readonly onClosed: (client: Client) => void;
  /** Called as soon as a stdio server process exists, so it can be killed even mid-handshake. */
  readonly onSpawn?: (process: StdioProcessTransport) => void;
  /** Abandons the attempt (the pool is closing). */
  readonly signal?: AbortSignal;
  /** Elicitation, logs, change notifications: declared as capabilities and installed as handlers. */
  readonly features?: SessionFeatures;
}

/** Opening failed. `stderrTail` holds the server's last stderr lines (stdio only). */
export class SessionStartError extends Error {
  readonly stderrTail: readonly string[];
  constructor(message: string, stderrTail: readonly string[], options?: ErrorOptions) {
    super(message, options);
    this.name = 'SessionStartError';
    this.stderrTail = stderrTail;
  }
}

/** How long a failed start waits for the server's exit status before describing the failure. */
const EXIT_GRACE_MS = 300;

async function exitOrTimeout(serverProcess: { readonly exit: unknown }): Promise<void> {
  for (let waited = 0; waited < EXIT_GRACE_MS && serverProcess.exit === undefined; waited += 20) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Starts (or reaches) the server, runs the handshake and lists its tools. */
export async function openSession(options: OpenSessionOptions): Promise<Session> {
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
    let kind: Session['kind'];
    if (definition.transport === 'stdio') {
      serverProcess = new StdioProcessTransport({
        command: definition.command,
        args: definition.args,
        ...(definition.cwd === undefined ? {} : { cwd: definition.cwd }),
        env: childEnvironment(options.parentEnv, definition),
        onStderrLine: options.onStderrLine,
        onDebug: options.onDebug,
        ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
      });
      transport = serverProcess;
      options.onSpawn?.(serverProcess);
      client = makeClient(options);
      await client.connect(serverProcess, { signal: deadline.signal, timeout: remaining() });
      kind = 'stdio';
    } else {
      const remote = await connectRemote({
        definition,
        makeClient: () => makeClient(options),
        signal: deadline.signal,
        timeoutMs: remaining(),
        ...(options.fetch ? { fetch: options.fetch } : {}),
        onDebug: options.onDebug,
      });
      ({ client, transport, kind } = remote);
    }
    stage = 'tools/list';
    const { tools } = await client.listTools(undefined, { signal: deadline.signal, timeout: remaining() });
    return { client, transport, process: serverProcess, kind, tools };
  } catch (error) {
    // A server that exits at once makes our first write fail (EPIPE) before its exit is seen;
    // give the exit a moment to arrive, so the user reads "exited with code 3", not "write EPIPE".
    if (serverProcess !== undefined && serverProcess.exit === undefined && !deadline.signal.aborted) {
      await exitOrTimeout(serverProcess);
    }
    const reason = describeStartFailure(
      error,
      stage,
      serverProcess?.exit,
      deadline.signal.aborted,
      initTimeoutMs,
    );
    if (client !== undefined) await closeQuietly(client, transport);
    else await serverProcess?.close();
    throw new SessionStartError(reason, serverProcess?.stderrTail() ?? [], { cause: error });
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', abandon);
  }
}

/** Ends a session: politely for remote servers, and the whole process tree for stdio ones. */
export async function closeSession(session: Session): Promise<void> {
  await closeQuietly(session.client, session.transport);
}

function makeClient(options: OpenSessionOptions): Client {
  // Version negotiation stays at the SDK default ('legacy': the 2025 `initialize` handshake), which
  // every server in use answers, 2026-era ones included. 'auto' would first probe with
  // `server/discover`, and on a custom stdio transport it probes in place: servers built on SDKs
  // that exit on an unknown pre-initialize request would die of the probe.
  const client = new Client(
    { name: options.clientInfo.name, version: options.clientInfo.version },
    {
      capabilities: capabilitiesOf(options.features),
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
      },
    },
  );
  installFeatureHandlers(client, options.features);
  client.onclose = () => {
    options.onClosed(client);
  };
  client.onerror = (error) => {
    options.onDebug(`protocol: ${error.message}`);
  };
  return client;
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
  deadlinePassed: boolean,
  initTimeoutMs: number,
): string {
  if (exit !== undefined) return `${describeExit(exit)} before answering "${stage}"`;
  if (deadlinePassed || (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout)) {
    return `did not answer "${stage}" within ${initTimeoutMs} ms`;
  }
  const message = describeError(error);
  return stage === 'initialize' ? message : `"${stage}" failed: ${message}`;
}
