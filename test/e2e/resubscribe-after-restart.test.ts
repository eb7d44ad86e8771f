/**
 * A resource subscription outlives its server's crash: the restart makes it again on the new
 * process, once, and an update that process sends reaches the runner's `onEvent`.
 * Through the library (`createRunner`) against a v2-SDK fixture (subscribable.mjs) served as a
 * 2025-era server and as a 2026-07-28 one.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRunner, type McpRunner, type OfferingsChange, type PoolLogEntry } from '../../src/index.js';
import { REPOSITORY } from '../support/cli.js';

const NOTE = 'fixture://note';
const updated: OfferingsChange = { type: 'resource-updated', server: 'notes', uri: NOTE };

let runner: McpRunner | undefined;
let directory: string | undefined;
afterEach(async () => {
  await runner?.close();
  runner = undefined;
  if (directory !== undefined) await rm(directory, { recursive: true, force: true });
  directory = undefined;
});

/** A runner with the fixture as server "notes"; what it hears is collected. */
async function startRunner(args: readonly string[] = [], env: Record<string, string> = {}) {
  const changes: OfferingsChange[] = [];
  const logs: PoolLogEntry[] = [];
  runner = await createRunner({
    model: 'ollama:mistral-small',
    // No model call is made here.
    providerUrl: 'http://127.0.0.1:9',
    env: {},
    mcpServers: {
      notes: {
        command: process.execPath,
        args: [join(REPOSITORY, 'test/fixtures/servers/subscribable.mjs'), ...args],
        env,
      },
    },
    onEvent: (event) => {
      if (event.type === 'offerings-change') changes.push(event.change);
      if (event.type === 'server-log') logs.push(event.entry);
    },
  });
  const started = runner;
  const call = async (tool: string) => {
    const result = await started.pool.call({
      type: 'tool-call',
      id: tool,
      name: `notes__${tool}`,
      input: {},
    });
    const [block] = result.content;
    return { isError: result.isError, text: block?.type === 'text' ? block.text : '' };
  };
  const warnings = () => logs.filter((entry) => entry.level === 'warn').map((entry) => entry.message);
  return { runner: started, changes, call, warnings };
}

/** Touches the note until its update is heard (the new subscription may still be on its way). */
async function touchUntilHeard(
  call: (tool: string) => Promise<{ text: string }>,
  changes: readonly OfferingsChange[],
): Promise<string> {
  let touchedBy = '';
  await vi.waitFor(
    async () => {
      touchedBy = (await call('touch')).text;
      expect(changes).toContainEqual(updated);
    },
    { timeout: 5_000, interval: 100 },
  );
  return touchedBy;
}

describe('resource subscriptions across a server restart', () => {
  it('subscribes again on the restarted 2025-era server, once, and hears its updates', async () => {
    const { runner, changes, call, warnings } = await startRunner();
    expect(runner.servers[0]?.protocolVersion).toMatch(/^2025-/);
    expect(await runner.mcp.subscribe('notes', NOTE)).toBe('subscribed');
    const firstPid = (await call('pid')).text;

    expect((await call('crash')).isError).toBe(true);
    changes.length = 0;
    // Any use restarts it; this one asks the new process what it was asked.
    const asked = JSON.parse((await call('subscribe-requests')).text) as { pid: number; uris: string[] };
    expect(String(asked.pid)).not.toBe(firstPid);
    expect(runner.servers[0]).toMatchObject({ state: 'ready', restarts: 1 });

    expect(await touchUntilHeard(call, changes)).toBe(`touched by ${asked.pid}`);
    // The user attaching it again asks nothing more of the server.
    expect(await runner.mcp.subscribe('notes', NOTE)).toBe('already-subscribed');
    const after = JSON.parse((await call('subscribe-requests')).text) as { pid: number; uris: string[] };
    expect(after).toEqual({ pid: asked.pid, uris: [NOTE] });
    expect(runner.mcp.subscriptions()).toEqual([{ server: 'notes', uri: NOTE }]);
    expect(warnings().filter((warning) => warning.includes('subscribe'))).toEqual([]);
  });

  it('opens a new listen stream on the restarted 2026-07-28 server, and hears its updates', async () => {
    const { runner, changes, call } = await startRunner(['--dual-era']);
    expect(runner.servers[0]?.protocolVersion).toBe('2026-07-28');
    expect(await runner.mcp.subscribe('notes', NOTE)).toBe('subscribed');
    await touchUntilHeard(call, changes);
    const firstPid = (await call('pid')).text;

    expect((await call('crash')).isError).toBe(true);
    changes.length = 0;
    const secondPid = (await call('pid')).text;
    expect(secondPid).not.toBe(firstPid);

    expect(await touchUntilHeard(call, changes)).toBe(`touched by ${secondPid}`);
    expect(runner.mcp.subscriptions()).toEqual([{ server: 'notes', uri: NOTE }]);
  });

  it('keeps a 2026-07-28 listen stream open when the signal it was opened with aborts later', async () => {
    const { runner, changes, call } = await startRunner(['--dual-era']);
    const turn = new AbortController();
    expect(await runner.mcp.subscribe('notes', NOTE, turn.signal)).toBe('subscribed');
    // A chat turn's signal: cancelled (Esc) after the attach, it must not end the subscription.
    turn.abort();
    await touchUntilHeard(call, changes);
  });

  it('reports a restarted server that refuses as a warning naming server and URI, not to the call', async () => {
    directory = await mkdtemp(join(tmpdir(), 'mcphost-resubscribe-'));
    const { runner, call, warnings } = await startRunner([], {
      REFUSE_AFTER_FIRST: join(directory, 'started'),
    });
    expect(await runner.mcp.subscribe('notes', NOTE)).toBe('subscribed');

    expect((await call('crash')).isError).toBe(true);
    // The call that restarted it is answered as usual.
    expect((await call('pid')).isError).toBe(false);
    await vi.waitFor(
      () => {
        expect(warnings()).toContainEqual(
          expect.stringMatching(
            /^server "notes" could not subscribe again to resource "fixture:\/\/note" after it connected again: .*closed since the restart/,
          ),
        );
      },
      { timeout: 5_000, interval: 50 },
    );
    expect(runner.mcp.subscriptions()).toEqual([]);
  });
});
