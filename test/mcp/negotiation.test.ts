/**
 * Both protocol generations against real servers: the v2 server SDK (2026-07-28) over stdio and
 * HTTP, server-everything (2025) over stdio; a legacy server that dies of the `server/discover`
 * probe; and remote starts that must end within `initTimeout` whatever the server does.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { RemoteServerDefinition } from '../../src/mcp/definition.js';
import {
  closePoolsAfterEach,
  firstText,
  fixture,
  logCollector,
  npmServer,
  startPool,
  testEnvironment,
  toolCall,
} from './support.js';

closePoolsAfterEach();

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** Serves `handle` on a loopback port; returns the base URL. */
async function serveHttp(
  handle: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<string> {
  const server = createServer(handle);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return `http://127.0.0.1:${address.port}`;
}

function remote(url: string, extra: Partial<RemoteServerDefinition> = {}): RemoteServerDefinition {
  return { transport: 'http', url, headers: {}, ...extra };
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** A v2-SDK MCP server (2026-07-28, with 2025 stateless fallback) behind a real HTTP listener. */
async function serveModernSdk(): Promise<string> {
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: 'modern-http', version: '1.0.0' });
    server.registerTool(
      'echo',
      { description: 'Echoes', inputSchema: z.object({ message: z.string() }) },
      ({ message }) => ({ content: [{ type: 'text', text: `echo: ${message}` }] }),
    );
    return server;
  });
  return serveHttp((request, response) => {
    void (async () => {
      const body = request.method === 'POST' ? await bodyOf(request) : undefined;
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) {
        if (typeof value === 'string') headers.set(name, value);
      }
      const answer = await handler.fetch(
        new Request(`http://127.0.0.1${request.url ?? '/'}`, {
          method: request.method ?? 'GET',
          headers,
          ...(body === undefined ? {} : { body }),
        }),
      );
      const responseHeaders: Record<string, string> = {};
      answer.headers.forEach((value, name) => {
        responseHeaders[name] = value;
      });
      response.writeHead(answer.status, responseHeaders);
      // Streamed: a `subscriptions/listen` answer stays open for as long as the client listens.
      const reader = answer.body?.getReader();
      for (let part = await reader?.read(); part !== undefined && !part.done; part = await reader?.read()) {
        response.write(part.value);
      }
      response.end();
    })();
  });
}

describe('protocol generations', () => {
  it('speaks 2026-07-28 with a v2-SDK server over stdio (serveStdio)', async () => {
    const pool = await startPool({
      servers: { modern: fixture('modern-server.mjs') },
      env: testEnvironment(),
    });
    expect(pool.status()[0]).toMatchObject({ state: 'ready', protocolVersion: '2026-07-28' });
    expect(firstText(await pool.call(toolCall('modern__echo', { message: 'modern' })))).toBe('echo: modern');
  });

  it('falls back to initialize with a hand-wired v2-SDK stdio server, which serves 2025 only', async () => {
    const pool = await startPool({ servers: { good: fixture('good-server.mjs') }, env: testEnvironment() });
    expect(pool.status()[0]).toMatchObject({ state: 'ready', protocolVersion: '2025-11-25' });
    expect(firstText(await pool.call(toolCall('good__echo', { message: 'legacy' })))).toBe('echo: legacy');
  });

  it('speaks 2026-07-28 with a v2-SDK server over HTTP', async () => {
    const url = await serveModernSdk();
    const pool = await startPool({ servers: { web: remote(`${url}/mcp`) }, env: testEnvironment() });
    expect(pool.status()[0]).toMatchObject({
      state: 'ready',
      transport: 'http',
      protocolVersion: '2026-07-28',
    });
    expect(firstText(await pool.call(toolCall('web__echo', { message: 'over http' })))).toBe(
      'echo: over http',
    );
  });

  it('falls back to initialize with a 2025 server over stdio (server-everything)', async () => {
    const pool = await startPool({
      servers: { everything: npmServer('@modelcontextprotocol/server-everything', ['stdio']) },
      env: testEnvironment(),
    });
    const status = pool.status()[0];
    expect(status?.state).toBe('ready');
    expect(status?.protocolVersion).toMatch(/^2025-/);
    expect(firstText(await pool.call(toolCall('everything__echo', { message: 'legacy' })))).toBe(
      'Echo: legacy',
    );
  });

  it('starts a legacy server that exits on the probe once more, with initialize', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'mcphost-probe-'));
    try {
      const startLog = join(directory, 'starts');
      const collector = logCollector();
      const pool = await startPool({
        servers: { picky: fixture('exits-on-probe.mjs', { env: { START_LOG: startLog } }) },
        env: testEnvironment(),
        log: collector.log,
      });
      expect(pool.status()[0]).toMatchObject({ state: 'ready' });
      expect(firstText(await pool.call(toolCall('picky__hello')))).toBe('hi');
      expect((await readFile(startLog, 'utf8')).trim().split('\n')).toHaveLength(2);
      expect(collector.entries.some((entry) => entry.message.includes('probe ended the server'))).toBe(true);
      expect(collector.warnings()).toEqual([]);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});

