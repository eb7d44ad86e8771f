/**
 * `mcphost batch FILE.jsonl --out results.jsonl` in the yargs command tree: its own flags and
 * their checks. The chat's model and config flags come with it (args.ts); the run is in
 * src/cli/batch/batch-command.ts, imported only when a batch runs.
 */
import type { Argv } from 'yargs';
import { ConfigError } from '../../core/errors.js';
import { parseVarArguments } from '../../batch/var-arguments.js';

/** What `mcphost batch` was asked to do, checked. */
export interface BatchCommand {
  /** The jobs file (JSONL: one job, or one plain-text prompt, a line). */
  readonly file: string;
  /** The results file: appended to, one line per job; jobs found in it are skipped. */
  readonly out: string;
  readonly concurrency?: number;
  readonly retries?: number;
  /** `--var name=value`, for every job's `{{name}}`. */
  readonly vars: Readonly<Record<string, string>>;
  /** `--template TEXT`: the prompt of lines that carry only `vars`. */
  readonly template?: string;
  /** Run jobs again whose last recorded result failed. */
  readonly retryFailed: boolean;
}

/** The batch flags (the chat's flags are added by args.ts). */
export function withBatchFlags(parser: Argv): Argv {
  return parser
    .option('out', {
      type: 'string',
      describe: 'results file (JSONL), appended; jobs already in it are skipped',
    })
    .option('concurrency', { type: 'string', describe: 'jobs run at once (default 4)' })
    .option('var', { type: 'string', array: true, describe: 'NAME=VALUE for {{NAME}} in every prompt' })
    .option('template', { type: 'string', describe: 'prompt of lines that carry only "vars"' })
    .option('retries', {
      type: 'string',
      describe: 'attempts after the first for failures that may pass (default 2)',
    })
    .option('retry-failed', { type: 'boolean', describe: 'run jobs again whose recorded result failed' });
}

/** Reads the batch flags; a bad one is a ConfigError naming it. */
export function batchCommandOf(file: string, values: Readonly<Record<string, unknown>>): BatchCommand {
  const out = lastString(values.out);
  if (out === undefined || out === '') {
    throw new ConfigError('--out', 'mcphost batch needs a results file: --out results.jsonl');
  }
  const vars = values.var === undefined ? [] : [values.var].flat().map(String);
  let parsedVars: Record<string, string>;
  try {
    parsedVars = parseVarArguments(vars);
  } catch (error) {
    throw new ConfigError(
      '--var',
      error instanceof Error ? error.message.replace(/^--var /, '') : String(error),
    );
  }
  const concurrency = count('--concurrency', lastString(values.concurrency), 1);
  const retries = count('--retries', lastString(values.retries), 0);
  const template = lastString(values.template);
  return {
    file,
    out,
    vars: parsedVars,
    retryFailed: values['retry-failed'] === true,
    ...(concurrency === undefined ? {} : { concurrency }),
    ...(retries === undefined ? {} : { retries }),
    ...(template === undefined ? {} : { template }),
  };
}

function lastString(value: unknown): string | undefined {
  const last: unknown = Array.isArray(value) ? (value as unknown[]).at(-1) : value;
  return typeof last === 'string' ? last : undefined;
}

function count(flag: string, text: string | undefined, least: number): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === '' || !Number.isInteger(value) || value < least) {
    throw new ConfigError(flag, `expected a whole number of at least ${least}, got "${text}"`);
  }
  return value;
}
