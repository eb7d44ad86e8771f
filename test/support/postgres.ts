/**
 * A real PostgreSQL for the worker tests. `.ci/run` starts one (test/support/postgres.sh) and sets
 * MCPHOST_TEST_DATABASE_URL; a local run without it starts its own for the test file. In CI the
 * variable must be there: the tests fail rather than skip. Each test gets a database of its own.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { REPOSITORY } from './cli.js';

const run = promisify(execFile);
const SCRIPT = join(REPOSITORY, 'test/support/postgres.sh');

export interface TestPostgres {
  /** A new, empty database's URL (DBOS creates its tables there). */
  freshDatabase(): Promise<string>;
  /** The server's (postmaster's) pid when known, for measuring its CPU (the workers bench). */
  readonly serverPid: number | undefined;
  /** Drops the databases made and stops the server if this file started it. */
  close(): Promise<void>;
}

export async function startTestPostgres(): Promise<TestPostgres> {
  let serverUrl = process.env.MCPHOST_TEST_DATABASE_URL;
  let ownDirectory: string | undefined;
  let serverPid = process.env.MCPHOST_TEST_POSTGRES_PID;
  if (serverUrl === undefined || serverUrl === '') {
    if (process.env.CI === 'true') {
      throw new Error(
        'MCPHOST_TEST_DATABASE_URL is not set: .ci/run starts PostgreSQL with test/support/postgres.sh',
      );
    }
    const { stdout } = await run(SCRIPT, ['start']);
    const exported = Object.fromEntries(
      [...stdout.matchAll(/^export (\w+)=(.*)$/gm)].map((match) => [match[1] ?? '', match[2] ?? '']),
    );
    serverUrl = exported.MCPHOST_TEST_DATABASE_URL;
    ownDirectory = exported.MCPHOST_TEST_POSTGRES_DIR;
    serverPid = exported.MCPHOST_TEST_POSTGRES_PID;
    if (serverUrl === undefined) throw new Error(`postgres.sh printed no URL: ${stdout}`);
  }
  const base = serverUrl;
  const made: string[] = [];
  const admin = async (sql: string): Promise<void> => {
    const client = new pg.Client({ connectionString: base });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  return {
    serverPid: serverPid === undefined || serverPid === '' ? undefined : Number(serverPid),
    async freshDatabase() {
      const name = `mcphost_test_${randomBytes(6).toString('hex')}`;
      await admin(`CREATE DATABASE ${name}`);
      made.push(name);
      const url = new URL(base);
      url.pathname = `/${name}`;
      return url.toString();
    },
    async close() {
      for (const name of made)
        await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
      if (ownDirectory !== undefined) await run(SCRIPT, ['stop', ownDirectory]);
    },
  };
}
