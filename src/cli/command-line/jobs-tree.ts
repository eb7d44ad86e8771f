/**
 * `mcphost jobs submit|status|results|cancel|retry|recover` and `mcphost worker` in the yargs
 * command tree: parsing only. The handlers live in jobs-commands.ts, which `main` imports (with
 * DBOS) only when one runs. Numbers are read as text and checked here, so a bad one names its flag.
 */
import type { Argv, CommandModule } from 'yargs';
import { ConfigError } from '../../core/errors.js';
import { nearest } from './suggest.js';

/** The limits `jobs submit` sets on the queues of its jobs' models. */
export interface QueueLimitFlags {
  readonly workerConcurrency?: number;
  readonly globalConcurrency?: number;
  readonly rateLimit?: { readonly limitPerPeriod: number; readonly periodSec: number };
}

/** `mcphost jobs …`. `db` is `--db` when given (else the environment's). */
export type JobsCommand = { readonly db: string | undefined } & (
  | {
      readonly action: 'submit';
      readonly file: string;
      readonly model: string | undefined;
      readonly vars: readonly string[];
      readonly limits: QueueLimitFlags | undefined;
    }
  | { readonly action: 'status'; readonly keys: readonly string[]; readonly follow: boolean }
  | { readonly action: 'results'; readonly keys: readonly string[] }
  | { readonly action: 'cancel'; readonly keys: readonly string[] }
  | { readonly action: 'retry'; readonly keys: readonly string[] }
  | {
      readonly action: 'recover';
      readonly executors: readonly string[];
      readonly deadAfterMs: number | undefined;
    }
);

/** `mcphost worker …`. */
export interface WorkerCommand {
  readonly db: string | undefined;
  readonly configPath: string | undefined;
  readonly model: string | undefined;
  readonly executorId: string | undefined;
  readonly deadAfterMs: number | undefined;
  readonly maxSteps: number | undefined;
  readonly debug: boolean;
}

/** The sub-commands, for typo suggestions and completion. */
export const JOBS_SUBCOMMANDS = ['submit', 'status', 'results', 'cancel', 'retry', 'recover'] as const;

type Values = Readonly<Record<string, unknown>>;

function subcommand(
  parser: Argv,
  spec: string,
  describe: string,
  builder: (sub: Argv) => Argv,
  handler: (values: Values) => void,
): Argv {
  // One loose signature for every sub-command, as in args.ts: the values are checked here.
  return parser.command({ command: spec, describe, builder, handler } as CommandModule);
}

const DB_OPTION = {
  type: 'string',
  describe:
    "the jobs database, postgres://… (default: $MCPHOST_DATABASE_URL, else the config's jobs.database)",
} as const;

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function texts(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : typeof value === 'string' ? [value] : [];
}

function positiveInteger(value: unknown, flag: string): number | undefined {
  const raw = text(value);
  if (raw === undefined) return undefined;
  if (!/^[1-9][0-9]*$/.test(raw)) throw new ConfigError(flag, `"${raw}" is not a positive whole number`);
  return Number(raw);
}

function seconds(value: unknown, flag: string): number | undefined {
  const raw = text(value);
  if (raw === undefined) return undefined;
  const parsed = Number(raw);
  if (!Number.isFinite(parsed) || parsed <= 0)
    throw new ConfigError(flag, `"${raw}" is not a number of seconds`);
  return parsed * 1000;
}

/** `--rate 50/60`: at most 50 jobs started per 60 seconds. */
function rate(value: unknown): QueueLimitFlags['rateLimit'] {
  const raw = text(value);
  if (raw === undefined) return undefined;
  const match = /^([1-9][0-9]*)\/([0-9]+(?:\.[0-9]+)?)$/.exec(raw);
  if (match === null || Number(match[2]) <= 0) {
    throw new ConfigError('--rate', `"${raw}" is not N/SECONDS (e.g. 50/60: 50 jobs a minute)`);
  }
  return { limitPerPeriod: Number(match[1]), periodSec: Number(match[2]) };
}

function limitsOf(values: Values): QueueLimitFlags | undefined {
  const workerConcurrency = positiveInteger(values.concurrency, '--concurrency');
  const globalConcurrency = positiveInteger(values['global-concurrency'], '--global-concurrency');
  const rateLimit = rate(values.rate);
  if (workerConcurrency === undefined && globalConcurrency === undefined && rateLimit === undefined)
    return undefined;
  return {
    ...(workerConcurrency === undefined ? {} : { workerConcurrency }),
    ...(globalConcurrency === undefined ? {} : { globalConcurrency }),
    ...(rateLimit === undefined ? {} : { rateLimit }),
  };
}

