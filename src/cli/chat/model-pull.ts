/**
 * The chat's offer to pull an Ollama model that is not there: one question on the chat's prompt,
 * then the client's streamed pull as a progress bar (size and percent), redrawn in place on a
 * terminal and one line per step otherwise. `-p` never gets here: it fails with the same one line
 * (`run \`ollama pull NAME\``) and its exit code.
 */
import { AbortedError, messageOf, ProviderError } from '../../core/errors.js';
import type { Provider } from '../../core/types.js';
import { OllamaProvider } from '../../../providers/ollama.js';
import type { OllamaPullEvent } from '../../../providers/ollama-models.js';
import type { Display } from './display.js';
import type { Prompter } from './prompter.js';
import { formatBytes } from '../output/download-progress.js';

/** What the offer needs from the chat. */
export interface PullOfferContext {
  readonly provider: Provider;
  readonly prompter: Prompter;
  readonly display: Display;
  readonly stdout: { write(text: string): unknown };
  readonly signal: AbortSignal;
}

/**
 * When `error` says the Ollama model is missing, asks whether to pull it and pulls it with a
 * progress bar. True when the model is now there (the turn may be tried again).
 */
export async function offerModelPull(error: unknown, context: PullOfferContext): Promise<boolean> {
  const { provider, display, stdout } = context;
  if (!(error instanceof ProviderError) || error.missingModel === undefined) return false;
  if (!(provider instanceof OllamaProvider)) return false;
  const model = error.missingModel;
  let answer: string;
  try {
    answer = await context.prompter.ask(`Pull ${model} from Ollama at ${provider.host} now? [y/N] `, {
      signal: context.signal,
    });
  } catch {
    return false;
  }
  if (!/^\s*y(es)?\s*$/i.test(answer)) return false;
  const bar = new PullProgress(display, stdout);
  try {
    for await (const event of provider.models().pull(model, context.signal)) bar.show(event);
    bar.end(`pulled ${model}`);
    return true;
  } catch (failure) {
    bar.end(
      failure instanceof AbortedError || context.signal.aborted ? 'pull cancelled' : messageOf(failure),
    );
    return false;
  }
}

/** The width of the bar itself, in cells. */
const BAR_CELLS = 24;

/** One line per step, the current one redrawn in place while it grows (on a terminal). */
class PullProgress {
  readonly #display: Display;
  readonly #stdout: { write(text: string): unknown };
  /** The status the line on screen shows (a new one starts a new line). */
  #status: string | undefined;

  constructor(display: Display, stdout: { write(text: string): unknown }) {
    this.#display = display;
    this.#stdout = stdout;
  }

  show(event: OllamaPullEvent): void {
    if (event.type === 'done') return;
    const line = pullProgressLine(event);
    const sameStep = event.status === this.#status;
    if (this.#display.terminal) {
      this.#stdout.write(
        sameStep ? `\r\u001b[2K${line}` : `${this.#status === undefined ? '' : '\n'}${line}`,
      );
    } else if (!sameStep || (event.type === 'progress' && event.completed === event.total)) {
      // Not a terminal: no redrawing, so a line when a step starts and when a layer is complete.
      this.#stdout.write(`${line}\n`);
    }
    this.#status = event.status;
  }

  end(text: string): void {
    const after = this.#display.terminal && this.#status !== undefined ? '\n' : '';
    this.#stdout.write(`${after}${this.#display.style.dim(text)}\n`);
  }
}

/** `pulling 8eeb52dfb3bb  45% [##########--------------] 0.9 GB/2.0 GB`, or the status alone. */
export function pullProgressLine(event: Exclude<OllamaPullEvent, { type: 'done' }>): string {
  if (event.type === 'status') return event.status;
  const share = event.total > 0 ? Math.min(1, event.completed / event.total) : 0;
  const filled = Math.round(share * BAR_CELLS);
  const percent = `${Math.floor(share * 100)}%`.padStart(4);
  const bar = `[${'#'.repeat(filled)}${'-'.repeat(BAR_CELLS - filled)}]`;
  return `${event.status} ${percent} ${bar} ${formatBytes(event.completed)}/${formatBytes(event.total)}`;
}
