/**
 * Remote servers: Streamable HTTP, falling back to the older HTTP+SSE transport.
 *
 * The fallback follows the MCP spec's backwards-compatibility rule (2025-03-26 and later,
 * "Transports"): a client POSTs first, and only when that POST fails with an HTTP 4xx status such
 * as 404 or 405 does it try the old SSE endpoint at the same URL. So:
 * - 401/403 is authorization, not an old server: never a fallback. With an OAuth provider the SDK
 *   signs in; without one the start fails with one line saying the server needs sign-in.
 * - a protocol-version error, a refused `initialize`, a network failure or silence is not an old
 *   transport either: the Streamable HTTP failure is reported as it is.
 * Each attempt needs a fresh `Client`, because a client that failed to connect keeps nothing useful.
 */
import {
  extractWWWAuthenticateParams,
  SdkHttpError,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type Client,
  type FetchLike,
  type OAuthClientProvider,
  type Transport,
} from '@modelcontextprotocol/client';
import { CANCELLED, untilAborted } from '../util/abort.js';
import { SignInRequiredError } from './auth/errors.js';
import type { RemoteServerDefinition } from './definition.js';
import { describeError } from './describe.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from './message-size.js';
import { sizeLimitedFetch } from './size-limited-fetch.js';
import { carryTraceContext, type TraceContextSource } from './trace-meta.js';

/** How long closing a Streamable HTTP session may wait for the server to acknowledge it. */
const TERMINATE_SESSION_MS = 1_000;

/** A connected remote session. */
export interface RemoteConnection {
  readonly client: Client;
  readonly transport: Transport;
  /** The transport that worked. */
  readonly kind: 'http' | 'sse';
}

/** What {@link connectRemote} needs. */
export interface RemoteConnectOptions {
  /** The configured name, for error messages. */
  readonly serverName: string;
  readonly definition: RemoteServerDefinition;
  /** Makes a fresh client with its handlers installed. */
  readonly makeClient: () => Client;
  /** Bounds the whole attempt (both transports), whatever the server does. */
  readonly signal: AbortSignal;
  /** The per-request timeout for the handshake. */
  readonly timeoutMs: number;
  readonly fetch?: FetchLike;
  /** OAuth for this server, passed to both transports (the SDK runs the flow on a 401). */
  readonly authProvider?: OAuthClientProvider;
  readonly onDebug: (message: string) => void;
  /** The largest answer accepted, in bytes (default {@link DEFAULT_MAX_MESSAGE_BYTES}). */
  readonly maxMessageBytes?: number;
  /** The trace context every request carries in `params._meta` (trace-meta.ts). */
  readonly traceContext?: TraceContextSource;
}

/** The sign-in error in an error's cause chain: a server that wants sign-in is not an old SSE server. */
export function signInRequiredIn(error: unknown): SignInRequiredError | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 8; depth++) {
    if (current instanceof SignInRequiredError) return current;
    current = current.cause;
  }
  return undefined;
}

/**
 * Connects to a remote server. `http` tries Streamable HTTP, then SSE when the POST was refused
 * as by a server that does not speak Streamable HTTP; `sse` goes straight to SSE.
 */
export async function connectRemote(options: RemoteConnectOptions): Promise<RemoteConnection> {
  const { definition } = options;
  if (definition.transport === 'sse') return attempt(options, 'sse');
  try {
    return await attempt(options, 'http');
  } catch (streamableError) {
    if (options.signal.aborted || !isOldTransportAnswer(streamableError)) throw streamableError;
    options.onDebug(
      `Streamable HTTP refused (${describeError(streamableError)}); trying the old SSE transport`,
    );
    try {
      return await attempt(options, 'sse');
    } catch (sseError) {
      if (sseError instanceof SignInRequiredError) throw sseError;
      throw new Error(
        `Streamable HTTP: ${describeError(streamableError)}; SSE fallback: ${describeError(sseError)}`,
        { cause: streamableError },
      );
    }
  }
}