/** The `jobs` command's sub-commands; `choose` receives the one the command line names. */
export function jobsCommands(parser: Argv, choose: (command: JobsCommand) => void): Argv {
  let tree: Argv = parser.option('db', DB_OPTION);
  tree = subcommand(
    tree,
    'submit [file]',
    'enqueue the jobs of a JSONL file for the workers (a job id already submitted is not run again)',
    (sub) =>
      sub
        .option('model', { alias: 'm', type: 'string', describe: 'the model of jobs that name none' })
        .option('var', { type: 'string', array: true, describe: 'NAME=VALUE for the prompt templates' })
        .option('concurrency', {
          type: 'string',
          describe: "jobs of a model each worker runs at once (the model's queue)",
        })
        .option('global-concurrency', {
          type: 'string',
          describe: 'jobs of a model running at once over all workers',
        })
        .option('rate', {
          type: 'string',
          describe: 'N/SECONDS: jobs of a model started per period over all workers',
        }),
    (values) =>
      choose({
        action: 'submit',
        db: text(values.db),
        file: required(values.file, 'jobs submit', 'give the jobs file: mcphost jobs submit FILE.jsonl'),
        model: text(values.model),
        vars: texts(values.var),
        limits: limitsOf(values),
      }),
  );
  tree = subcommand(
    tree,
    'status [keys..]',
    'count the jobs by state, or list the given ones; --follow KEY prints its text as it comes',
    (sub) =>
      sub.option('follow', {
        alias: 'f',
        type: 'boolean',
        describe: "print one job's text as the model writes it",
      }),
    (values) =>
      choose({
        action: 'status',
        db: text(values.db),
        keys: texts(values.keys),
        follow: values.follow === true,
      }),
  );
  tree = subcommand(
    tree,
    'results [keys..]',
    'print finished jobs as JSON lines (the batch result format)',
    (sub) => sub,
    (values) => choose({ action: 'results', db: text(values.db), keys: texts(values.keys) }),
  );
  tree = subcommand(
    tree,
    'cancel [keys..]',
    'cancel jobs (a running one stops at its next step)',
    (sub) => sub,
    (values) => {
      const keys = texts(values.keys);
      if (keys.length === 0)
        throw new ConfigError('jobs cancel', 'give the jobs to cancel: mcphost jobs cancel KEY…');
      choose({ action: 'cancel', db: text(values.db), keys });
    },
  );
  tree = subcommand(
    tree,
    'retry [keys..]',
    'run failed or cancelled jobs again from their last step (default: all of them)',
    (sub) => sub,
    (values) => choose({ action: 'retry', db: text(values.db), keys: texts(values.keys) }),
  );
  tree = subcommand(
    tree,
    'recover',
    "move a dead worker's jobs onto the live workers",
    (sub) =>
      sub
        .option('executor', {
          type: 'string',
          array: true,
          describe: 'the executor id of a worker that is gone',
        })
        .option('dead-after', {
          type: 'string',
          describe: 'else: workers not seen for this many seconds (default 60)',
        }),
    (values) =>
      choose({
        action: 'recover',
        db: text(values.db),
        executors: executorsOf(values.executor),
        deadAfterMs: seconds(values['dead-after'], '--dead-after'),
      }),
  );
  // The default command catches `jobs` alone and `jobs TYPO`: yargs' own messages for them name
  // neither the command nor what was meant.
  return tree.command({
    command: '$0 [command]',
    describe: false,
    handler: (values: Values) => {
      const typed = text(values.command);
      const choices = JOBS_SUBCOMMANDS.join(', ');
      if (typed === undefined) throw new ConfigError('jobs', `needs a command: ${choices}`);
      const meant = nearest(typed, JOBS_SUBCOMMANDS);
      throw new ConfigError(
        'jobs',
        `unknown command "${typed}"${meant === undefined ? '' : `: did you mean ${meant}?`} (commands: ${choices})`,
      );
    },
  } as CommandModule);
}

/** `--executor ID…`: given without an id, it would silently mean "every dead worker". */
function executorsOf(value: unknown): string[] {
  const executors = texts(value).filter((id) => id !== '');
  if (value !== undefined && executors.length === 0) {
    throw new ConfigError('--executor', "give a worker's executor id: mcphost jobs recover --executor ID");
  }
  return executors;
}

function required(value: unknown, command: string, hint: string): string {
  const given = text(value);
  if (given === undefined) throw new ConfigError(command, hint);
  return given;
}

/** The `worker` command's flags. */
export function workerFlags(parser: Argv): Argv {
  return parser
    .option('db', DB_OPTION)
    .option('config', { type: 'string', describe: 'read the servers and settings from this config file' })
    .option('model', {
      alias: 'm',
      type: 'string',
      describe: 'the model whose provider is made at start (others on first use)',
    })
    .option('executor-id', {
      type: 'string',
      describe: "this worker's id; the same id started again resumes its jobs (default host:pid)",
    })
    .option('dead-after', {
      type: 'string',
      describe: 'recover the jobs of workers not seen for this many seconds (default 60; 0: never)',
    })
    .option('max-steps', { type: 'string', describe: 'model calls per job' })
    .option('debug', { type: 'boolean', describe: "DBOS's own log lines on stderr" });
}

/** Reads the `worker` command's values. */
export function workerCommandOf(values: Values): WorkerCommand {
  const deadAfter = text(values['dead-after']);
  return {
    db: text(values.db),
    configPath: text(values.config),
    model: text(values.model),
    executorId: text(values['executor-id']),
    deadAfterMs: deadAfter === '0' ? 0 : seconds(values['dead-after'], '--dead-after'),
    maxSteps: positiveInteger(values['max-steps'], '--max-steps'),
    debug: values.debug === true,
  };
}
