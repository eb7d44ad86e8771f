/**
 * Loading llama.cpp (through node-llama-cpp) and a model, right for the machine:
 *
 * - the binding is imported on first use only (`mcphost --help` and the other providers never load
 *   it), and once per process: every local provider shares one `Llama`;
 * - threads default to the machine's available parallelism. node-llama-cpp's own default is at
 *   least 4, and on a 2-core machine 4 spinning threads made generation about 1,000× slower;
 *   `MCPHOST_LOCAL_THREADS` overrides it (1 is fastest for tiny models and on a busy machine);
 * - `gpu: 'auto'` uses a prebuilt GPU binary where one is installed and loads (CUDA, Vulkan,
 *   Metal), the CPU binary otherwise; `build: 'never'` so that no user ever waits for a compile;
 * - the context is capped at {@link DEFAULT_LOCAL_CONTEXT_SIZE} tokens (or the model's training
 *   length, if smaller): Qwen3's 40,960 would cost gigabytes of KV cache that a small machine lacks;
 * - too little memory is one clear error naming the file and what is free.
 */
import { availableParallelism, freemem, homedir, totalmem } from 'node:os';
import { basename } from 'node:path';
import type * as NodeLlamaCpp from 'node-llama-cpp';
import type { Llama, LlamaContext, LlamaModel } from 'node-llama-cpp';
import { ConfigError, McpHostError, ProviderError } from '../../src/core/errors.js';
import { loadRuntime } from './runtime-source.js';
import { definedProperties } from '../../src/util/defined-properties.js';

/** The largest context created by default: 8,192 tokens is under 1 GB of KV cache for Qwen3-1.7B. */
export const DEFAULT_LOCAL_CONTEXT_SIZE = 8192;

/** The node-llama-cpp version mcphost is built and tested against (package.json pins it). */
export const NODE_LLAMA_CPP_VERSION = '3.21.1';

type Binding = typeof NodeLlamaCpp;

/** A model and its one context, loaded for one provider. */
export interface LoadedModel {
  readonly binding: Binding;
  readonly model: LlamaModel;
  readonly context: LlamaContext;
}

/** Options of {@link loadLocalModel}. */
export interface LoadLocalModelOptions {
  readonly modelPath: string;
  /** CPU threads; default the machine's available parallelism. */
  readonly threads: number;
  /** Upper bound of the context size in tokens. */
  readonly maxContextSize?: number;
  readonly signal?: AbortSignal;
}

let shared: Promise<{ binding: Binding; llama: Llama }> | undefined;

/** The threads to use: `MCPHOST_LOCAL_THREADS` when it is a positive whole number, else every core. */
export function localThreads(env: Readonly<Record<string, string | undefined>>): number {
  const text = env.MCPHOST_LOCAL_THREADS?.trim();
  if (text === undefined || text === '') return availableParallelism();
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) {
    throw new ConfigError('MCPHOST_LOCAL_THREADS', `"${text}" is not a positive whole number of threads`);
  }
  return value;
}

async function importBinding(): Promise<Binding> {
  try {
    // Prepared already by createLocalProvider (with a progress bar) where it ran; else fetched now.
    return await loadRuntime({ homeDir: homedir(), env: process.env });
  } catch (error) {
    if (error instanceof McpHostError) throw error;
    throw new ProviderError(
      'local',
      `cannot load node-llama-cpp (${(error as Error).message}); install it with npm install node-llama-cpp@${NODE_LLAMA_CPP_VERSION}`,
      { retryable: false, cause: error },
    );
  }
}

/** llama.cpp, loaded once per process with the first caller's thread count. */
function sharedLlama(threads: number): Promise<{ binding: Binding; llama: Llama }> {
  shared ??= (async () => {
    const binding = await importBinding();
    try {
      const llama = await binding.getLlama({
        gpu: 'auto',
        build: 'never',
        maxThreads: threads,
        progressLogs: false,
        logLevel: binding.LlamaLogLevel.error,
        // llama.cpp's own lines would interleave with the answer: errors reach the user as ProviderErrors.
        logger: () => undefined,
      });
      return { binding, llama };
    } catch (error) {
      throw new ProviderError(
        'local',
        `no prebuilt llama.cpp binary loads on this machine (${process.platform}-${process.arch}): ${(error as Error).message}`,
        { retryable: false, cause: error },
      );
    }
  })();
  // A failed load may succeed later (after an install): do not keep the failure.
  shared.catch(() => {
    shared = undefined;
  });
  return shared;
}

/** Loads a model file and creates its context. The caller disposes both (see LocalProvider.close). */
export async function loadLocalModel(options: LoadLocalModelOptions): Promise<LoadedModel> {
  const { binding, llama } = await sharedLlama(options.threads);
  const file = basename(options.modelPath);
  let model: LlamaModel;
  try {
    await refuseModelLargerThanMemory(binding, llama, options.modelPath);
    model = await llama.loadModel({
      modelPath: options.modelPath,
      ...definedProperties({ loadSignal: options.signal }),
    });
  } catch (error) {
    throw loadError(binding, error, `cannot load the model ${file}`);
  }
  try {
    const context = await model.createContext({
      contextSize: {
        max: Math.min(options.maxContextSize ?? DEFAULT_LOCAL_CONTEXT_SIZE, model.trainContextSize),
      },
      threads: options.threads,
      sequences: 1,
      ...definedProperties({ createSignal: options.signal }),
    });
    return { binding, model, context };
  } catch (error) {
    await model.dispose();
    throw loadError(binding, error, `cannot create a context for ${file}`);
  }
}

/**
 * Refuses a model whose weights alone are larger than the machine's memory, before llama.cpp maps
 * it. node-llama-cpp checks memory for the GPU and for the context, not for the weights on the CPU:
 * there llama.cpp maps the file and the machine would swap (or the process be killed) mid-answer.
 * The whole memory, not the free part: the weights are file pages the system can evict, and free
 * memory moves with every other program, where the total is a verdict that holds.
 */
async function refuseModelLargerThanMemory(binding: Binding, llama: Llama, modelPath: string): Promise<void> {
  const insights = await binding.GgufInsights.from(await binding.readGgufFileInfo(modelPath), llama);
  const needed = insights.modelSize;
  const total = totalmem();
  if (needed > total) {
    throw new ProviderError(
      'local',
      `cannot load the model ${basename(modelPath)}: its weights need ${gibibytes(needed)} GiB of memory and this machine has ${gibibytes(total)} GiB in all; choose a smaller model`,
      { retryable: false },
    );
  }
}

function gibibytes(bytes: number): string {
  return (bytes / 2 ** 30).toFixed(1);
}

function loadError(binding: Binding, error: unknown, what: string): Error {
  if (error instanceof ProviderError) return error;
  if (error instanceof binding.InsufficientMemoryError) {
    const free = (freemem() / 2 ** 30).toFixed(1);
    return new ProviderError(
      'local',
      `${what}: not enough memory on this machine (${free} GiB free): ${error.message}; choose a smaller model or close other programs`,
      { retryable: false, cause: error },
    );
  }
  return new ProviderError('local', `${what}: ${(error as Error).message}`, {
    retryable: false,
    cause: error,
  });
}
