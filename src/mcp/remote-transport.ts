/**
 * Remote servers: Streamable HTTP, falling back to the older HTTP+SSE transport.
 *
 * The fallback follows the MCP spec's backwards-compatibility advice: a server that does not speak
 * Streamable HTTP refuses the first POST, and the client then tries the SSE endpoint at the same
 * URL. Each attempt needs a fresh `Client`, because a client that failed to connect keeps nothing
 * useful.
 */
import {
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type Client,
  type FetchLike,
  type OAuthClientProvider,
  type Transport,
} from '@modelcontextprotocol/client';
import { SignInRequiredError } from './auth/errors.js';
import type { RemoteServerDefinition } from './definition.js';
import { describeError } from './describe.js';

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
  readonly definition: RemoteServerDefinition;
  /** Makes a fresh client with its handlers installed. */
  readonly makeClient: () => Client;
  /** Bounds the whole attempt (both transports). */
  readonly signal: AbortSignal;
  /** The per-request timeout for `initialize`. */
  readonly timeoutMs: number;
  readonly fetch?: FetchLike;
  /** Signs requests in (OAuth); absent, only the static headers are sent. */
  readonly authProvider?: OAuthClientProvider;
  readonly onDebug: (message: string) => void;
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
 * Connects to a remote server. `http` tries Streamable HTTP, then SSE unless the deadline passed;
 * `sse` goes straight to SSE. Throws with both reasons when neither works.
 */
export async function connectRemote(options: RemoteConnectOptions): Promise<RemoteConnection> {
  const { definition } = options;
  if (definition.transport === 'sse') return attempt(options, 'sse');
  try {
    return await attempt(options, 'http');
  } catch (streamableError) {
    if (options.signal.aborted) throw streamableError;
    const signInRequired = signInRequiredIn(streamableError);
    if (signInRequired !== undefined) throw signInRequired;
    options.onDebug(`Streamable HTTP failed (${describeError(streamableError)}); trying SSE`);
    try {
      return await attempt(options, 'sse');
    } catch (sseError) {
      throw new Error(
        `Streamable HTTP: ${describeError(streamableError)}; SSE fallback: ${describeError(sseError)}`,
        {
          cause: streamableError,
        },
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

async function attempt(options: RemoteConnectOptions, kind: 'http' | 'sse'): Promise<RemoteConnection> {
  const url = new URL(options.definition.url);
  const requestInit: RequestInit = { headers: { ...options.definition.headers } };
  const shared = {
    requestInit,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.authProvider ? { authProvider: options.authProvider } : {}),
  };
  const transport: Transport =
    kind === 'http'
      ? new StreamableHTTPClientTransport(url, shared)
      : // SSE is deprecated in favour of Streamable HTTP (tried first); it is the fallback for old servers.
        // eslint-disable-next-line @typescript-eslint/no-deprecated
        new SSEClientTransport(url, shared);
  const client = options.makeClient();
  try {
    await client.connect(transport, { signal: options.signal, timeout: options.timeoutMs });
  } catch (error) {
    await client.close().catch(() => undefined);
    throw error;
  }
  return { client, transport, kind };
}