describe('side effects of the stdio probe', () => {
  it('starts a server that fails on its own once, and reports why', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'mcphost-probe-'));
    try {
      const startLog = join(directory, 'starts');
      const collector = logCollector();
      const pool = await startPool({
        servers: { broken: fixture('fail-on-start.mjs', { env: { START_LOG: startLog } }) },
        env: testEnvironment(),
        log: collector.log,
      });
      expect(pool.status()[0]).toMatchObject({ state: 'failed' });
      expect((await readFile(startLog, 'utf8')).trim().split('\n')).toHaveLength(1);
      expect(collector.warnings()[0]).toMatch(
        /^server "broken" failed to start: exited with code 3 before answering "initialize"/,
      );
      expect(collector.warnings()[0]).toContain('Error: DATABASE_URL is not set');
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it('finds a legacy server that ignores the probe by a ping, not by waiting out the probe', async () => {
    const collector = logCollector();
    // A probe wait of 10 s: only the ping can end it early, and the debug line says it did.
    const pool = await startPool({
      servers: { quiet: fixture('ignores-unknown.mjs') },
      env: testEnvironment(),
      log: collector.log,
      initTimeoutMs: 30_000,
    });
    expect(pool.status()[0]).toMatchObject({ state: 'ready', protocolVersion: '2025-11-25' });
    expect(collector.entries.map((entry) => entry.message)).toContain(
      'the server answered ping but not server/discover: a legacy server',
    );
    expect(firstText(await pool.call(toolCall('quiet__hello')))).toBe('hi');
  });

  it('restarts a server found legacy without the probe', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'mcphost-probe-'));
    try {
      const startLog = join(directory, 'starts');
      const collector = logCollector();
      const pool = await startPool({
        servers: { picky: fixture('exits-on-probe.mjs', { env: { START_LOG: startLog } }) },
        env: testEnvironment(),
        log: collector.log,
      });
      expect((await readFile(startLog, 'utf8')).trim().split('\n')).toHaveLength(2);
      const pid = pool.status()[0]?.pid;
      expect(pid).toBeTypeOf('number');
      process.kill(pid ?? 0, 'SIGKILL');
      await expect.poll(() => pool.status()[0]?.state).toBe('down');
      expect(firstText(await pool.call(toolCall('picky__hello')))).toBe('hi');
      // One more start, not two: the restart went straight to `initialize`.
      expect((await readFile(startLog, 'utf8')).trim().split('\n')).toHaveLength(3);
      expect(pool.status()[0]).toMatchObject({ state: 'ready', restarts: 1 });
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});

describe('remote starts are bounded and fall back only as the spec says', () => {
  it('ends the start of a server that answers initialize with 2026-07-28 and streams nothing (the hang)', async () => {
    let gets = 0;
    const url = await serveHttp((request, response) => {
      if (request.method === 'GET') {
        gets += 1;
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write(': connected, but no endpoint event will ever come\n\n');
        return;
      }
      void bodyOf(request).then((text) => {
        const message = JSON.parse(text) as { id?: number; method: string };
        if (message.id === undefined) {
          response.writeHead(202).end();
          return;
        }
        const result =
          message.method === 'initialize'
            ? {
                protocolVersion: '2026-07-28',
                capabilities: { tools: {} },
                serverInfo: { name: 'odd', version: '1' },
              }
            : undefined;
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify(
            result === undefined
              ? { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } }
              : { jsonrpc: '2.0', id: message.id, result },
          ),
        );
      });
    });
    const collector = logCollector();
    const started = performance.now();
    const pool = await startPool({
      servers: { odd: remote(`${url}/mcp`) },
      env: testEnvironment(),
      log: collector.log,
      initTimeoutMs: 3_000,
    });
    expect(performance.now() - started).toBeLessThan(3_000 + 1_000);
    expect(pool.status()[0]).toMatchObject({ state: 'failed' });
    expect(collector.warnings()).toHaveLength(1);
    expect(collector.warnings()[0]).toMatch(/^server "odd" failed to start: .*protocol version/i);
    expect(collector.warnings()[0]).not.toContain('\n');
    // A protocol-version error is no reason to try the old SSE transport.
    expect(gets).toBe(0);
  });

  it('bounds the SSE fallback by initTimeout when the old endpoint never names its POST URL', async () => {
    const url = await serveHttp((request, response) => {
      if (request.method === 'GET') {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write(': no endpoint event\n\n');
        return;
      }
      response.writeHead(405).end('Method Not Allowed');
    });
    const collector = logCollector();
    const started = performance.now();
    const pool = await startPool({
      servers: { old: remote(`${url}/sse`) },
      env: testEnvironment(),
      log: collector.log,
      initTimeoutMs: 1_500,
    });
    expect(performance.now() - started).toBeLessThan(1_500 + 1_000);
    expect(pool.status()[0]).toMatchObject({ state: 'failed' });
    expect(collector.warnings()[0]).toMatch(/^server "old" failed to start: /);
    expect(collector.entries.some((entry) => entry.message.startsWith('Streamable HTTP refused ('))).toBe(
      true,
    );
  });

  it.each([401, 403])('says a server answering %i needs sign-in, and never tries SSE', async (status) => {
    let gets = 0;
    const url = await serveHttp((request, response) => {
      if (request.method === 'GET') gets += 1;
      response.writeHead(status, { 'content-type': 'text/plain' }).end('no');
    });
    const collector = logCollector();
    const pool = await startPool({
      servers: { locked: remote(`${url}/mcp`) },
      env: testEnvironment(),
      log: collector.log,
    });
    expect(pool.status()[0]).toMatchObject({ state: 'failed' });
    expect(collector.warnings()).toEqual(['server locked needs sign-in: run `mcphost auth login locked`']);
    expect(gets).toBe(0);
  });
});

describe('client seams', () => {
  it('lets configureClient set up every client it makes, and hands out the live client', async () => {
    const configured: string[] = [];
    const pool = await startPool({
      servers: { good: fixture('good-server.mjs') },
      env: testEnvironment(),
      configureClient: (client, serverName) => {
        configured.push(serverName);
        client.registerCapabilities({ roots: { listChanged: true } });
      },
    });
    expect(configured).toEqual(['good']);
    const client = await pool.client('good');
    expect(client.getServerVersion()?.name).toBe('good-fixture');
    await expect(pool.client('nobody')).rejects.toThrow('no MCP server is named "nobody"');
  });
});
