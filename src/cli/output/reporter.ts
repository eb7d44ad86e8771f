/**
 * How a one-shot run is shown: as text (the answer on stdout, activity on stderr), as one JSON
 * object, or as a stream of JSON lines. main.ts drives a {@link Reporter} through the command's
 * life; each format decides what reaches stdout and stderr.
 */
import type { CliIO } from '../io.js';
import { JsonReporter, StreamJsonReporter } from './json.js';
import { OUTPUT_FORMATS, type OutputFormat } from './schema.js';
import { TextReporter } from './text.js';

import type { Reporter } from './reporter-contract.js';

export type { KnownDetails, Reporter, RunContext } from './reporter-contract.js';

/** How to build a reporter. */
export interface ReporterOptions {
  readonly format: OutputFormat;
  /** The answer alone on stdout; on stderr, errors only. */
  readonly quiet: boolean;
  /** Stack traces in error lines. */
  readonly debug: boolean;
  /**
   * `--output-schema`: the answer is JSON checked against a schema. Text output then prints the
   * validated JSON alone, once (answers the Runner refused are not shown).
   */
  readonly structured?: boolean;
  /** The clock, for `durationMs`. */
  readonly now?: () => number;
}

export function createReporter(options: ReporterOptions, io: CliIO): Reporter {
  const now = options.now ?? Date.now;
  switch (options.format) {
    case 'text':
      return new TextReporter(io, options.quiet, options.debug, options.structured === true);
    case 'json':
      return new JsonReporter(io, { ...options, now });
    case 'stream-json':
      return new StreamJsonReporter(io, { ...options, now });
    default: {
      const unexpected: never = options.format;
      throw new TypeError(`unknown output format ${String(unexpected)}`);
    }
  }
}

/**
 * The output format argv asks for, read without the parser: when the arguments themselves are wrong,
 * a script that asked for JSON must still get JSON. Anything unclear means text.
 */
export function outputFormatOfArgv(argv: readonly string[]): OutputFormat {
  let value: string | undefined;
  argv.forEach((argument, index) => {
    if (argument === '--output-format') value = argv[index + 1];
    else if (argument.startsWith('--output-format=')) value = argument.slice('--output-format='.length);
  });
  return OUTPUT_FORMATS.find((format) => format === value) ?? 'text';
}