/** Ends a remote session politely (Streamable HTTP `DELETE`), never waiting long. */
export async function terminateRemote(transport: Transport): Promise<void> {
  if (!(transport instanceof StreamableHTTPClientTransport) || transport.sessionId === undefined) return;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, TERMINATE_SESSION_MS);
    timer.unref();
  });
  // Best effort: a server that is gone cannot acknowledge, and that is fine.
  await Promise.race([transport.terminateSession().catch(() => undefined), timeout]);
  clearTimeout(timer);
}

/** The HTTP status an SDK transport error carries, if any. */
export function httpStatusOf(error: unknown): number | undefined {
  if (error instanceof UnauthorizedError) return 401;
  if (error instanceof SdkHttpError) return error.status;
  return undefined;
}

/** A 4xx other than authorization, timeout or rate limit: what a pre-2025-03-26 server answers a POST with. */
function isOldTransportAnswer(error: unknown): boolean {
  const status = httpStatusOf(error);
  return status !== undefined && status >= 400 && status < 500 && ![401, 403, 408, 429].includes(status);
}

async function attempt(options: RemoteConnectOptions, kind: 'http' | 'sse'): Promise<RemoteConnection> {
  const url = new URL(options.definition.url);
  // The scope the server's last 401/403 challenge named (WWW-Authenticate): a sign-in that follows
  // must ask for it, as the SDK's own flow would (MCP authorization, scope selection strategy).
  let challengedScope: string | undefined;
  const baseFetch = sizeLimitedFetch(
    options.fetch ?? fetch,
    options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    options.onDebug,
  );
  const transportOptions = {
    requestInit: { headers: { ...options.definition.headers } },
    ...(options.authProvider
      ? {
          authProvider: options.authProvider,
          fetch: (async (input, init) => {
            const response = await baseFetch(input, init);
            if (response.status === 401 || response.status === 403)
              challengedScope = extractWWWAuthenticateParams(response).scope ?? challengedScope;
            return response;
          }) satisfies FetchLike,
        }
      : { fetch: baseFetch }),
  };
  const transport: Transport =
    kind === 'http'
      ? new StreamableHTTPClientTransport(url, transportOptions)
      : // SSE is deprecated in favour of Streamable HTTP (tried first); it is the fallback for old servers.
        // eslint-disable-next-line @typescript-eslint/no-deprecated
        new SSEClientTransport(url, transportOptions);
  if (options.traceContext !== undefined) carryTraceContext(transport, options.traceContext);
  const client = options.makeClient();
  const closeAll = async (): Promise<void> => {
    await client.close().catch(() => undefined);
    await transport.close().catch(() => undefined);
  };
  try {
    // The SSE transport's start waits for an `endpoint` event that a broken server never sends,
    // whatever signal it is given: the deadline is enforced here, and the transport closed.
    const connected = await untilAborted(
      client.connect(transport, { signal: options.signal, timeout: options.timeoutMs }),
      options.signal,
    );
    if (connected === CANCELLED) throw abortReason(options.signal);
  } catch (error) {
    await closeAll();
    // The provider's own "needs sign-in" (no tokens, refresh refused) may come wrapped by the SDK.
    const signInRequired = signInRequiredIn(error);
    if (signInRequired !== undefined) {
      throw challengedScope === undefined || signInRequired.scope !== undefined
        ? signInRequired
        : new SignInRequiredError(options.serverName, {
            ...(signInRequired.status === undefined ? {} : { status: signInRequired.status }),
            scope: challengedScope,
            cause: error,
          });
    }
    const status = httpStatusOf(error);
    if (status === 401 || status === 403)
      throw new SignInRequiredError(options.serverName, {
        status,
        scope: challengedScope,
        cause: error,
      });
    throw error;
  }
  return { client, transport, kind };
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('the start was abandoned');
}
