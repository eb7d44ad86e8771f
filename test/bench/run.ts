/**
 * `npm run bench`: the performance targets, measured in one run on this machine and printed as
 * figures and ratios. Not a test: shared machines are noisy, so nothing here fails a build.
 *
 *   1. 8 servers start in about the time of one: one-shot wall time with 8 ≤ 1.3 × with 1.
 *   2. Host cost per tool round (fake model answering at once, everything__echo) ≤ 5 ms of the
 *      host's own CPU time (test/bench/tool-round.ts).
 *   3. `mcphost --help` ≤ 1.1 × yargs' own floor, a yargs program with our flags (the owner's decision
 *      on issue 27; yargs-floor-program.ts); vendor SDKs are imported only when used.
 *   4. Long conversations: the host cost of a tool round at 0, 1k and 10k messages of history,
 *      without saving and with saving (`-s`, the append-only journal): at 10k, saving ≤ 1.3× not
 *      saving. Loading a 10k-message saved conversation: ≤ 300 ms.
 *   5. The cold path (test/bench/cold-path.ts).
 *   6. The embedded model against node-llama-cpp alone (test/bench/local-model.ts).
 *   7. Batch: host CPU per job of 1,000 one-tool-round jobs beside a loop of -p runs (test/bench/batch.ts).
 *   workers. Two durable workers on one PostgreSQL against one (test/bench/workers.ts).
 *   telemetry. One-shot start with telemetry off against a baseline build, and host CPU per tool
 *      round with OTLP export on ≤ off + 1 ms (test/bench/telemetry.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ConversationJournal } from '../../src/conversation/conversation-journal.js';
import { loadSavedConversation, saveConversation } from '../../src/conversation/saved-conversation.js';
import { createRunner } from '../../src/setup/create-runner.js';
import type { Message } from '../../src/core/types.js';
import { startFakeOllama, textReply, toolCallReply } from '../fakes/ollama-server.js';
import { coldPath } from './cold-path.js';
import { toolRound } from './tool-round.js';
import { localModel } from './local-model.js';
import { batchJobs } from './batch.js';
import { durableWorkers } from './workers.js';
import { acpStart } from './acp-start.js';
import { buildYargsFloor } from './yargs-floor.js';
import { telemetryCost } from './telemetry.js';
import { median, timeCommand } from './measure.js';
import { CLI, REPOSITORY, temporaryHome, EVERYTHING_SERVER, npmServerConfig } from '../support/cli.js';

const REPEATS = Number(process.env.BENCH_REPEATS ?? 5);

async function medianOf(runs: number, measure: () => Promise<number>): Promise<number> {
  const times: number[] = [];
  await measure(); // warm the file cache
  for (let index = 0; index < runs; index++) times.push(await measure());
  return median(times);
}

function report(name: string, figures: string, ratio: number, target: number, unit = '×'): void {
  const verdict = ratio <= target ? 'meets' : 'MISSES';
  console.log(
    `${name}\n  ${figures}\n  ${ratio.toFixed(2)}${unit} (target ≤ ${target}${unit}: ${verdict})\n`,
  );
}

/** A server whose start-up is mostly waiting (500 ms), like one behind `npx` or a cold cache. */
const SLOW_START = {
  command: process.execPath,
  args: [join(REPOSITORY, 'test/fixtures/servers/slow-start.mjs')],
  env: { STARTUP_DELAY_MS: '500' },
};
/** A real server from npm: its start-up is mostly CPU (loading the SDK and zod). */
const MEMORY = npmServerConfig('memory');

async function serverStartup(label: string, server: object): Promise<void> {
  const ollama = await startFakeOllama([], { fallback: textReply('ok') });
  const home = await temporaryHome();
  const oneShot = async (servers: number): Promise<number> => {
    const mcpServers = Object.fromEntries(
      Array.from({ length: servers }, (_, index) => [`server${index}`, server]),
    );
    await home.writeConfig({ mcpServers });
    return timeCommand(process.execPath, [CLI, '-p', 'hi', '--provider-url', ollama.url], {
      PATH: process.env.PATH,
      HOME: home.path,
    });
  };
  try {
    const one = await medianOf(REPEATS, () => oneShot(1));
    const eight = await medianOf(REPEATS, () => oneShot(8));
    report(
      `1. one-shot wall time, 8 servers vs 1 (${label})`,
      `1 server ${one.toFixed(0)} ms, 8 servers ${eight.toFixed(0)} ms`,
      eight / one,
      1.3,
    );
  } finally {
    await home.remove();
    await ollama.close();
  }
}

async function helpStartup(): Promise<void> {
  // A HOME of its own: the executable's code cache (Node 20) lives under it, and one shared with
  // other checkouts of mcphost (each build names its own cache and removes the others') would
  // measure their builds' cache misses. Runs in turns (node, help, node, …), so that a noisy moment
  // on a shared machine falls on both alike.
  const home = await temporaryHome();
  const env = { PATH: process.env.PATH, HOME: home.path };
  const nodeTimes: number[] = [];
  const floorTimes: number[] = [];
  const helpTimes: number[] = [];
  try {
    const yargsFloor = await buildYargsFloor(home.path);
    await timeCommand(process.execPath, [CLI, '--help'], env); // warm the file and code caches
    await timeCommand(process.execPath, [yargsFloor, '--help'], env);
    for (let round = 0; round < REPEATS * 2; round++) {
      nodeTimes.push(await timeCommand(process.execPath, ['-e', '0'], env));
      floorTimes.push(await timeCommand(process.execPath, [yargsFloor, '--help'], env));
      helpTimes.push(await timeCommand(process.execPath, [CLI, '--help'], env));
    }
  } finally {
    await home.remove();
  }
  const node = median(nodeTimes);
  const floor = median(floorTimes);
  const help = median(helpTimes);
  report(
    `3. mcphost --help vs yargs' floor, a yargs program with our flags (Node ${process.version})`,
    `yargs' floor ${floor.toFixed(0)} ms, mcphost --help ${help.toFixed(0)} ms ` +
      `(node -e 0 ${node.toFixed(0)} ms: ${(help / node).toFixed(2)}×, the earlier target 2.5×)`,
    help / floor,
    1.1,
  );
}

