/**
 * No orphans after SIGKILL: mcphost killed at a random moment (while its servers start, while a
 * tool call runs, while the answer streams), with servers behind `sh -c` and an `npx`-style
 * wrapper, each of which leaves a child and a grandchild of its own: one second later, no process
 * of theirs is left. Every other run is under `--sandbox` (bwrap's pid namespace), the others rely
 * on the orphan watcher alone (src/safety/orphan-watch.ts).
 *
 * The processes of a run are found by a marker in their environment (/proc/PID/environ), which
 * every descendant inherits: once mcphost is dead they are nobody's children, so the tree is gone.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { startFakeOllama, toolCallReply, type FakeOllama } from '../fakes/ollama-server.js';
import { REPOSITORY, startCli, temporaryHome, type RunningCli } from '../support/cli.js';
import { isAlive } from '../support/processes.js';
import { requireSandboxSupport } from '../support/sandbox.js';

requireSandboxSupport();

const TRIALS = 20;
const CONCURRENT = 2;
/** How long after the kill nothing may be left. */
const GONE_WITHIN_MS = 1_000;
const MARK = 'MCPHOST_KILL_TEST';
const fixture = (name: string) => join(REPOSITORY, 'test/fixtures/servers', name);

/** Live processes whose environment carries `marker`. */
function markedProcesses(marker: string): number[] {
  const needle = `${MARK}=${marker}\0`;
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return readFileSync(`/proc/${entry}/environ`, 'latin1').includes(needle);
      } catch {
        return false;
      }
    })
    .map(Number)
    .filter((pid) => isAlive(pid));
}

async function until(test: () => boolean, what: string, cli: RunningCli): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`never saw ${what}; mcphost's stderr:\n${cli.stderr()}`);
    await delay(10);
  }
}

type Phase = 'start-up' | 'tool call' | 'answer';
const PHASES: readonly Phase[] = ['start-up', 'tool call', 'answer'];
/** How many model requests have been made by then, in each phase. */
const REQUESTS_IN_PHASE: Readonly<Record<Phase, number>> = { 'start-up': 0, 'tool call': 1, answer: 2 };

interface Trial {
  readonly phase: Phase;
  readonly sandbox: boolean;
  readonly requestsAtKill: number;
  readonly aliveAtKill: number;
  readonly left: readonly number[];
  readonly goneAfterMs: number;
}

async function killOnce(phase: Phase, sandbox: boolean): Promise<Trial> {
  const marker = randomUUID();
  const home = await temporaryHome();
  const env = { [MARK]: marker, STARTUP_DELAY_MS: '400' };
  await home.writeConfig({
    mcpServers: {
      shell: {
        command: 'sh',
        args: ['-c', `"${process.execPath}" "${fixture('family-server.mjs')}"; exit $?`],
        env,
      },
      npx: { command: process.execPath, args: [fixture('npx-like.mjs'), fixture('family-server.mjs')], env },
    },
  });
  const ollama: FakeOllama = await startFakeOllama([
    toolCallReply(['shell__sleep', { ms: 1_500 }], ['npx__sleep', { ms: 1_500 }]),
    { type: 'answer', text: Array.from({ length: 15 }, (_, index) => `word${index} `), chunkDelayMs: 60 },
  ]);
  const cli = startCli(
    ['-p', 'go', '--provider-url', ollama.url, '--approve-all', ...(sandbox ? ['--sandbox'] : [])],
    home.path,
  );
  try {
    switch (phase) {
      case 'start-up':
        await until(() => markedProcesses(marker).length > 0, 'a server process', cli);
        await delay(Math.random() * 250);
        break;
      case 'tool call':
        await until(() => ollama.chatRequests.length >= 1, 'the first model request', cli);
        await delay(Math.random() * 1_200);
        break;
      case 'answer':
        await until(() => ollama.chatRequests.length >= 2, 'the second model request', cli);
        await delay(Math.random() * 600);
        break;
      default: {
        const unexpected: never = phase;
        throw new Error(String(unexpected));
      }
    }
    expect(cli.child.exitCode, `mcphost ended before the kill:\n${cli.stderr()}`).toBeNull();
    const aliveAtKill = markedProcesses(marker).length;
    const requestsAtKill = ollama.chatRequests.length;
    cli.child.kill('SIGKILL');
    const killedAt = Date.now();
    let left = markedProcesses(marker);
    while (left.length > 0 && Date.now() - killedAt < GONE_WITHIN_MS) {
      await delay(20);
      left = markedProcesses(marker);
    }
    const goneAfterMs = Date.now() - killedAt;
    for (const pid of left) process.kill(pid, 'SIGKILL');
    await cli.done;
    return { phase, sandbox, requestsAtKill, aliveAtKill, left, goneAfterMs };
  } finally {
    cli.child.kill('SIGKILL');
    await ollama.close();
    await home.remove();
  }
}

