/**
 * The jobs database: where its URL comes from, and one clear error when it cannot be reached.
 * DBOS would otherwise retry the connection for a long time and then fail with a driver message,
 * so every command checks once, with a short timeout, before it hands the URL to DBOS.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { DatabaseUnreachableError } from './database-error.js';

export { DatabaseUnreachableError } from './database-error.js';

/** The environment variable `--db` falls back to. */
export const DATABASE_URL_VARIABLE = 'MCPHOST_DATABASE_URL';

/** How long the first connection may take before the database counts as unreachable. */
const CONNECT_TIMEOUT_MS = 5_000;

/** `host:port` of a postgres URL, for messages (never the password). */
export function databaseAddress(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname || 'localhost'}:${parsed.port || '5432'}`;
  } catch {
    return 'an unreadable URL';
  }
}

/** Throws a {@link DatabaseUnreachableError} unless a connection to `url` opens and answers. */
export async function checkDatabase(url: string): Promise<void> {
  const address = databaseAddress(url);
  if (!/^postgres(ql)?:\/\//.test(url)) {
    throw new DatabaseUnreachableError(address, 'the URL must start with postgres:// or postgresql://');
  }
  const client = serverClient(url);
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (error) {
    throw new DatabaseUnreachableError(address, describeConnectFailure(error));
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * What tells this jobs database from any other, for telemetry (src/telemetry/job-trace.ts): the
 * PostgreSQL cluster's system identifier (set once by initdb) and the database's name. Read from
 * the server's `postgres` database (the jobs database may not exist yet). When the identifier
 * cannot be read (a role without the right to), the host and port as the URL names them.
 */
export async function databaseIdentity(url: string): Promise<string> {
  const given = new URL(url);
  const name = decodeURIComponent(given.pathname.replace(/^\//, ''));
  const client = serverClient(url);
  try {
    await client.connect();
    const result = await client.query<{ cluster: string }>(
      'SELECT system_identifier::text AS cluster FROM pg_control_system()',
    );
    return `${result.rows[0]?.cluster ?? ''}/${name}`;
  } catch {
    return `${given.host}/${name}`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * A client of the server's own `postgres` database, not connected yet: the jobs database may not
 * exist yet (DBOS creates it), and `postgres` answers for the server.
 */
function serverClient(url: string): pg.Client {
  const serverUrl = new URL(url);
  serverUrl.pathname = '/postgres';
  const client = new pg.Client({
    connectionString: serverUrl.toString(),
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  // A connection that dies later must not crash the process with an unhandled 'error' event.
  client.on('error', () => undefined);
  return client;
}

function describeConnectFailure(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'ECONNREFUSED') return 'connection refused (is PostgreSQL running there?)';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'the host name does not resolve';
  if (/timeout/i.test(message)) return `no answer within ${CONNECT_TIMEOUT_MS / 1000} s`;
  return message.split('\n')[0] ?? message;
}

/** An advisory lock key of our own: "mcphost" in ASCII. */
const MIGRATION_LOCK = 0x6d6370686f7374;

/**
 * Creates or updates DBOS's tables, one process at a time: workers and `jobs submit` started
 * together on a fresh database would otherwise create the same tables at once and fail
 * (`duplicate key value violates unique constraint "pg_type_typname_nsp_index"`). The lock is
 * taken in the server's `postgres` database, which exists before the jobs database does.
 */
export async function migrateDatabase(url: string): Promise<void> {
  const serverUrl = new URL(url);
  serverUrl.pathname = '/postgres';
  const lock = new pg.Client({
    connectionString: serverUrl.toString(),
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  lock.on('error', () => undefined);
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await withConsoleLogSilenced(() => DBOS.migrate(url));
  } finally {
    await lock.end().catch(() => undefined);
  }
}

/**
 * Runs `work` with `console.log` silenced. DBOS.migrate announces a migration ("Running DBOS system
 * database migrations...") at info level through a logger of its own that writes with console.log,
 * and takes no logger: on stdout the line would land in what a user pipes (`mcphost jobs results
 * > results.jsonl` as the first command on a new database), and the jobs commands show DBOS's
 * info lines only with `--debug` anyway. Its warnings and errors (console.warn, console.error)
 * still show.
 */
async function withConsoleLogSilenced<T>(work: () => Promise<T>): Promise<T> {
  /* eslint-disable no-console -- DBOS's printing, silenced; we print nothing here */
  const log = console.log;
  console.log = () => undefined;
  try {
    return await work();
  } finally {
    console.log = log;
  }
  /* eslint-enable no-console */
}
