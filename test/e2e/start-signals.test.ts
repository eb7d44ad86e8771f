/**
 * Starting servers from the CLI: a signal ends mcphost at any moment of a start (exit 128 + n,
 * within a second or two, whatever the server does); the start of a server that hangs ends
 * within its initTimeout; and in `-p` mode stdout holds the answer alone, even when a library
 * prints to the console.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOllama, textReply, type FakeOllama } from '../fakes/ollama-server.js';
import { REPOSITORY, runCli, startCli, temporaryHome, type TemporaryHome } from '../support/cli.js';

const fixture = (name: string) => join(REPOSITORY, 'test/fixtures/servers', name);

let home: TemporaryHome;
let ollama: FakeOllama;
let http: Server | undefined;

beforeEach(async () => {
  home = await temporaryHome();
  ollama = await startFakeOllama([textReply('the answer')]);
});
afterEach(async () => {
  if (http !== undefined) {
    http.closeAllConnections();
    await new Promise((resolve) => http?.close(resolve));
    http = undefined;
  }
  await ollama.close();
  await home.remove();
});

/** Serves `handle` on a loopback port and calls `onRequest` for every request seen. */
async function serveHttp(
  handle: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<string> {
  http = createServer(handle);
  await new Promise<void>((resolve) => http?.listen(0, '127.0.0.1', resolve));
  const address = http.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return `http://127.0.0.1:${address.port}/mcp`;
}

/** Starts `mcphost -p`, waits for `started`, sends SIGTERM, and measures how long the exit took. */
async function terminateDuringStart(started: (stderr: string) => boolean) {
  const running = startCli(['-p', 'go', '--debug', '--provider-url', ollama.url], home.path, {
    timeoutMs: 60_000,
  });
  const deadline = Date.now() + 20_000;
  while (!started(running.stderr())) {
    if (Date.now() > deadline) throw new Error(`the start never began:\n${running.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const sent = performance.now();
  running.child.kill('SIGTERM');
  const run = await running.done;
  return { ...run, exitMs: performance.now() - sent };
}

describe('signals during a start', () => {
  it('SIGTERM while a remote server holds every request open ends mcphost with 143 at once', async () => {
    let requests = 0;
    // Reads the request and never answers: the start would wait its whole initTimeout.
    const url = await serveHttp(() => {
      requests += 1;
    });
    await home.writeConfig({ mcpServers: { silent: { url, initTimeout: 60_000 } } });
    const run = await terminateDuringStart(() => requests > 0);
    expect(run.code).toBe(143);
    expect(run.exitMs).toBeLessThan(2_000);
    expect(run.stderr).toContain('mcphost: stopped by SIGTERM');
    expect(run.stdout).toBe('');
  });

  it('SIGTERM while a stdio server never answers ends mcphost with 143 at once', async () => {
    await home.writeConfig({
      mcpServers: {
        stuck: { command: process.execPath, args: [fixture('never-initializes.mjs')], initTimeout: 60_000 },
      },
    });
    // The fixture's first stderr line, shown by --debug, says it is running and reading.
    const run = await terminateDuringStart((stderr) => stderr.includes('stuck waiting for something'));
    expect(run.code).toBe(143);
    expect(run.exitMs).toBeLessThan(2_000);
  });
});

describe('a server whose start hangs (issue 11)', () => {
  it('answers initialize with 2026-07-28 and streams nothing: one line naming it, and the run goes on', async () => {
    const url = await serveHttp((request, response) => {
      if (request.method === 'GET') {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write(': never an endpoint event\n\n');
        return;
      }
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: number; method: string };
        if (message.id === undefined) {
          response.writeHead(202).end();
          return;
        }
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify(
            message.method === 'initialize'
              ? {
                  jsonrpc: '2.0',
                  id: message.id,
                  result: {
                    protocolVersion: '2026-07-28',
                    capabilities: {},
                    serverInfo: { name: 'odd', version: '1' },
                  },
                }
              : { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } },
          ),
        );
      });
    });
    await home.writeConfig({ mcpServers: { odd: { url, initTimeout: 5_000 } } });
    const started = performance.now();
    const run = await runCli(['-p', 'go', '--provider-url', ollama.url], home.path, { timeoutMs: 30_000 });
    expect(performance.now() - started).toBeLessThan(5_000 + 3_000);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe('the answer');
    const lines = run.stderr.split('\n').filter((line) => line.includes('"odd"'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^mcphost: server "odd" failed to start: /);
  });
});

describe('-p output', () => {
  beforeEach(async () => {
    await home.writeConfig({
      mcpServers: { notes: { command: process.execPath, args: [fixture('no-tools-server.mjs')] } },
    });
  });

  it('keeps a library console line out of stdout', async () => {
    const run = await runCli(['-p', 'go', '--provider-url', ollama.url], home.path);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('the answer\n');
    expect(run.stderr).not.toContain('does not advertise tools capability');
  });

  it('shows it in the --debug log, on stderr', async () => {
    const run = await runCli(['-p', 'go', '--debug', '--provider-url', ollama.url], home.path);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('the answer\n');
    expect(run.stderr).toMatch(
      /\[library\] Client\.listTools\(\) called but server does not advertise tools/,
    );
  });
});