describe('SIGKILL of mcphost', () => {
  it(`leaves no process of its servers (sh -c, npx-style, with grandchildren) in ${TRIALS} random kills`, async () => {
    // Two at a time (each with its own marker, HOME and model): most of a run is waiting.
    const trials: Trial[] = [];
    for (let index = 0; index < TRIALS; index += CONCURRENT) {
      const batch = Array.from(
        { length: Math.min(CONCURRENT, TRIALS - index) },
        (_, offset) => index + offset,
      );
      trials.push(
        ...(await Promise.all(
          batch.map((trial) => killOnce(PHASES[trial % PHASES.length] ?? 'start-up', trial % 2 === 1)),
        )),
      );
    }
    const slowest = Math.max(...trials.map((trial) => trial.goneAfterMs));
    console.info(`kill test: ${TRIALS} runs, all of their processes gone within ${slowest} ms at most`);
    for (const trial of trials) {
      const label = `${trial.phase}${trial.sandbox ? ' (--sandbox)' : ''}`;
      // Each kill hit the phase it aimed at, with processes of the servers alive.
      expect(trial.requestsAtKill, label).toBe(REQUESTS_IN_PHASE[trial.phase]);
      expect(trial.aliveAtKill, label).toBeGreaterThan(0);
      expect(trial.left, label).toEqual([]);
    }
  }, 180_000);

  it('ends a running bash command and its background job', async () => {
    const home = await temporaryHome();
    const pidFile = join(home.path, 'pids');
    const ollama = await startFakeOllama([
      toolCallReply([
        'bash__run_command',
        { command: `echo $$ > ${pidFile}; sleep 600 & echo $! >> ${pidFile}; sleep 601` },
      ]),
    ]);
    const cli = startCli(
      ['-p', 'go', '--provider-url', ollama.url, '--builtin', 'bash', '--approve-all'],
      home.path,
    );
    try {
      await until(
        () => {
          try {
            return readFileSync(pidFile, 'utf8').trim().split('\n').length === 2;
          } catch {
            return false;
          }
        },
        'the command running',
        cli,
      );
      const pids = readFileSync(pidFile, 'utf8').trim().split('\n').map(Number);
      expect(pids.every((pid) => isAlive(pid))).toBe(true);
      cli.child.kill('SIGKILL');
      await delay(GONE_WITHIN_MS);
      expect(pids.filter((pid) => isAlive(pid))).toEqual([]);
      await cli.done;
    } finally {
      cli.child.kill('SIGKILL');
      await ollama.close();
      await home.remove();
    }
  });

  it('leaves nothing of a server started with the real npx', async () => {
    const home = await temporaryHome();
    const marker = randomUUID();
    await mkdir(join(home.path, 'memory'));
    await home.writeConfig({
      mcpServers: {
        memory: {
          command: 'npx',
          args: ['--offline', 'mcp-server-memory'],
          cwd: REPOSITORY,
          env: { [MARK]: marker, MEMORY_FILE_PATH: join(home.path, 'memory', 'memory.jsonl') },
        },
      },
    });
    await writeFile(join(home.path, 'prompt.txt'), 'go');
    const ollama = await startFakeOllama([{ type: 'stall' }]);
    const cli = startCli(['-p', 'go', '--provider-url', ollama.url], home.path);
    try {
      // The model request comes once the server is up; the stalled answer keeps mcphost running.
      await until(() => ollama.chatRequests.length >= 1, 'the model request', cli);
      const before = markedProcesses(marker);
      // npx (node), its sh -c, and the server (node), at least.
      expect(before.length).toBeGreaterThanOrEqual(3);
      cli.child.kill('SIGKILL');
      await delay(GONE_WITHIN_MS);
      expect(markedProcesses(marker)).toEqual([]);
      await cli.done;
    } finally {
      cli.child.kill('SIGKILL');
      await ollama.close();
      await home.remove();
    }
  });
});
