/**
 * A server process spawned before the MCP SDK loads (src/mcp/server-process.ts) and adopted later
 * by its transport: what happened to it meanwhile must not be lost.
 */
import { describe, expect, it } from 'vitest';
import { ServerProcess } from '../../src/mcp/server-process.js';
import { StdioProcessTransport } from '../../src/mcp/stdio-transport.js';

const PARENT_ENV = { PATH: process.env.PATH ?? '' };

function adopt(serverProcess: ServerProcess, command = process.execPath): StdioProcessTransport {
  return new StdioProcessTransport({ command, args: [], env: PARENT_ENV, process: serverProcess });
}

describe('a server process adopted after it was spawned', () => {
  it('keeps the exit and the stderr of a process that ended before it was adopted', async () => {
    const early = new ServerProcess({
      command: process.execPath,
      args: ['-e', 'console.error("cannot read my settings"); process.exit(3)'],
      env: PARENT_ENV,
    });
    expect(await early.exited).toEqual({ code: 3, signal: null });
    const transport = adopt(early);
    let closed = false;
    transport.onclose = () => {
      closed = true;
    };
    await transport.start();
    expect(await transport.exited).toEqual({ code: 3, signal: null });
    await expect.poll(() => closed).toBe(true);
    expect(transport.stderrTail()).toEqual(['cannot read my settings']);
  });

  it('reads what a process wrote to stdout before it was adopted', async () => {
    const early = new ServerProcess({
      command: process.execPath,
      args: [
        '-e',
        'console.log(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })); setInterval(() => {}, 1000)',
      ],
      env: PARENT_ENV,
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const transport = adopt(early);
    const received: unknown[] = [];
    transport.onmessage = (message) => received.push(message);
    await transport.start();
    await expect.poll(() => received).toEqual([{ jsonrpc: '2.0', method: 'notifications/initialized' }]);
    await transport.close();
    expect((await transport.exited).signal).toBe('SIGTERM');
  });

  it('says why a command that could not be started failed, once adopted', async () => {
    const missing = '/nonexistent/mcp-server';
    const early = new ServerProcess({ command: missing, args: [], env: PARENT_ENV });
    expect(await early.started).toMatchObject({ kind: 'failed' });
    await expect(adopt(early, missing).start()).rejects.toThrow(
      'no such command "/nonexistent/mcp-server" (is it installed and on PATH?)',
    );
  });

  it('ends the whole process group of a process never adopted', async () => {
    const early = new ServerProcess({
      command: process.execPath,
      args: ['-e', 'setInterval(() => {}, 1000)'],
      env: PARENT_ENV,
    });
    expect(await early.started).toEqual({ kind: 'running' });
    early.killGroupSync();
    expect(await early.exited).toEqual({ code: null, signal: 'SIGKILL' });
  });

  it('leaves no timer holding the event loop once closed, so a host exits when its servers are gone', async () => {
    // Ref'd timers keep the loop alive (getActiveResourcesInfo lists them as 'Timeout').
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    // Timers of earlier tests end first (one that ended during this test made 'before' 1 and after
    // 0 in a CI run): then a timer left by closing is the only way the count can differ.
    for (let wait = 0; timers() > 0 && wait < 40; wait++) await new Promise((done) => setTimeout(done, 50));
    const before = timers();
    const transport = new StdioProcessTransport({
      command: process.execPath,
      args: ['-e', 'setInterval(() => {}, 1000)'],
      env: PARENT_ENV,
    });
    await transport.start();
    await transport.close();
    expect((await transport.exited).signal).toBe('SIGTERM');
    expect(timers()).toBe(before);
  });
});
