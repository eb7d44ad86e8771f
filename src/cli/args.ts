/**
 * The command tree, on yargs: the chat and `-p` (the default command), `script FILE`,
 * `mcp add|add-json|list|get|remove`, `auth login|status|logout`, `models list|pull|rm`, and `completion`. Parsing only decides what to run; nothing
 * heavy is imported here, and `main` imports the one module the command needs afterwards.
 */
import yargs, { type Argv } from 'yargs';
import { ConfigError } from '../core/errors.js';
import { definedProperties } from '../util/defined-properties.js';
import { CHAT_FLAGS, toCliOptions, type CliOptions, type ParsedValues } from './command-line/flags.js';
import { nearest } from './command-line/suggest.js';
import { AUTH_SUBCOMMANDS, authCommands, type AuthCommand } from './command-line/auth-tree.js';
import { batchCommandOf, withBatchFlags, type BatchCommand } from './command-line/batch-tree.js';
import { MODELS_SUBCOMMANDS, modelsCommands, type ModelsCommand } from './command-line/models-tree.js';
import {
  JOBS_SUBCOMMANDS,
  jobsCommands,
  workerCommandOf,
  workerFlags,
  type JobsCommand,
  type WorkerCommand,
} from './command-line/jobs-tree.js';
import { splitScriptArguments } from './script/script-arguments.js';
import { mcpCommands, type McpCommand } from './command-line/mcp-tree.js';
import { command, noOptions, stringValue } from './command-line/yargs-command.js';

export type { CliOptions, ScriptCommand } from './command-line/flags.js';
export type { AuthCommand } from './command-line/auth-tree.js';
export type { ModelsCommand } from './command-line/models-tree.js';
export type { JobsCommand, WorkerCommand } from './command-line/jobs-tree.js';
export type { McpCommand } from './command-line/mcp-tree.js';

/** What the command line asks for. */
export type ParsedArguments =
  | { readonly kind: 'run'; readonly options: CliOptions }
  | { readonly kind: 'print'; readonly text: string }
  | { readonly kind: 'mcp'; readonly command: McpCommand; readonly configPath?: string }
  | { readonly kind: 'auth'; readonly command: AuthCommand; readonly configPath?: string }
  | { readonly kind: 'models'; readonly command: ModelsCommand }
  | { readonly kind: 'agents-list'; readonly configPath?: string }
  | { readonly kind: 'batch'; readonly options: CliOptions; readonly batch: BatchCommand }
  | { readonly kind: 'jobs'; readonly command: JobsCommand }
  | { readonly kind: 'worker'; readonly command: WorkerCommand }
  | { readonly kind: 'completion'; readonly shell: 'bash' | 'zsh' }
  | { readonly kind: 'acp'; readonly options: CliOptions };

/** Commands and sub-commands, for typo suggestions. */
const COMMANDS = [
  'script',
  'mcp',
  'auth',
  'completion',
  'add',
  'add-json',
  'list',
  'get',
  'remove',
  'pins',
  'reset',
  ...AUTH_SUBCOMMANDS,
  'models',
  ...MODELS_SUBCOMMANDS,
  'agents',
  'batch',
  'jobs',
  ...JOBS_SUBCOMMANDS,
  'worker',
  'acp',
];

const EXAMPLES: ReadonlyArray<readonly [string, string]> = [
  ['mcphost -m ollama:qwen2.5:3b', 'chat with a local model and the tools in ~/.mcp.json'],
  ['mcphost -m anthropic:claude-sonnet-4-5 -p "Hi"', 'one answer on stdout, then exit'],
  ['git diff | mcphost -p "Review this" --quiet', 'stdin is added to the prompt'],
  ['mcphost -c', 'continue the latest conversation of this folder'],
  ['mcphost mcp add time -- uvx mcp-server-time', 'add a server to ~/.mcp.json'],
  ['mcphost script review.md --args:file src/main.ts', 'run a script file with a variable'],
  ['mcphost auth login linear', 'sign in to a remote server in the browser'],
];

const EPILOGUE = [
  'Providers: ollama, anthropic, google (or gemini), openai. Docs: docs/cli.md.',
  'Exit codes: 0 ok, 1 internal, 2 usage/config, 3 provider, 4 max steps,',
  '  5 no server started (library), 6 prompt blocked by a hook, 10 jobs database unreachable,',
  '  129/130/143 SIGHUP/Ctrl-C/SIGTERM, 141 stdout closed.',
].join('\n');

