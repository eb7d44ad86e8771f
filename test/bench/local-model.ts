/**
 * The embedded model (issue 28), against node-llama-cpp alone on the same file, prompt and settings:
 *
 *   a. generation through mcphost (a Runner on the `local:` provider) ≤ 1.1 × node-llama-cpp's
 *      LlamaChat alone in time per generated token, and time to first token ≤ +50 ms;
 *   b. a one-shot `mcphost -m local:FILE -p …` with no servers, the file cached: its wall time
 *      beside the floor, a Node script that loads node-llama-cpp and the same file and answers.
 *
 * The model is generated (test/fixtures/tiny-gguf.ts), larger than the tests' so that a token
 * costs enough to measure; one thread on both sides (this machine is shared: more threads spin).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { getLlama, LlamaChat, LlamaLogLevel } from 'node-llama-cpp';
import { createProvider } from '../../providers/index.js';
import { Runner } from '../../src/core/runner.js';
import { median, timeCommand } from './measure.js';
import { CLI, REPOSITORY, temporaryHome } from '../support/cli.js';
import { TINY_GGUF_SHAPE, writeTinyGguf } from '../fixtures/tiny-gguf.js';

const REPEATS = Number(process.env.BENCH_REPEATS ?? 5);
const THREADS = 1;
const MAX_TOKENS = 200;
const PROMPT = 'Tell me about the weather in a few sentences.';
const BENCH_SHAPE = { ...TINY_GGUF_SHAPE, embedding: 256, heads: 4, layers: 4, feedForward: 768 };

interface Generation {
  readonly firstTokenMs: number;
  readonly msPerToken: number;
  readonly tokens: number;
}

function generation(started: number, first: number | undefined, ended: number, tokens: number): Generation {
  return {
    firstTokenMs: (first ?? ended) - started,
    msPerToken: (ended - (first ?? started)) / Math.max(1, tokens - 1),
    tokens,
  };
}

/**
 * Both sides measured in turns (alone, mcphost, mcphost, alone…) so that the load of this shared
 * machine falls on both alike. Each side keeps its one context and sends the same history every
 * time, so each reuses its cache the same way.
 */
async function generations(modelPath: string): Promise<{ alone: Generation[]; through: Generation[] }> {
  const llama = await getLlama({
    gpu: 'auto',
    build: 'never',
    maxThreads: THREADS,
    logLevel: LlamaLogLevel.error,
    logger: () => undefined,
  });
  const model = await llama.loadModel({ modelPath });
  const context = await model.createContext({
    contextSize: { max: Math.min(8192, model.trainContextSize) },
    threads: THREADS,
    sequences: 1,
  });
  const chat = new LlamaChat({ contextSequence: context.getSequence() });
  const provider = await createProvider(`local:${modelPath}`, {
    env: { MCPHOST_LOCAL_THREADS: String(THREADS) },
  });
  const aloneOnce = async (): Promise<Generation> => {
    const started = performance.now();
    let first: number | undefined;
    const before = chat.sequence.tokenMeter.usedOutputTokens;
    await chat.generateResponse([{ type: 'user', text: PROMPT }], {
      maxTokens: MAX_TOKENS,
      onResponseChunk: () => (first ??= performance.now()),
    });
    return generation(started, first, performance.now(), chat.sequence.tokenMeter.usedOutputTokens - before);
  };
  const throughOnce = async (): Promise<Generation> => {
    const runner = new Runner({ provider, settings: { maxTokens: MAX_TOKENS } });
    const started = performance.now();
    let first: number | undefined;
    const result = await runner.run(PROMPT, {
      onEvent: (event) => {
        if (event.type === 'text-delta') first ??= performance.now();
      },
    });
    return generation(started, first, performance.now(), result.usage.outputTokens);
  };
  const alone: Generation[] = [];
  const through: Generation[] = [];
  try {
    await aloneOnce(); // warm-up: loads the prompt into each cache
    await throughOnce();
    for (let index = 0; index < REPEATS; index++) {
      if (index % 2 === 0) {
        alone.push(await aloneOnce());
        through.push(await throughOnce());
      } else {
        through.push(await throughOnce());
        alone.push(await aloneOnce());
      }
    }
  } finally {
    await provider.close?.();
    await llama.dispose();
  }
  return { alone, through };
}

export async function localModel(): Promise<void> {
  const folder = await mkdtemp(join(tmpdir(), 'mcphost-bench-local-'));
  const home = await temporaryHome();
  try {
    const modelPath = await writeTinyGguf(join(folder, 'bench.gguf'), BENCH_SHAPE);
    const { alone, through } = await generations(modelPath);
    const aloneToken = median(alone.map((run) => run.msPerToken));
    const throughToken = median(through.map((run) => run.msPerToken));
    const aloneFirst = median(alone.map((run) => run.firstTokenMs));
    const throughFirst = median(through.map((run) => run.firstTokenMs));
    const verdict = (ok: boolean): string => (ok ? 'meets' : 'MISSES');
    console.log(
      `embedded model: generation (${BENCH_SHAPE.embedding}-wide ${BENCH_SHAPE.layers}-layer generated GGUF, ` +
        `${median(alone.map((run) => run.tokens))} / ${median(through.map((run) => run.tokens))} tokens, ${THREADS} thread)\n` +
        `  node-llama-cpp alone ${aloneToken.toFixed(3)} ms/token (${(1000 / aloneToken).toFixed(0)} tokens/s), first token ${aloneFirst.toFixed(1)} ms\n` +
        `  through mcphost      ${throughToken.toFixed(3)} ms/token (${(1000 / throughToken).toFixed(0)} tokens/s), first token ${throughFirst.toFixed(1)} ms\n` +
        `  ${(throughToken / aloneToken).toFixed(2)}× per token (target ≤ 1.1×: ${verdict(throughToken <= 1.1 * aloneToken)}); ` +
        `first token ${(throughFirst - aloneFirst).toFixed(1)} ms later (target ≤ +50 ms: ${verdict(throughFirst - aloneFirst <= 50)})\n`,
    );
    const env = { PATH: process.env.PATH ?? '', HOME: home.path, MCPHOST_LOCAL_THREADS: String(THREADS) };
    const floorScript = join(REPOSITORY, 'test/bench/llama-alone.mjs');
    const times = { floor: [] as number[], oneShot: [] as number[] };
    for (let index = 0; index <= REPEATS; index++) {
      // Alternated, so that the machine's load falls on both alike; the first pair warms the caches.
      const floor = await timeCommand(process.execPath, [floorScript, modelPath, String(THREADS), '8'], env);
      const oneShot = await timeCommand(
        process.execPath,
        [CLI, '-m', `local:${modelPath}`, '-p', 'hi', '--max-tokens', '8'],
        env,
      );
      if (index > 0) {
        times.floor.push(floor);
        times.oneShot.push(oneShot);
      }
    }
    const floor = median(times.floor);
    const oneShot = median(times.oneShot);
    console.log(
      `embedded model: one-shot with no servers, model file cached (8 tokens)\n` +
        `  node-llama-cpp alone (load, answer, exit) ${floor.toFixed(0)} ms\n` +
        `  mcphost -m local:… -p                     ${oneShot.toFixed(0)} ms (${(oneShot - floor).toFixed(0)} ms more, ${(oneShot / floor).toFixed(2)}×)\n`,
    );
  } finally {
    await home.remove();
    await rm(folder, { recursive: true, force: true });
  }
}
