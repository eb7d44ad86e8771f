/**
 * Remote servers: server-everything in its Streamable HTTP and SSE modes on loopback, reached
 * with the real SDK transports.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RemoteServerDefinition } from '../../src/mcp/definition.js';
import { unusedPort } from '../support/loopback.js';
import {
  closePoolsAfterEach,
  firstText,
  logCollector,
  packageEntry,
  startPool,
  testEnvironment,
  toolCall,
} from './support.js';

interface RunningServer {
  readonly url: string;
  readonly port: number;
  readonly child: ChildProcess;
}

/** Starts server-everything in `mode` on a free loopback port; resolves once it listens. */
/** The remote servers this file runs itself: they are meant to outlive each pool. */
const remoteServerPids = new Set<number>();

async function startEverything(mode: 'streamableHttp' | 'sse', knownPort?: number): Promise<RunningServer> {
  const port = knownPort ?? (await unusedPort());
  const child = spawn(process.execPath, [packageEntry('@modelcontextprotocol/server-everything'), mode], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  if (child.pid !== undefined) remoteServerPids.add(child.pid);
  child.stderr.setEncoding('utf8');
  await new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
      if (stderr.includes(String(port))) resolve();
    });
    child.once('exit', (code) => {
      reject(new Error(`server-everything ${mode} exited (${code}): ${stderr}`));
    });
  });
  return { url: `http://127.0.0.1:${port}`, port, child };
}

async function stop(server: RunningServer | undefined): Promise<void> {
  if (server === undefined || server.child.exitCode !== null) return;
  const exited = once(server.child, 'exit');
  server.child.kill('SIGKILL');
  await exited;
}

function remote(url: string, extra: Partial<RemoteServerDefinition> = {}): RemoteServerDefinition {
  return { transport: 'http', url, headers: {}, ...extra };
}

/** A fetch that records the headers of every request before sending it. */
function recordingFetch(): { fetch: typeof fetch; headers: Headers[] } {
  const headers: Headers[] = [];
  return {
    headers,
    fetch: (input, init) => {
      headers.push(new Headers(init?.headers));
      return fetch(input, init);
    },
  };
}

closePoolsAfterEach(() => [...remoteServerPids]);

describe('Streamable HTTP', () => {
  let server: RunningServer | undefined;

  beforeAll(async () => {
    server = await startEverything('streamableHttp');
  });

  afterAll(async () => {
    await stop(server);
  });

  it('lists and calls tools, sending the configured headers', async () => {
    const recorder = recordingFetch();
    const collector = logCollector();
    const pool = await startPool({
      servers: {
        web: remote(`${server!.url}/mcp`, { headers: { Authorization: 'Bearer t0ken', 'X-Team': 'blue' } }),
      },
      env: testEnvironment(),
      fetch: recorder.fetch,
      log: collector.log,
    });
    expect(pool.status()[0]).toMatchObject({ name: 'web', transport: 'http', state: 'ready' });
    expect((await pool.tools()).map((tool) => tool.name)).toContain('web__echo');
    expect(firstText(await pool.call(toolCall('web__echo', { message: 'over http' })))).toBe(
      'Echo: over http',
    );
    expect(recorder.headers.length).toBeGreaterThan(1);
    for (const headers of recorder.headers) {
      expect(headers.get('authorization')).toBe('Bearer t0ken');
      expect(headers.get('x-team')).toBe('blue');
    }
    expect(collector.warnings()).toEqual([]);
  });

  it('answers a tool failure over HTTP as an error result', async () => {
    const pool = await startPool({ servers: { web: remote(`${server!.url}/mcp`) }, env: testEnvironment() });
    const result = await pool.call(toolCall('web__echo', { nothing: true }));
    expect(result.isError).toBe(true);
  });
});

describe('SSE', () => {
  let server: RunningServer | undefined;

  beforeAll(async () => {
    server = await startEverything('sse');
  });

  afterAll(async () => {
    await stop(server);
  });

  it('falls back to SSE when the server does not speak Streamable HTTP', async () => {
    const collector = logCollector();
    const pool = await startPool({
      servers: { old: remote(`${server!.url}/sse`) },
      env: testEnvironment(),
      log: collector.log,
    });
    expect(pool.status()[0]).toMatchObject({ transport: 'sse', state: 'ready' });
    expect(firstText(await pool.call(toolCall('old__echo', { message: 'over sse' })))).toBe('Echo: over sse');
    expect(collector.entries.some((entry) => entry.message.startsWith('Streamable HTTP refused ('))).toBe(
      true,
    );
  });

  it('goes straight to SSE with transport "sse", sending the headers', async () => {
    const recorder = recordingFetch();
    const pool = await startPool({
      servers: { old: remote(`${server!.url}/sse`, { transport: 'sse', headers: { 'X-Team': 'red' } }) },
      env: testEnvironment(),
      fetch: recorder.fetch,
    });
    expect(pool.status()[0]).toMatchObject({ transport: 'sse', state: 'ready' });
    expect(firstText(await pool.call(toolCall('old__echo', { message: 'direct' })))).toBe('Echo: direct');
    expect(recorder.headers.map((headers) => headers.get('x-team'))).toEqual(
      recorder.headers.map(() => 'red'),
    );
  });
});

describe('remote failures', () => {
  it('reports a server nobody answers like a stdio one, without trying SSE, and goes on', async () => {
    const port = await unusedPort();
    const collector = logCollector();
    const pool = await startPool({
      servers: { gone: remote(`http://127.0.0.1:${port}/mcp`) },
      env: testEnvironment(),
      log: collector.log,
    });
    expect(pool.status()[0]).toMatchObject({ name: 'gone', state: 'failed', toolCount: 0 });
    expect(collector.warnings()).toHaveLength(1);
    // A refused connection is no sign of an old server: the spec falls back only on a 4xx answer.
    expect(collector.warnings()[0]).toMatch(/^server "gone" failed to start: .*ECONNREFUSED/);
    expect(collector.warnings()[0]).not.toMatch(/SSE/);
  });

  it('fails calls as data when the server goes away, and reconnects when it is back', async () => {
    let server = await startEverything('streamableHttp');
    try {
      const collector = logCollector();
      const pool = await startPool({
        servers: { web: remote(`${server.url}/mcp`) },
        env: testEnvironment(),
        log: collector.log,
      });
      expect(firstText(await pool.call(toolCall('web__echo', { message: 'one' })))).toBe('Echo: one');

      await stop(server);
      const failed = await pool.call(toolCall('web__echo', { message: 'two' }));
      expect(failed.isError).toBe(true);
      expect(firstText(failed)).toBe(
        `the call to "echo" on server "web" failed: fetch failed (connect ECONNREFUSED 127.0.0.1:${server.port}); ` +
          'it will be reconnected on the next call',
      );
      expect(pool.status()[0]?.state).toBe('down');
      expect(collector.warnings()).toEqual([
        'server "web" stopped unexpectedly (unreachable: fetch failed (connect ECONNREFUSED 127.0.0.1:' +
          `${server.port})); it will be reconnected when next used`,
      ]);

      server = await startEverything('streamableHttp', server.port);
      expect(firstText(await pool.call(toolCall('web__echo', { message: 'three' })))).toBe('Echo: three');
      expect(pool.status()[0]).toMatchObject({ state: 'ready', restarts: 1 });
    } finally {
      await stop(server);
    }
  });
});
