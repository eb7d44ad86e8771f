/**
 * What a connection tells its user, kept out of server-connection.ts: the `/servers` snapshot and
 * the warning that quotes the server's stderr.
 */
import { publicState, type ConnectionState } from './connection-state.js';
import type { ServerStatus } from './status.js';
import { STDERR_GAP_PREFIX } from './stdio-transport.js';
import { definedProperties } from '../util/defined-properties.js';

/** What a connection remembers across its sessions, for its status. */
export interface ConnectionHistory {
  readonly name: string;
  readonly transport: ServerStatus['transport'];
  readonly state: ConnectionState;
  readonly toolCount: number;
  readonly lastError: string | undefined;
  /** The stderr lines of the last session, shown while no process runs. */
  readonly lastStderrTail: readonly string[];
  readonly protocolVersion: string | undefined;
  readonly restarts: number;
}

/** A snapshot for `/servers`. */
export function connectionStatus(history: ConnectionHistory): ServerStatus {
  const { state } = history;
  const session = state.kind === 'ready' ? state.session : undefined;
  const serverProcess = session?.process;
  const running = serverProcess !== undefined && serverProcess.exit === undefined;
  const implementation = session?.client.getServerVersion();
  return {
    name: history.name,
    transport: history.transport,
    state: publicState(state),
    toolCount: history.toolCount,
    ...definedProperties({ lastError: history.lastError }),
    stderrTail: serverProcess?.stderrTail() ?? history.lastStderrTail,
    ...(running && serverProcess.pid !== undefined ? { pid: serverProcess.pid } : {}),
    ...definedProperties({
      protocolVersion: history.protocolVersion,
      sessionId: session?.transport.sessionId,
    }),
    restarts: history.restarts,
    ...(implementation === undefined
      ? {}
      : { implementation: { name: implementation.name, version: implementation.version } }),
  };
}

/** `message`, with the server's stderr lines that say why (`stderr`, when there are any). */
export function withStderrLines(message: string, stderr: readonly string[]): string {
  const which = stderr.some((line) => line.startsWith(STDERR_GAP_PREFIX))
    ? 'first and last stderr lines'
    : 'last stderr lines';
  const quoted =
    stderr.length === 0 ? '' : `\n  ${which}:\n${stderr.map((line) => `    ${line}`).join('\n')}`;
  return `${message}${quoted}`;
}
