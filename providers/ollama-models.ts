/**
 * Model management for Ollama, through the `ollama` client: what is installed, what is loaded,
 * pulling (with progress events) and removing. Used by the chat's offer to pull a missing model and
 * by `mcphost models`. Every failure is a {@link ProviderError} with the provider's messages
 * (ollama-errors.ts); an unknown name has `missingModel` set.
 */
import { ProviderError } from '../src/core/errors.js';
import {
  ollamaClient,
  ollamaConnection,
  type OllamaConnection,
  type OllamaConnectionOptions,
} from './ollama-connection.js';
import { toOllamaError } from './ollama-errors.js';
import { OllamaStreamError } from './ollama-stream.js';

/** One installed model (`/api/tags`). */
export interface OllamaModelSummary {
  /** The name with its tag, e.g. `qwen2.5:3b`, `llama3.2:latest`. */
  readonly name: string;
  /** Size on disk, in bytes. */
  readonly size: number;
  /** When it was last pulled or changed (ISO 8601, as Ollama sends it). */
  readonly modifiedAt: string;
  /** `3B`, `8.0B`…, when Ollama says. */
  readonly parameterSize?: string;
  /** `Q4_K_M`…, when Ollama says. */
  readonly quantization?: string;
}

/** One model loaded in memory (`/api/ps`). */
export interface OllamaRunningModel {
  readonly name: string;
  /** Bytes in memory, and of those in the GPU's. */
  readonly size: number;
  readonly sizeVram: number;
  /** When Ollama will unload it (ISO 8601). */
  readonly expiresAt: string;
}

/** A step of a pull, in order, as Ollama streams them. */
export type OllamaPullEvent =
  /** A step without a size: `pulling manifest`, `verifying sha256 digest`, `writing manifest`… */
  | { readonly type: 'status'; readonly status: string }
  /** Bytes of one layer: `completed` of `total` (Ollama sends `completed` only once started). */
  | {
      readonly type: 'progress';
      readonly status: string;
      readonly digest: string;
      readonly total: number;
      readonly completed: number;
    }
  /** The last event: the model is installed. */
  | { readonly type: 'done' };

/** The model operations on one Ollama server. */
export interface OllamaModels {
  /** The server's base URL, for messages. */
  readonly host: string;
  list(signal?: AbortSignal): Promise<OllamaModelSummary[]>;
  running(signal?: AbortSignal): Promise<OllamaRunningModel[]>;
  /** True when the server has `model` (`/api/show` answers). */
  has(model: string, signal?: AbortSignal): Promise<boolean>;
  /** Pulls `model`, one event per streamed line; ends after `done`. Abort with `signal`. */
  pull(model: string, signal?: AbortSignal): AsyncGenerator<OllamaPullEvent, void, undefined>;
  remove(model: string, signal?: AbortSignal): Promise<void>;
}

/**
 * The model operations on the server the options point to (`--provider-url`, `OLLAMA_HOST`, the
 * default local port), with the same key rules as the provider.
 *
 * @throws ConfigError when the address is not one.
 */
export function ollamaModels(options: OllamaConnectionOptions): OllamaModels {
  return ollamaModelsOver(ollamaConnection(options));
}

/** The model operations over a connection already made (the provider's own). */
export function ollamaModelsOver(connection: OllamaConnection): OllamaModels {
  const failure = (error: unknown, model = ''): ProviderError | Error =>
    toOllamaError(error, { host: connection.host, model });
  return {
    host: connection.host,
    list: async (signal) => {
      try {
        const answer = await (await ollamaClient(connection, signal)).list();
        return answer.models.map(toSummary);
      } catch (error) {
        throw failure(error);
      }
    },
    running: async (signal) => {
      try {
        const answer = await (await ollamaClient(connection, signal)).ps();
        return answer.models.map((model) => ({
          name: model.name,
          size: model.size,
          sizeVram: model.size_vram,
          expiresAt: String(model.expires_at),
        }));
      } catch (error) {
        throw failure(error);
      }
    },
    has: (model, signal) => hasModel(connection, model, signal),
    pull: (model, signal) => pullModel(connection, model, signal),
    remove: async (model, signal) => {
      try {
        await (await ollamaClient(connection, signal)).delete({ model });
      } catch (error) {
        throw failure(error, model);
      }
    },
  };
}

async function hasModel(connection: OllamaConnection, model: string, signal?: AbortSignal): Promise<boolean> {
  try {
    await (await ollamaClient(connection, signal)).show({ model });
    return true;
  } catch (error) {
    const mapped = toOllamaError(error, { host: connection.host, model });
    if ('missingModel' in mapped && mapped.missingModel !== undefined) return false;
    throw mapped;
  }
}

async function* pullModel(
  connection: OllamaConnection,
  model: string,
  signal?: AbortSignal,
): AsyncGenerator<OllamaPullEvent, void, undefined> {
  try {
    const client = await ollamaClient(connection, signal);
    for await (const line of await client.pull({ model, stream: true })) {
      if (line.status === 'success') {
        yield { type: 'done' };
        return;
      }
      yield typeof line.total === 'number' && line.total > 0
        ? {
            type: 'progress',
            status: line.status,
            digest: typeof line.digest === 'string' ? line.digest : '',
            total: line.total,
            completed: typeof line.completed === 'number' ? line.completed : 0,
          }
        : { type: 'status', status: line.status };
    }
  } catch (error) {
    // Ollama says so after `pulling manifest`, on an answer already 200: an error line.
    if (error instanceof OllamaStreamError && /file does not exist|not found/i.test(error.message)) {
      throw new ProviderError('ollama', `Ollama's library has no model "${model}" (${error.message})`, {
        retryable: false,
        missingModel: model,
        cause: error,
      });
    }
    throw toOllamaError(error, { host: connection.host, model });
  }
}

function toSummary(model: {
  readonly name: string;
  readonly size: number;
  readonly modified_at: unknown;
  readonly details?: { readonly parameter_size?: string; readonly quantization_level?: string };
}): OllamaModelSummary {
  const parameterSize = model.details?.parameter_size;
  const quantization = model.details?.quantization_level;
  return {
    name: model.name,
    size: model.size,
    modifiedAt: String(model.modified_at),
    ...(parameterSize === undefined || parameterSize === '' ? {} : { parameterSize }),
    ...(quantization === undefined || quantization === '' ? {} : { quantization }),
  };
}
