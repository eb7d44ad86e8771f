/**
 * `mcphost -p` end to end with a tool whose answer (50 MB) is over the message size limit, from a
 * stdio server and from a Streamable HTTP one: the model reads an error result that says so, the
 * run goes on and exits 0, and nothing waits for the tool timeout.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startFakeOllama, textReply, toolCallReply, type FakeOllama } from '../fakes/ollama-server.js';
import { unusedPort } from '../support/loopback.js';
import { REPOSITORY, runCli, temporaryHome, type TemporaryHome } from '../support/cli.js';

const BIG_RESULT = join(REPOSITORY, 'test/fixtures/servers/big-result.mjs');

let home: TemporaryHome;
let ollama: FakeOllama | undefined;
let httpServer: ChildProcess | undefined;

beforeEach(async () => {
  home = await temporaryHome();
});
afterEach(async () => {
  await ollama?.close();
  ollama = undefined;
  if (httpServer !== undefined && httpServer.exitCode === null) {
    const exited = once(httpServer, 'exit');
    httpServer.kill('SIGKILL');
    await exited;
  }
  httpServer = undefined;
  await home.remove();
});

async function startHttpServer(): Promise<string> {
  const port = await unusedPort();
  const child = spawn(process.execPath, [BIG_RESULT, '--http', String(port)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  httpServer = child;
  child.stderr.setEncoding('utf8');
  await new Promise<void>((resolve) => {
    child.stderr.on('data', (chunk: string) => {
      if (chunk.includes('listening')) resolve();
    });
  });
  return `http://127.0.0.1:${port}/mcp`;
}

it('answers the model with an error result naming the size and the limit, over stdio and HTTP', async () => {
  const url = await startHttpServer();
  await home.writeConfig({
    mcpServers: {
      local: { command: process.execPath, args: [BIG_RESULT], toolTimeout: 300_000 },
      remote: { type: 'http', url, toolTimeout: 300_000 },
    },
  });
  ollama = await startFakeOllama([
    toolCallReply(['local__huge', {}], ['remote__huge', {}]),
    (request) =>
      textReply(
        request.messages
          .filter((message) => message.role === 'tool')
          .map((message) => message.content)
          .join('\n'),
      ),
  ]);
  const run = await runCli(
    ['-m', 'ollama:mistral-small', '-p', 'fetch it', '--provider-url', ollama.url],
    home.path,
    {
      timeoutMs: 90_000,
    },
  );
  expect(run.code).toBe(0);
  for (const server of ['local', 'remote']) {
    expect(run.stdout).toMatch(
      new RegExp(
        `server "${server}" answered the call to "huge" with a message of 50\\.0 MB \\(50,0\\d\\d,\\d\\d\\d bytes\\), over the message size limit of 10 MiB \\(10,485,760 bytes\\); the answer was dropped`,
      ),
    );
  }
}, 120_000);
