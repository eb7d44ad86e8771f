/**
 * `mcphost -p` and `mcphost script`: one prompt, one answer. What reaches stdout and stderr is the
 * reporter's business (text, `--quiet`, `json`, `stream-json`: see `output/`).
 */
import type { McpRunner } from '../setup/create-runner.js';
import { modelNameOf } from './sessions/conversation-recorder.js';
import { ExitCode, type ExitCodeValue } from './exit-codes.js';
import { attachFiles, processPlaces } from './file-attachments.js';
import type { Reporter } from './output/reporter.js';
import type { JsonSchemaObject } from '../core/types.js';
import { definedProperties } from '../util/defined-properties.js';

export { modelNameOf } from './sessions/conversation-recorder.js';

export interface OneShotOptions {
  /** The prompt, stdin and script variables already folded in. */
  readonly prompt: string;
  readonly reporter: Reporter;
  /** Cancels the run (Ctrl-C, SIGTERM). */
  readonly signal: AbortSignal;
  /** `--output-schema`: the answer must be JSON valid against it (exit 7 when it never is). */
  readonly outputSchema?: JsonSchemaObject;
}

/**
 * Runs the prompt and reports it. Resolves with exit code 0 once the model answered; throws the
 * run's error otherwise (the caller reports it, with the exit code it maps to).
 */
export async function runOneShot(runner: McpRunner, options: OneShotOptions): Promise<ExitCodeValue> {
  const { reporter } = options;
  const tools = await runner.pool.describeTools();
  reporter.start({ model: modelNameOf(runner.provider), servers: runner.servers, tools });
  // `@path` files are read first: a missing or unfit file is a ConfigError and nothing is sent.
  const files = await attachFiles(options.prompt, processPlaces());
  // `/server:prompt args` and `@server:uri` are filled in first: a missing required argument is a
  // ConfigError (exit 2) naming the prompt's arguments, an unreadable resource a ServerError.
  // A format that reports updates (stream-json) hears of changes to the resources attached.
  const turn = await runner.mcp.expandUserTurn(options.prompt, {
    signal: options.signal,
    subscribe: reporter.offeringsChange !== undefined,
  });
  for (const note of [...files.notes, ...turn.notes]) reporter.note(note);
  const result = await runner.run([...turn.content, ...files.blocks], {
    signal: options.signal,
    onEvent: (event) => reporter.event(event),
    ...definedProperties({ outputSchema: options.outputSchema }),
  });
  reporter.succeed(result);
  return ExitCode.ok;
}