function withChatFlags(parser: Argv): Argv {
  for (const flag of CHAT_FLAGS) {
    parser.option(flag.name, {
      describe: flag.describe,
      // Numbers are read as text and checked by us, so that a bad one is named with its flag.
      type: flag.kind === 'boolean' ? 'boolean' : 'string',
      ...(flag.kind === 'strings' ? { array: true } : {}),
      ...(flag.short === undefined ? {} : { alias: flag.short }),
      ...(flag.value === undefined ? {} : { requiresArg: false }),
      ...(flag.defaultValue === undefined ? {} : { default: flag.defaultValue }),
    });
  }
  return parser;
}

type Chosen =
  | { readonly kind: 'chat' }
  | { readonly kind: 'script'; readonly path: string }
  | { readonly kind: 'mcp'; readonly command: McpCommand }
  | { readonly kind: 'auth'; readonly command: AuthCommand }
  | { readonly kind: 'models'; readonly command: ModelsCommand }
  | { readonly kind: 'agents-list' }
  | { readonly kind: 'batch'; readonly file: string }
  | { readonly kind: 'jobs'; readonly command: JobsCommand }
  | { readonly kind: 'worker'; readonly command: WorkerCommand }
  | { readonly kind: 'completion'; readonly shell: string }
  | { readonly kind: 'acp' };

