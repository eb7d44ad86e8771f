/**
 * Ending mcphost by signal: the turn stops, every server and every process it started is ended,
 * and the exit code is 128 + the signal's number.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOllama, textReply, toolCallReply, type FakeOllama } from '../fakes/ollama-server.js';
import { CLI, isAlive, REPOSITORY, temporaryHome, type TemporaryHome } from '../support/cli.js';
import { childrenOf } from '../support/processes.js';

let home: TemporaryHome;
let ollama: FakeOllama;

beforeEach(async () => {
  home = await temporaryHome();
  const fixture = (name: string) => join(REPOSITORY, 'test/fixtures/servers', name);
  await home.writeConfig({
    mcpServers: {
      spawner: { command: 'sh', args: ['-c', `"${process.execPath}" "${fixture('spawner.mjs')}"; exit $?`] },
      slow: { command: process.execPath, args: [fixture('slow-tool.mjs')] },
    },
  });
  ollama = await startFakeOllama([
    toolCallReply(['spawner__pids', {}]),
    toolCallReply(['slow__sleep', { ms: 60_000 }]),
    textReply('never reached'),
  ]);
});
afterEach(async () => {
  await ollama.close();
  await home.remove();
});

/** Starts the CLI, waits until the slow tool is running, then sends `signal`. */
async function interruptDuringSlowTool(signal: NodeJS.Signals) {
  const child = spawn(process.execPath, [CLI, '-p', 'go', '--provider-url', ollama.url], {
    cwd: home.path,
    env: { PATH: process.env.PATH ?? '', HOME: home.path },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let pids: { pid: number; childPid: number } | undefined;
  const exited = new Promise<{ code: number | null }>((resolve) =>
    child.on('close', (code) => resolve({ code })),
  );
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the slow tool never started:\n${stderr}`)), 20_000);
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const found = /"pid":(\d+),"childPid":(\d+)/.exec(stderr);
      if (found !== null) pids = { pid: Number(found[1]), childPid: Number(found[2]) };
      if (pids !== undefined && stderr.includes('→ slow__sleep')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  // The servers' own processes (the sh of the spawner, the slow server) are our direct children.
  const serverPids = childrenOf(child.pid!);
  child.kill(signal);
  const { code } = await exited;
  return { code, stderr, pids: pids!, serverPids };
}

describe('shutdown by signal', () => {
  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
    ['SIGHUP', 129],
  ] as const)(
    '%s ends the run, every server and its children, with exit code %i',
    async (signal, expected) => {
      const { code, stderr, pids, serverPids } = await interruptDuringSlowTool(signal);
      expect(code).toBe(expected);
      expect(stderr).toContain(`mcphost: stopped by ${signal}`);
      expect(serverPids.length).toBeGreaterThanOrEqual(2);
      for (const pid of [pids.pid, pids.childPid, ...serverPids]) expect(isAlive(pid)).toBe(false);
    },
  );
});
