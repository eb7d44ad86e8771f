/**
 * The window mcphost runs an Ollama model with. Ollama runs a model with the window `num_ctx` of
 * the request, else the Modelfile's, else the server's default (4096 before Ollama 0.6, and what
 * `OLLAMA_CONTEXT_LENGTH` says), and cuts a longer prompt from its beginning without an error. So
 * mcphost does not guess: it chooses a window, sends it as `options.num_ctx` on every chat, and
 * budgets the conversation with the same figure (Provider.contextWindow):
 * - `contextWindow` from the flag or config, when given;
 * - else the Modelfile's `num_ctx`, when the model's creator set one;
 * - else the smaller of the model's trained length (`<architecture>.context_length` in
 *   `/api/show`'s `model_info`) and {@link DEFAULT_OLLAMA_WINDOW};
 * and, but for the user's own figure, never more than the trained length.
 */
import type { ShowResponse } from 'ollama/browser';

/**
 * The default window: 32k tokens hold a system prompt, a few dozen tool definitions and a long task,
 * and cost a few GB of KV cache on a 7–8B model; a larger window is a choice (`contextWindow`).
 */
export const DEFAULT_OLLAMA_WINDOW = 32_768;

/** What `/api/show` says about a model's window. */
export interface OllamaModelWindow {
  /** `<architecture>.context_length` of `model_info`: what the model was trained for. */
  readonly trained: number | undefined;
  /** `num_ctx` in the Modelfile's parameters. */
  readonly modelfile: number | undefined;
}

/** Reads the two figures from an `/api/show` answer (fields missing or odd count as unknown). */
export function modelWindowFromShow(show: Partial<ShowResponse> | undefined): OllamaModelWindow {
  const numCtx = /^num_ctx\s+(\d+)\s*$/m.exec(
    typeof show?.parameters === 'string' ? show.parameters : '',
  )?.[1];
  // Typed as a Map by the client, but JSON gives a plain object.
  const info = show?.model_info as unknown;
  const entries: Array<[string, unknown]> =
    typeof info === 'object' && info !== null ? Object.entries(info) : [];
  const trained = entries.find(([key]) => key.endsWith('.context_length'))?.[1];
  return {
    trained: positive(trained),
    modelfile: positive(numCtx === undefined ? undefined : Number(numCtx)),
  };
}

/** The window to send and budget with (see the rules above). */
export function chooseOllamaWindow(model: OllamaModelWindow, override?: number): number {
  if (override !== undefined) return override;
  const wanted = model.modelfile ?? DEFAULT_OLLAMA_WINDOW;
  return model.trained === undefined ? wanted : Math.min(wanted, model.trained);
}

/**
 * Whether `/api/show` lists the `tools` capability (Ollama 0.6 and later report `capabilities`;
 * a model whose template has no tool section lacks it, and Ollama refuses any chat with tools for
 * it). `undefined` when the answer has no capabilities (an older server): unknown.
 */
export function toolsFromShow(show: Partial<ShowResponse> | undefined): boolean | undefined {
  const capabilities = (show as { capabilities?: unknown } | undefined)?.capabilities;
  return Array.isArray(capabilities) ? capabilities.includes('tools') : undefined;
}

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}