/** Parses argv (without `node` and the script). Throws ConfigError naming the flag on bad input. */
export function parseArguments(argv: readonly string[], version: string, columns = 100): ParsedArguments {
  // `--args:name` options are the script's, not ours: they are taken out before parsing.
  const split = splitScriptArguments(argv);
  let chosen: Chosen | undefined;
  let failure: string | undefined;
  let printed = '';
  // yargs passes null or undefined for what it does not have (its types say otherwise).
  const onFailure = (message: string | null, error: Error | null): void => {
    failure = message ?? error?.message ?? 'invalid command line';
  };
  let parser = yargs().scriptName('mcphost').exitProcess(false).parserConfiguration({ 'populate--': true });
  parser = command(
    parser,
    '$0',
    'chat, or one answer with -p',
    withChatFlags,
    () => (chosen = { kind: 'chat' }),
  );
  parser = command(
    parser,
    'script <file>',
    'run a script file (--args:NAME VALUE fills its variables)',
    withChatFlags,
    (values) => (chosen = { kind: 'script', path: String(values.file) }),
  );
  parser = command(
    parser,
    'mcp',
    'add, list, show and remove MCP servers in the config file',
    (mcp) => mcpCommands(mcp, (mcpCommand) => (chosen = { kind: 'mcp', command: mcpCommand })),
    () => undefined,
  );
  parser = command(
    parser,
    'auth',
    'sign in to remote servers, list sign-ins, sign out',
    (auth) => authCommands(auth, (authCommand) => (chosen = { kind: 'auth', command: authCommand })),
    () => undefined,
  );
  parser = command(
    parser,
    'models',
    'list, download and delete local models',
    (models) =>
      modelsCommands(models, (modelsCommand) => (chosen = { kind: 'models', command: modelsCommand })),
    () => undefined,
  );
  parser = command(
    parser,
    'agents',
    'list the named agents: where each is defined and what it may use',
    (agents) =>
      agents
        .command(
          'list',
          'list the named agents, where each is defined, its model and tools',
          (sub) => sub,
          () => {
            chosen = { kind: 'agents-list' };
          },
        )
        .demandCommand(1, 'agents needs a command: list'),
    () => undefined,
  );
  parser = command(
    parser,
    'batch <file>',
    'run every job of a JSONL file over servers started once (--out results.jsonl)',
    (batch) => withBatchFlags(withChatFlags(batch)),
    (values) => (chosen = { kind: 'batch', file: String(values.file) }),
  );
  parser = command(
    parser,
    'jobs',
    'submit jobs to durable workers on PostgreSQL, and follow, cancel, retry or recover them',
    (jobs) => jobsCommands(jobs, (jobsCommand) => (chosen = { kind: 'jobs', command: jobsCommand })),
    () => undefined,
  );
  parser = command(
    parser,
    'worker',
    'run submitted jobs until stopped (any number, on any machines)',
    workerFlags,
    (values) => {
      chosen = { kind: 'worker', command: workerCommandOf(values) };
    },
  );
  parser = command(
    parser,
    'acp',
    'run as an Agent Client Protocol agent for editors, on stdin/stdout (docs/editors.md)',
    withChatFlags,
    () => (chosen = { kind: 'acp' }),
  );
  parser = command(
    parser,
    'completion [shell]',
    'print a bash or zsh completion script',
    noOptions,
    (values) => {
      chosen = { kind: 'completion', shell: typeof values.shell === 'string' ? values.shell : 'bash' };
    },
  );
  parser = parser
    .example(EXAMPLES.map(([command, description]) => [command, description]))
    .epilogue(EPILOGUE)
    .alias('h', 'help')
    .alias('v', 'version')
    .version(version)
    .strict()
    .wrap(Math.min(columns, 120))
    .fail(onFailure as (message: string, error: Error) => void);
  let values: ParsedValues = {};
  // With a callback, yargs hands back help and errors instead of printing them. The handlers are
  // synchronous, so the callback has run when parse returns.
  const onParsed = (error: Error | null | undefined, parsed: ParsedValues, output: string): void => {
    if (error !== null && error !== undefined) failure ??= error.message;
    values = parsed;
    printed = output;
  };
  void parser.parse(
    [...split.argv],
    {},
    onParsed as (error: Error | undefined, parsed: ParsedValues, output: string) => void,
  );
  if (failure !== undefined)
    throw new ConfigError('command line', `${withSuggestion(failure)} (see mcphost --help)`);
  if (printed !== '') return { kind: 'print', text: printed };
  if (chosen === undefined) throw new ConfigError('command line', 'nothing to run (see mcphost --help)');
  if (split.any && chosen.kind !== 'script') {
    throw new ConfigError('--args', 'script variables only go with `mcphost script FILE`');
  }
  switch (chosen.kind) {
    case 'chat':
      return { kind: 'run', options: toCliOptions(values, undefined) };
    case 'script':
      return {
        kind: 'run',
        options: toCliOptions(values, { path: chosen.path, arguments: split.scriptArguments }),
      };
    case 'mcp':
      return {
        kind: 'mcp',
        command: chosen.command,
        ...definedProperties({ configPath: stringValue(values.config) }),
      };
    case 'auth':
      return {
        kind: 'auth',
        command: chosen.command,
        ...definedProperties({ configPath: stringValue(values.config) }),
      };
    case 'models':
      return { kind: 'models', command: chosen.command };
    case 'agents-list':
      return { kind: 'agents-list', ...definedProperties({ configPath: stringValue(values.config) }) };
    case 'batch':
      return {
        kind: 'batch',
        options: toCliOptions(values, undefined),
        batch: batchCommandOf(chosen.file, values),
      };
    case 'jobs':
      return { kind: 'jobs', command: chosen.command };
    case 'worker':
      return { kind: 'worker', command: chosen.command };
    case 'acp':
      return { kind: 'acp', options: toCliOptions(values, undefined) };
    case 'completion':
      if (chosen.shell !== 'bash' && chosen.shell !== 'zsh') {
        throw new ConfigError('completion', `"${chosen.shell}" is not bash or zsh`);
      }
      return { kind: 'completion', shell: chosen.shell };
  }
}

/** yargs' "Unknown argument: colr" with the nearest flag or command added. */
function withSuggestion(message: string): string {
  const unknown = /^Unknown (?:argument|arguments|command)s?: (.+)$/.exec(message)?.[1];
  if (unknown === undefined) return message;
  const [first = ''] = unknown.split(', ');
  const flags = CHAT_FLAGS.flatMap((flag) => [
    flag.name,
    ...(flag.defaultValue === true || flag.negatable === true ? [`no-${flag.name}`] : []),
  ]);
  const typed = first.replace(/^-+/, '');
  const suggestion = nearest(typed, [...flags, ...COMMANDS]);
  const shown = first.startsWith('-') || !COMMANDS.includes(suggestion ?? '') ? `--${typed}` : first;
  if (suggestion === undefined)
    return `unknown ${message.includes('command') ? 'command' : 'argument'} ${shown}`;
  const suggested = COMMANDS.includes(suggestion) ? suggestion : `--${suggestion}`;
  return `unknown argument ${shown}: did you mean ${suggested}?`;
}
