/**
 * Pinned tool definitions in a batch: the jobs share one pin check (src/setup/job-host.ts), so a
 * batch pins what it first sees, and a definition changed since is handled once for the whole
 * run by its `toolChanges` policy. The fixture server's `lookup` tool changes between starts
 * (TOOL_VARIANT); a throw-away HOME holds the pin file; the real Ollama client against its fake.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runBatch, type BatchResult } from '../../src/index.js';
import type { HostEvent } from '../../src/setup/host-event.js';
import { ToolPinStore } from '../../src/safety/tool-pin-store.js';
import type { ToolChangePolicy } from '../../src/safety/tool-pins.js';
import { startFakeOllama, textReply, type FakeOllama } from '../fakes/ollama-server.js';

const SERVER = fileURLToPath(new URL('../fixtures/servers/changing-tool.mjs', import.meta.url));

let home: string;
let ollama: FakeOllama | undefined;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'mcphost-batch-pins-'));
});
afterEach(async () => {
  await ollama?.close();
  ollama = undefined;
  await rm(home, { recursive: true, force: true });
});

/** Three jobs over the fixture (server `dict`) in variant `variant`; results, events, offered tools. */
async function batchOnce(variant: 'a' | 'b', policy?: ToolChangePolicy) {
  ollama = await startFakeOllama([], { fallback: textReply('ok') });
  const events: HostEvent[] = [];
  const results: BatchResult[] = [];
  const jobs = ['one', 'two', 'three'].map((id) => ({ id, prompt: `look up ${id}` }));
  for await (const result of runBatch(jobs, {
    concurrency: 3,
    runner: {
      model: 'ollama:mistral-small',
      providerUrl: ollama.url,
      homeDir: home,
      env: {},
      mcpServers: {
        dict: {
          command: process.execPath,
          args: [SERVER],
          env: { TOOL_VARIANT: variant },
          ...(policy === undefined ? {} : { toolChanges: policy }),
        },
      },
      onEvent: (event) => events.push(event),
    },
  })) {
    results.push(result);
  }
  const offered = ollama.chatRequests.map((request) =>
    (request.tools ?? []).map((tool) => tool.function.name).sort(),
  );
  await ollama.close();
  ollama = undefined;
  return { results, events, offered };
}

const pinFile = () => join(home, '.local/state/mcphost/tool-pins.json');

describe('runBatch and pinned tool definitions', () => {
  it('pins the definitions a batch first sees', async () => {
    const { results, offered } = await batchOnce('a');
    expect(results.map((result) => result.status)).toEqual(['ok', 'ok', 'ok']);
    expect(offered.every((names) => names.includes('dict__lookup'))).toBe(true);
    const pins = await new ToolPinStore(pinFile()).list();
    expect(pins.map((entry) => `${entry.server}/${entry.tool}`)).toContain('dict/lookup');
  });

  it('withholds a definition changed since, once for the whole batch, under toolChanges: block', async () => {
    await batchOnce('a');
    const before = (await new ToolPinStore(pinFile()).list()).find(
      (entry) => entry.server === 'dict' && entry.tool === 'lookup',
    )?.pin;
    const { results, events, offered } = await batchOnce('b', 'block');
    expect(results.map((result) => result.status)).toEqual(['ok', 'ok', 'ok']);
    // No job's model was offered the changed tool...
    expect(offered).toHaveLength(3);
    for (const names of offered) expect(names).not.toContain('dict__lookup');
    // ...the change was handled once (one notice), and the old pin is kept.
    const changes = events.filter((event) => event.type === 'tool-change');
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ notice: { server: 'dict', tool: 'lookup', action: 'withheld' } });
    expect(
      (await new ToolPinStore(pinFile()).list()).find(
        (entry) => entry.server === 'dict' && entry.tool === 'lookup',
      )?.pin.hash,
    ).toBe(before?.hash);
  });

  it('uses and re-pins a changed definition under the default policy (warn), saying so once', async () => {
    await batchOnce('a');
    const before = (await new ToolPinStore(pinFile()).list()).find(
      (entry) => entry.server === 'dict' && entry.tool === 'lookup',
    )?.pin;
    const { events, offered } = await batchOnce('b');
    for (const names of offered) expect(names).toContain('dict__lookup');
    const changes = events.filter((event) => event.type === 'tool-change');
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ notice: { action: 'used', policy: 'warn' } });
    expect(
      (await new ToolPinStore(pinFile()).list()).find(
        (entry) => entry.server === 'dict' && entry.tool === 'lookup',
      )?.pin.hash,
    ).not.toBe(before?.hash);
  });
});
