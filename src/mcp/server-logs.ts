/**
 * Servers' log messages (`notifications/message`). Logging is deprecated by the 2026-07-28
 * revision (SEP-2577) but 2025-era servers still send it, so our own types describe it instead of
 * the SDK's deprecated ones, and a bounded book keeps the latest for `/logs`.
 */

/** The syslog levels of the MCP spec, least severe first. */
export const SERVER_LOG_LEVELS = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
] as const;
export type ServerLogLevel = (typeof SERVER_LOG_LEVELS)[number];

/** One log message of a server. */
export interface ServerLogMessage {
  readonly level: ServerLogLevel;
  /** The server's name for the part that logged, if it gave one. */
  readonly logger?: string;
  /** Any JSON value the server sent. */
  readonly data: unknown;
}

/** A log message as kept, with its server and arrival time. */
export interface ServerLogRecord extends ServerLogMessage {
  readonly server: string;
  /** Milliseconds since the epoch. */
  readonly at: number;
}

/** How many log messages {@link ServerLogBook} keeps, all servers together. */
export const DEFAULT_SERVER_LOG_CAPACITY = 500;

/** The message's data on one line. */
export function describeLogData(data: unknown): string {
  if (typeof data === 'string') return data;
  try {
    // JSON.stringify gives undefined (despite its type) for undefined and functions.
    const json = JSON.stringify(data) as string | undefined;
    return json ?? String(data);
  } catch {
    return String(data);
  }
}

/** The latest log messages of every server, oldest dropped first. */
export class ServerLogBook {
  readonly #records: ServerLogRecord[] = [];
  readonly #capacity: number;

  constructor(capacity = DEFAULT_SERVER_LOG_CAPACITY) {
    this.#capacity = capacity;
  }

  add(record: ServerLogRecord): void {
    this.#records.push(record);
    if (this.#records.length > this.#capacity) this.#records.splice(0, this.#records.length - this.#capacity);
  }

  /** The kept messages of `server`, or of all servers, oldest first. */
  list(server?: string): readonly ServerLogRecord[] {
    return server === undefined
      ? [...this.#records]
      : this.#records.filter((record) => record.server === server);
  }
}