/** A history of `count` messages: turns of a prompt, a tool call, its result and an answer. */
function longHistory(count: number): Message[] {
  const messages: Message[] = [];
  for (let turn = 0; messages.length < count; turn++) {
    const id = `call_${turn}`;
    messages.push(
      { role: 'user', content: [{ type: 'text', text: `question ${turn}: ${'words '.repeat(30)}` }] },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', id, name: 'everything__echo', input: { message: `m${turn}` } }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: id,
            toolName: 'everything__echo',
            content: [{ type: 'text', text: `Echo: m${turn} ${'data '.repeat(40)}` }],
            isError: false,
          },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: `answer ${turn}: ${'more words '.repeat(20)}` }] },
    );
  }
  return messages.slice(0, count);
}

/** Host time of one tool round after `size` messages of history, saving to a journal or not. */
async function roundAt(size: number, saving: boolean, folder: string): Promise<number> {
  const rounds = 30;
  let toolCallsLeft = 0;
  const ollama = await startFakeOllama([], {
    fallback: () =>
      toolCallsLeft-- > 0 ? toolCallReply(['everything__echo', { message: 'x' }]) : textReply('done'),
  });
  const history = longHistory(size);
  let journal: ConversationJournal | undefined;
  if (saving) {
    const path = join(folder, `bench-${size}.jsonl`);
    await saveConversation(path, {
      model: 'ollama:mistral-small',
      createdAt: new Date().toISOString(),
      updatedAt: new Date().toISOString(),
      messages: history,
    });
    const loaded = await loadSavedConversation(path);
    journal = await ConversationJournal.open(path, { continues: loaded });
    history.splice(0, history.length, ...loaded.messages);
  }
  const runner = await createRunner({
    model: 'ollama:mistral-small',
    providerUrl: ollama.url,
    maxSteps: rounds + 2,
    mcpServers: { everything: EVERYTHING_SERVER },
    history,
    // Measuring the host: no compaction (the fake's window would call for one at 10k messages).
    context: { autoCompact: false },
    ...(journal === undefined
      ? {}
      : {
          onHistoryChange: (messages: readonly Message[]) =>
            journal.record({ model: 'ollama:mistral-small', messages }),
        }),
  });
  try {
    toolCallsLeft = 1;
    await runner.run('warm up: one round');
    toolCallsLeft = rounds;
    const started = performance.now();
    const result = await runner.run('echo many times');
    return (performance.now() - started) / result.toolCalls.length;
  } finally {
    await runner.close();
    await ollama.close();
  }
}

async function longConversations(): Promise<void> {
  const folder = await mkdtemp(join(tmpdir(), 'mcphost-bench-'));
  try {
    const figures: string[] = [];
    let atTenThousand = { plain: 0, saving: 0 };
    for (const size of [0, 1_000, 10_000]) {
      const plain = await roundAt(size, false, folder);
      const saving = await roundAt(size, true, folder);
      figures.push(
        `${String(size).padStart(6)} messages: ${plain.toFixed(2)} ms without saving, ${saving.toFixed(2)} ms with -s`,
      );
      if (size === 10_000) atTenThousand = { plain, saving };
    }
    report(
      '4a. host cost per tool round by history size (fake Ollama + everything__echo; the request is rebuilt and serialized each round)',
      figures.join('\n  '),
      atTenThousand.saving / atTenThousand.plain,
      1.3,
    );
    const path = join(folder, 'load-10k.jsonl');
    await saveConversation(path, {
      model: 'ollama:mistral-small',
      createdAt: new Date().toISOString(),
      updatedAt: new Date().toISOString(),
      messages: longHistory(10_000),
    });
    const load = await medianOf(REPEATS, async () => {
      const started = performance.now();
      const loaded = await loadSavedConversation(path);
      if (loaded.messages.length !== 10_000) throw new Error(`loaded ${loaded.messages.length} messages`);
      return performance.now() - started;
    });
    report('4b. loading a 10,000-message saved conversation', `${load.toFixed(0)} ms`, load, 300, ' ms');
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

console.log(`mcphost benchmarks (median of ${REPEATS} runs each; ${process.version})\n`);
// BENCH_ONLY=4 (or 1,2,3,5,6,7,workers,acp, comma-separated) runs only those sections.
const only = new Set(
  (process.env.BENCH_ONLY ?? '1,2,3,4,5,6,7,workers,acp,telemetry').split(',').map((part) => part.trim()),
);
if (only.has('3')) await helpStartup();
if (only.has('1')) {
  await serverStartup('servers that wait 500 ms before they are ready', SLOW_START);
  await serverStartup(`server-memory from npm: CPU-bound, ${availableParallelism()} cores`, MEMORY);
}
if (only.has('2')) await toolRound();
if (only.has('4')) await longConversations();
if (only.has('5')) await coldPath();
if (only.has('6')) await localModel();
if (only.has('7')) await batchJobs();
if (only.has('workers')) await durableWorkers();
if (only.has('acp')) await acpStart();
if (only.has('telemetry')) await telemetryCost();
