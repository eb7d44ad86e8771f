/** `mcphost -p`: the answer streams to stdout; tool activity, retries and notes go to stderr. */
import type { RunnerEvent } from '../events.js';
import type { Runner } from '../runner.js';
import { describeToolCall, describeToolResult } from './activity.js';
import { ExitCode, type ExitCodeValue } from './exit-codes.js';
import { notice, type CliIO } from './io.js';

export async function runOneShot(
  runner: Runner,
  prompt: string,
  io: CliIO,
  signal: AbortSignal,
): Promise<ExitCodeValue> {
  const output = new AnswerWriter(io);
  const result = await runner.run(prompt, {
    signal,
    onEvent: (event) => reportEvent(event, io, output),
  });
  output.finish();
  if (result.stopReason === 'length')
    notice(io, 'the answer was cut at the token limit (raise --max-tokens)');
  if (result.stopReason === 'content-filter') notice(io, "the provider's content filter stopped the answer");
  return ExitCode.ok;
}

/** Shows a run's events as they happen: text to stdout, everything else to stderr. */
export function reportEvent(event: RunnerEvent, io: CliIO, output: AnswerWriter): void {
  switch (event.type) {
    case 'text-delta':
      output.write(event.text);
      return;
    case 'tool-call':
      output.breakLine();
      io.stderr.write(`${describeToolCall(event.call)}\n`);
      return;
    case 'tool-result':
      io.stderr.write(`${describeToolResult(event.record)}\n`);
      return;
    case 'retry':
      notice(
        io,
        `${event.error.message} — retrying in ${(event.delayMs / 1000).toFixed(1)}s (retry ${event.attempt})`,
      );
      return;
    case 'step-finish':
      output.breakLine();
      return;
    case 'step-start':
    case 'done':
      return;
    default: {
      const unexpected: never = event;
      throw new TypeError(`unknown event ${JSON.stringify(unexpected)}`);
    }
  }
}

/** Streams text to stdout and keeps lines tidy between steps and at the end. */
export class AnswerWriter {
  readonly #io: CliIO;
  #atLineStart = true;

  constructor(io: CliIO) {
    this.#io = io;
  }

  write(text: string): void {
    if (text === '') return;
    this.#io.stdout.write(text);
    this.#atLineStart = text.endsWith('\n');
  }

  /** Ends the current line if text was left without a newline. */
  breakLine(): void {
    if (!this.#atLineStart) this.write('\n');
  }

  finish(): void {
    this.breakLine();
  }
}
