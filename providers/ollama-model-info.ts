/**
 * The context window of an Ollama model, from `POST /api/show`. Ollama runs a model with the
 * window `num_ctx`: the model's own parameter when its Modelfile sets one, else the server's default
 * (`OLLAMA_CONTEXT_LENGTH`, 4096 unless the server was started with another), never more than what
 * the model was trained for (`<architecture>.context_length` in `model_info`). A prompt longer than
 * that is cut from the beginning without an error, so mcphost must keep within it on its own.
 */
import * as z from 'zod';
import type { OllamaHttp } from './ollama-http.js';
import { isSuccess, readText } from './ollama-stream.js';

/** Ollama's default `num_ctx` when neither the model nor the request sets one. */
export const OLLAMA_DEFAULT_CONTEXT_LENGTH = 4096;

const showSchema = z.object({
  parameters: z.string().optional(),
  model_info: z.record(z.string(), z.unknown()).optional(),
});

/** The window a `/api/show` answer implies; `undefined` when the answer says nothing usable. */
export function contextWindowFromShow(body: unknown): number | undefined {
  const show = showSchema.safeParse(body);
  if (!show.success) return undefined;
  const numCtx = /^num_ctx\s+(\d+)\s*$/m.exec(show.data.parameters ?? '')?.[1];
  if (numCtx !== undefined) return Number(numCtx);
  const trained = Object.entries(show.data.model_info ?? {}).find(([key]) =>
    key.endsWith('.context_length'),
  )?.[1];
  const trainedLength = typeof trained === 'number' && trained > 0 ? trained : undefined;
  return Math.min(trainedLength ?? OLLAMA_DEFAULT_CONTEXT_LENGTH, OLLAMA_DEFAULT_CONTEXT_LENGTH);
}

/** Asks Ollama at `host` about `model`. Any failure (old server, unknown model) gives `undefined`. */
export async function fetchOllamaContextWindow(
  http: OllamaHttp,
  request: {
    readonly host: string;
    readonly model: string;
    readonly headers: Readonly<Record<string, string>>;
  },
): Promise<number | undefined> {
  const signal = AbortSignal.timeout(5_000);
  try {
    const answer = await http({
      url: `${request.host}/api/show`,
      method: 'POST',
      headers: request.headers,
      body: JSON.stringify({ model: request.model }),
      signal,
    });
    if (!isSuccess(answer)) return undefined;
    return contextWindowFromShow(JSON.parse(await readText(answer.body)));
  } catch {
    return undefined;
  }
}
