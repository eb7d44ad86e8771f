/**
 * The `bash` built-in server through the real pool: a command's output and exit code, the minimal
 * environment, the output cap, and the timeout that ends the whole process group (nothing left).
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isAlive, liveGroupMembers } from '../support/processes.js';
import { callTool, closePoolsAfterEach, startBuiltin } from './support.js';

closePoolsAfterEach();

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'mcphost-bash-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** Waits until `test` holds, or fails after `ms`. */
async function eventually(test: () => boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!test()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('bash run_command', () => {
  it('runs in the configured folder and returns output with the exit code', async () => {
    const pool = await startBuiltin({ name: 'bash', options: { cwd: folder } });
    const result = await callTool(pool, 'bash__run_command', { command: 'pwd; echo out; echo err >&2' });
    expect(result).toEqual({ text: `${folder}\nout\nerr\n[exit code 0]`, isError: false });
    const failed = await callTool(pool, 'bash__run_command', { command: 'echo nope; exit 3' });
    expect(failed).toEqual({ text: 'nope\n[exit code 3]', isError: true });
  });

  it('gives commands the minimal environment, not our API keys', async () => {
    process.env.MCPHOST_TEST_SECRET_KEY = 'sk-should-not-leak';
    try {
      const pool = await startBuiltin({ name: 'bash', options: {} });
      const { text } = await callTool(pool, 'bash__run_command', {
        command: 'echo "key=${MCPHOST_TEST_SECRET_KEY:-unset} path=${PATH:+set}"',
      });
      expect(text).toBe('key=unset path=set\n[exit code 0]');
    } finally {
      delete process.env.MCPHOST_TEST_SECRET_KEY;
    }
  });

  it('cuts output past the cap and closes the pipe, ending a command that keeps writing', async () => {
    const pool = await startBuiltin({ name: 'bash', options: { maxOutputBytes: 1000, timeoutMs: 10_000 } });
    const started = Date.now();
    const { text, isError } = await callTool(pool, 'bash__run_command', { command: 'yes abcdefghi' });
    expect(Date.now() - started).toBeLessThan(5000);
    const [output = '', ...notes] = text.split('\n[');
    expect(Buffer.byteLength(output)).toBeLessThanOrEqual(1000);
    expect(output.startsWith('abcdefghi\nabcdefghi\n')).toBe(true);
    expect(notes.join('\n[')).toContain('output cut at 1000 bytes');
    expect(isError).toBe(true);
  });

  it('ends a command past its timeout with its whole process group, leaving nothing behind', async () => {
    const pool = await startBuiltin({ name: 'bash', options: { timeoutMs: 700 } });
    const pidFile = join(folder, 'pids');
    const started = Date.now();
    // A pipeline and a background job: every one is in the command's group and must go.
    const result = await callTool(pool, 'bash__run_command', {
      command: `sleep 30 & echo $! > ${pidFile}; echo $$ >> ${pidFile}; echo started; sleep 30 | cat`,
    });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(result.isError).toBe(true);
    expect(result.text).toBe(
      'started\n[timed out after 700 ms: the command and its process group were ended]',
    );
    const pids = (await readFile(pidFile, 'utf8')).trim().split('\n').map(Number);
    expect(pids).toHaveLength(2);
    const [, shellPid = 0] = pids;
    await eventually(() => pids.every((pid) => !isAlive(pid)) && liveGroupMembers(shellPid).length === 0);
  });

  it('ends background jobs when the command itself finishes', async () => {
    const pool = await startBuiltin({ name: 'bash', options: {} });
    const { text } = await callTool(pool, 'bash__run_command', { command: 'sleep 30 & echo $!' });
    const pid = Number(text.split('\n')[0]);
    expect(pid).toBeGreaterThan(0);
    await eventually(() => !isAlive(pid));
  });

  it('ends a running command when the call is cancelled', async () => {
    const pool = await startBuiltin({ name: 'bash', options: {} });
    const pidFile = join(folder, 'pid');
    const controller = new AbortController();
    const call = callTool(
      pool,
      'bash__run_command',
      { command: `echo $$ > ${pidFile}; sleep 30` },
      controller.signal,
    );
    await eventually(() => {
      try {
        return /^\d+\n$/.test(readFileSync(pidFile, 'utf8'));
      } catch {
        return false;
      }
    });
    const shellPid = Number((await readFile(pidFile, 'utf8')).trim());
    controller.abort();
    const result = await call;
    expect(result.isError).toBe(true);
    await eventually(() => liveGroupMembers(shellPid).length === 0);
  });
});
