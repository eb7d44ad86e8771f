/** What the pool tells its user about servers: states, status snapshots and log entries. */
import { ServerError } from '../core/errors.js';

/**
 * Where a server is in its life. `starting`: first start or a restart in progress; `ready`: usable;
 * `down`: exited by itself, restarted on next use; `failed`: could not start, or given up;
 * `closed`: the pool was closed.
 */
export type ServerState = 'starting' | 'ready' | 'down' | 'failed' | 'closed';

/** What `/servers` shows about one server. */
export interface ServerStatus {
  /** The server's configured name. */
  readonly name: string;
  /** `stdio`, the remote transport in use (`http` may have fallen back to `sse`), or `builtin`. */
  readonly transport: 'stdio' | 'http' | 'sse' | 'builtin';
  readonly state: ServerState;
  /** Tools offered to the model (after `allowedTools`/`excludedTools`). */
  readonly toolCount: number;
  /** Why it last failed, if it ever did. */
  readonly lastError?: string;
  /** Its last stderr lines (stdio servers), oldest first. */
  readonly stderrTail: readonly string[];
  /** The server process id while it runs (stdio servers). */
  readonly pid?: number;
  /** The MCP revision agreed with it (`2026-07-28`, `2025-11-25`, …), once it has started. */
  readonly protocolVersion?: string;
  /** The session id a Streamable HTTP server gave (`Mcp-Session-Id`), while connected with one. */
  readonly sessionId?: string;
  /** How many times it was restarted after a crash. */
  readonly restarts: number;
  /** The server's own name and version (`serverInfo` of its initialize answer), once connected. */
  readonly implementation?: { readonly name: string; readonly version: string };
}

/** One diagnostic from the pool. `warn` is for the user; `debug` for `--debug`. */
export interface PoolLogEntry {
  /** The configured name of the server it is about. */
  readonly server: string;
  /** `warn`: the user should see it (a server failed); `debug`: stderr lines, protocol noise. */
  readonly level: 'debug' | 'warn';
  /** One line, or a few (a failure with the server's last stderr lines). Unsanitized server text. */
  readonly message: string;
}

/** Receives the pool's diagnostics. */
export type PoolLog = (entry: PoolLogEntry) => void;

/**
 * The error of a start where servers were configured and none is ready (a session's servers with
 * `requireServers`, a job's own servers); undefined when one is ready or none was configured.
 */
export function noServerStarted(statuses: readonly ServerStatus[]): ServerError | undefined {
  if (statuses.length === 0 || statuses.some((status) => status.state === 'ready')) return undefined;
  return new ServerError('*', `none of the ${statuses.length} configured servers started`);
}
