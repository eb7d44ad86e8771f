/**
 * A message over the size limit ends its request at once with an error that gives its size and
 * the limit, over stdio and HTTP, and the connection goes on: a v2-SDK fixture server answering
 * with 50 MB, and the HTTP limiter fed by a fetch that serves JSON and SSE answers.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { responseIdAtEdges } from '../../src/mcp/message-size.js';
import { sizeLimitedFetch } from '../../src/mcp/size-limited-fetch.js';
import { unusedPort } from '../support/loopback.js';
import {
  closePoolsAfterEach,
  firstText,
  fixture,
  fixturePath,
  startPool,
  testEnvironment,
  toolCall,
} from './support.js';

const remoteServers: ChildProcess[] = [];
closePoolsAfterEach(() => remoteServers.flatMap((child) => (child.pid === undefined ? [] : [child.pid])));
afterEach(async () => {
  for (const child of remoteServers.splice(0)) {
    if (child.exitCode !== null) continue;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  }
});

/** Starts big-result.mjs over Streamable HTTP; resolves with its URL once it listens. */
async function startBigHttpServer(): Promise<string> {
  const port = await unusedPort();
  const child = spawn(process.execPath, [fixturePath('big-result.mjs'), '--http', String(port)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  remoteServers.push(child);
  child.stderr.setEncoding('utf8');
  await new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (chunk: string) => {
      if (chunk.includes('listening')) resolve();
    });
    child.once('exit', (code) => {
      reject(new Error(`big-result.mjs exited with ${code}`));
    });
  });
  return `http://127.0.0.1:${port}/mcp`;
}

const OVERSIZE =
  /^server "big" answered the call to "huge" with a message of 50\.0 MB \(50,0\d\d,\d\d\d bytes\), over the message size limit of 10 MiB \(10,485,760 bytes\); the answer was dropped$/;

describe('an answer over the message size limit', () => {
  // The tool timeout is far away: an answer that waited for it would fail the test by its own timeout.
  const slowTimeouts = { toolTimeoutMs: 300_000, maxToolTimeoutMs: 300_000 };

  it('over stdio is an error result naming its size and the limit, and the server stays usable', async () => {
    const pool = await startPool({
      servers: { big: fixture('big-result.mjs') },
      env: testEnvironment(),
      ...slowTimeouts,
    });
    const result = await pool.call(toolCall('big__huge'));
    expect(result.isError).toBe(true);
    expect(firstText(result)).toMatch(OVERSIZE);
    expect(pool.status()[0]).toMatchObject({ state: 'ready', restarts: 0 });
    expect(firstText(await pool.call(toolCall('big__small')))).toBe('still here');
  }, 60_000);

  it('over HTTP is the same error result, and the session stays usable', async () => {
    const url = await startBigHttpServer();
    const pool = await startPool({
      servers: { big: { transport: 'http', url, headers: {} } },
      env: testEnvironment(),
      ...slowTimeouts,
    });
    const result = await pool.call(toolCall('big__huge'));
    expect(result.isError).toBe(true);
    expect(firstText(result)).toMatch(OVERSIZE);
    expect(firstText(await pool.call(toolCall('big__small')))).toBe('still here');
  }, 60_000);
});

describe('the HTTP limiter', () => {
  const request = { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call' }) };
  const answer = (text: string) =>
    `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"${text}"}]}}`;

  function serving(body: string, type: string): typeof fetch {
    return () => Promise.resolve(new Response(body, { status: 200, headers: { 'content-type': type } }));
  }

  it('replaces a JSON answer over the limit with the error for its request, and passes a small one', async () => {
    const debug: string[] = [];
    const big = sizeLimitedFetch(serving(answer('x'.repeat(500)), 'application/json'), 200, (line) =>
      debug.push(line),
    );
    const replaced = (await (await big('http://x/mcp', request)).json()) as {
      id: number;
      error: { message: string; data: unknown };
    };
    expect(replaced.id).toBe(7);
    expect(replaced.error.data).toEqual({
      mcphostMessageTooLarge: { bytes: 573, atLeast: false, limitBytes: 200 },
    });
    expect(debug).toEqual(['dropped an HTTP answer of 573 bytes (over the limit of 200) to request 7']);
    const small = sizeLimitedFetch(serving(answer('ok'), 'application/json'), 200, () => undefined);
    expect(await (await small('http://x/mcp', request)).text()).toBe(answer('ok'));
  });

  it('drops an SSE event over the limit, answers its request with the error, and keeps the events around it', async () => {
    const stream =
      'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{}}\n\n' +
      `event: message\r\ndata: ${answer('x'.repeat(500))}\r\n\r\n` +
      'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{}}\n\n';
    const limited = sizeLimitedFetch(serving(stream, 'text/event-stream'), 200, () => undefined);
    const text = await (await limited('http://x/mcp', request)).text();
    const events = text.split('\n\n').filter((event) => event !== '');
    expect(events).toHaveLength(3);
    expect(events[0]).toContain('notifications/progress');
    expect(events[1]).toContain('"mcphostMessageTooLarge":{"bytes":5');
    expect(events[1]).toContain('"id":7');
    expect(events[2]).toContain('notifications/message');
  });
});

describe('the id of an answer seen only by its ends', () => {
  it('is read where serializers put it, first or last, never from inside the result', () => {
    expect(responseIdAtEdges('{"jsonrpc":"2.0","id":12,"result":{"id":3', '"}]}}')).toBe(12);
    expect(responseIdAtEdges('{"result":{"content":[{"id":3', 'xx"}]},"jsonrpc":"2.0","id":"a-1"}')).toBe(
      'a-1',
    );
    expect(responseIdAtEdges('{"result":{"content":[{"id":3', 'xx","id":4}]}}')).toBeUndefined();
  });
});
