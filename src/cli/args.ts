/**
 * Command-line parsing with Node's own `util.parseArgs`: one table of flags gives the parser its
 * options and `--help` its text. Nothing heavy is imported here, so `mcphost --help` starts about
 * as fast as Node itself (yargs alone took four times Node's start-up).
 */
import { parseArgs } from 'node:util';
import { ConfigError, messageOf } from '../errors.js';
import { optional } from '../optional.js';
import { OUTPUT_FORMATS, type OutputFormat } from './output/schema.js';
import { splitScriptArguments } from './script-arguments.js';
import { parseBuiltinNames, type BuiltinServerName } from '../builtin/names.js';

/** What the user asked for on the command line. Unset options fall back to the config file. */
export interface CliOptions {
  readonly model?: string;
  readonly prompt?: string;
  readonly configPath?: string;
  /** Text, or the path of a file holding it. */
  readonly systemPrompt?: string;
  readonly maxSteps?: number;
  readonly providerUrl?: string;
  readonly providerApiKey?: string;
  readonly maxTokens?: number;
  readonly temperature?: number;
  readonly topP?: number;
  readonly topK?: number;
  readonly stopSequences?: readonly string[];
  readonly debug: boolean;
  /** `--approve-all`: tool calls an approval rule marks `ask` run without asking. */
  readonly approveAll?: boolean;
  /** `--audit-log FILE`: one JSON line per tool call appended there. */
  readonly auditLog?: string;
  /** `--quiet`: the final answer alone on stdout; on stderr, errors only. */
  readonly quiet: boolean;
  /** `--output-format` of a one-shot run. */
  readonly outputFormat: OutputFormat;
  /** `--save-session FILE`: save the conversation there after every change. */
  readonly saveSession?: string;
  /** `--load-session FILE`: continue that conversation. */
  readonly loadSession?: string;
  /** `-s/--session FILE`: continue it if it exists, and save to it. */
  readonly session?: string;
  /** `--no-exit`: after the one-shot answer, go on in the chat. */
  readonly noExit: boolean;
  /** `--no-color`: plain text in the chat (as with NO_COLOR or output that is not a terminal). */
  readonly noColor?: boolean;
  /** `--builtin fs,todo`: built-in servers turned on for this run. */
  readonly builtin?: readonly BuiltinServerName[];
  /** `mcphost script FILE [--args:name value …]`. */
  readonly script?: ScriptCommand;
}

/** A script file to run, and the values of its `--args:name` variables. */
export interface ScriptCommand {
  readonly path: string;
  readonly arguments: Readonly<Record<string, string>>;
}

/** Either options to run with, or text to print (help, version) and leave. */
export type ParsedArguments =
  { readonly kind: 'run'; readonly options: CliOptions } | { readonly kind: 'print'; readonly text: string };

/** One flag: how it parses, and how `--help` shows it. */
interface FlagSpec {
  readonly name: string;
  readonly short?: string;
  /** `strings` may be given several times; `number` is parsed from its text. */
  readonly kind: 'string' | 'number' | 'boolean' | 'strings';
  /** The value's placeholder in `--help` (`FILE`, `N`). */
  readonly value?: string;
  readonly describe: string;
}

const FLAGS: readonly FlagSpec[] = [
  {
    name: 'model',
    short: 'm',
    kind: 'string',
    value: 'PROVIDER:MODEL',
    describe: 'the model (default: config "model", else ollama:mistral-small)',
  },
  {
    name: 'prompt',
    short: 'p',
    kind: 'string',
    value: 'TEXT',
    describe: 'run this prompt once, print the answer, exit (- reads stdin)',
  },
  {
    name: 'quiet',
    short: 'q',
    kind: 'boolean',
    describe: 'with -p: only the final answer on stdout, only errors on stderr',
  },
  {
    name: 'output-format',
    kind: 'string',
    value: 'FORMAT',
    describe: 'with -p: text (default), json (one object) or stream-json (JSON lines)',
  },
  {
    name: 'session',
    short: 's',
    kind: 'string',
    value: 'FILE',
    describe: 'continue FILE if it exists, and save the conversation to it',
  },
  {
    name: 'save-session',
    kind: 'string',
    value: 'FILE',
    describe: 'save the conversation to FILE after every change',
  },
  {
    name: 'load-session',
    kind: 'string',
    value: 'FILE',
    describe: 'continue the conversation saved in FILE',
  },
  { name: 'no-exit', kind: 'boolean', describe: 'with -p: after the answer, go on chatting' },
  {
    name: 'config',
    kind: 'string',
    value: 'FILE',
    describe: 'config file (default: ~/.mcp.json, ~/.mcphost.json|yml|yaml)',
  },
  {
    name: 'system-prompt',
    kind: 'string',
    value: 'TEXT|FILE',
    describe: 'system prompt text, or a file holding it',
  },
  {
    name: 'max-steps',
    kind: 'number',
    value: 'N',
    describe: 'model calls per prompt before giving up (default 20)',
  },
  { name: 'provider-url', kind: 'string', value: 'URL', describe: 'base URL of the provider API' },
  {
    name: 'provider-api-key',
    kind: 'string',
    value: 'KEY',
    describe: 'API key (overrides the environment variable)',
  },
  { name: 'max-tokens', kind: 'number', value: 'N', describe: 'token limit per model call' },
  { name: 'temperature', kind: 'number', value: 'X', describe: 'sampling temperature' },
  { name: 'top-p', kind: 'number', value: 'X', describe: 'nucleus sampling' },
  { name: 'top-k', kind: 'number', value: 'N', describe: 'top-k sampling' },
  {
    name: 'stop-sequences',
    kind: 'strings',
    value: 'TEXT',
    describe: 'stop generating at TEXT (repeat for several)',
  },
  {
    name: 'builtin',
    kind: 'strings',
    value: 'NAMES',
    describe: 'turn on built-in servers for this run: fs, bash, todo, fetch (comma-separated)',
  },
  {
    name: 'approve-all',
    kind: 'boolean',
    describe: 'run tool calls that need approval without asking (deny rules and hooks still apply)',
  },
  {
    name: 'audit-log',
    kind: 'string',
    value: 'FILE',
    describe: 'append one JSON line per tool call to FILE (secrets redacted)',
  },
  {
    name: 'no-color',
    kind: 'boolean',
    describe: 'plain text in the chat: no colors, spinner or markdown rendering',
  },
  { name: 'debug', kind: 'boolean', describe: 'show server stderr, protocol noise and stack traces' },
  { name: 'help', short: 'h', kind: 'boolean', describe: 'show this help' },
  { name: 'version', short: 'v', kind: 'boolean', describe: 'show the version' },
];

const EXAMPLES: ReadonlyArray<readonly [string, string]> = [
  ['mcphost -m ollama:qwen2.5:3b', 'chat with a local model and the tools in ~/.mcp.json'],
  ['mcphost -m anthropic:claude-sonnet-4-5 -p "List the files in /tmp"', 'one answer on stdout, then exit'],
  ['git diff | mcphost -p "Review this" --quiet', 'stdin is added to the prompt'],
  ['mcphost -s chat.json -p "And then?"', 'continue a saved conversation, and save it'],
  ['mcphost script review.md --args:file src/main.ts', 'run a script file with a variable'],
];

/** The `--help` text, from the same table the parser uses. */
export function helpText(): string {
  const label = (flag: FlagSpec) =>
    `${flag.short === undefined ? '    ' : `-${flag.short}, `}--${flag.name}${flag.value === undefined ? '' : ` ${flag.value}`}`;
  const width = Math.max(...FLAGS.map((flag) => label(flag).length));
  const exampleWidth = Math.max(...EXAMPLES.map(([command]) => command.length));
  return [
    'Usage: mcphost [options]                chat, or one answer with -p',
    '       mcphost script FILE [options]    run a script file (--args:NAME VALUE fills its variables)',
    '',
    'Chat with a model that can use the tools of your MCP servers.',
    '',
    'Options:',
    ...FLAGS.map((flag) => `  ${label(flag).padEnd(width)}  ${flag.describe}`),
    '',
    'Examples:',
    ...EXAMPLES.map(([command, description]) => `  ${command.padEnd(exampleWidth)}  ${description}`),
    '',
    'Providers: ollama, anthropic, google (or gemini), openai. Docs: README.md.',
    'Exit codes: 0 ok, 1 internal, 2 usage/config, 3 provider, 4 max steps, 5 no server started (library),',
    '6 prompt blocked by a hook, 129/130/143 SIGHUP/Ctrl-C/SIGTERM, 141 stdout closed.',
  ].join('\n');
}

type ParsedValues = Record<string, string | boolean | string[] | undefined>;

/** Parses argv (without `node` and the script). Throws ConfigError naming the flag on bad input. */
export function parseArguments(argv: readonly string[], version: string): ParsedArguments {
  // `--args:name` options are the script's, not ours: they are taken out before parsing.
  const split = splitScriptArguments(argv);
  const { values, positionals } = parseFlags(split.argv);
  if (values.help === true) return { kind: 'print', text: helpText() };
  if (values.version === true) return { kind: 'print', text: version };
  const scriptPath = scriptOf(positionals);
  // `--config=` (or `--config ""`) parses as "": a value was forgotten.
  for (const flag of FLAGS) {
    if (values[flag.name] === '') throw new ConfigError(`--${flag.name}`, 'needs a value');
  }
  if (split.any && scriptPath === undefined) {
    throw new ConfigError('--args', 'script variables only go with `mcphost script FILE`');
  }
  const text = (name: string): string | undefined => {
    const value = values[name];
    return typeof value === 'string' ? value : undefined;
  };
  const number = (name: string): number | undefined => {
    const value = text(name);
    if (value === undefined) return undefined;
    const parsed = Number(value);
    if (value.trim() === '' || Number.isNaN(parsed))
      throw new ConfigError(`--${name}`, `expected a number, got "${value}"`);
    return parsed;
  };
  if (
    values.session !== undefined &&
    (values['save-session'] !== undefined || values['load-session'] !== undefined)
  ) {
    throw new ConfigError('--session', 'not with --save-session or --load-session (it does both)');
  }
  return {
    kind: 'run',
    options: checkCombinations({
      ...optional('model', text('model')),
      ...optional('prompt', text('prompt')),
      ...optional('configPath', text('config')),
      ...optional('systemPrompt', text('system-prompt')),
      ...optional('maxSteps', positiveInteger('--max-steps', number('max-steps'))),
      ...optional('providerUrl', url('--provider-url', text('provider-url'))),
      ...optional('providerApiKey', text('provider-api-key')),
      ...optional('maxTokens', positiveInteger('--max-tokens', number('max-tokens'))),
      ...optional('temperature', numberInRange('--temperature', number('temperature'), 0, Infinity)),
      ...optional('topP', numberInRange('--top-p', number('top-p'), 0, 1)),
      ...optional('topK', positiveInteger('--top-k', number('top-k'))),
      ...optional('stopSequences', values['stop-sequences'] as string[] | undefined),
      ...optional('builtin', builtinNames(values.builtin as string[] | undefined)),
      debug: values.debug === true,
      approveAll: values['approve-all'] === true,
      ...optional('auditLog', text('audit-log')),
      quiet: values.quiet === true,
      outputFormat: outputFormat(text('output-format')),
      ...optional('saveSession', text('save-session')),
      ...optional('loadSession', text('load-session')),
      ...optional('session', text('session')),
      noExit: values['no-exit'] === true,
      noColor: values['no-color'] === true,
      ...optional(
        'script',
        scriptPath === undefined ? undefined : { path: scriptPath, arguments: split.scriptArguments },
      ),
    }),
  };
}

/** Runs `util.parseArgs` over the flag table; its errors become one line naming the command line. */
function parseFlags(argv: readonly string[]): { values: ParsedValues; positionals: string[] } {
  const options = Object.fromEntries(
    FLAGS.map((flag) => [
      flag.name,
      {
        type: flag.kind === 'boolean' ? ('boolean' as const) : ('string' as const),
        ...(flag.kind === 'strings' ? { multiple: true } : {}),
        ...(flag.short === undefined ? {} : { short: flag.short }),
      },
    ]),
  );
  try {
    // A flag given twice takes its last value, as most CLIs do.
    const { values, positionals } = parseArgs({
      args: [...argv],
      options,
      strict: true,
      allowPositionals: true,
    });
    return { values: values as ParsedValues, positionals };
  } catch (error) {
    throw new ConfigError('command line', `${describeParseError(error)} (see mcphost --help)`);
  }
}

/** Node's parseArgs messages, made one short line. */
function describeParseError(error: unknown): string {
  const message = messageOf(error);
  const [first = message] = message.split('\n');
  const option = /'(-[^' ,]*)/.exec(first)?.[1];
  switch ((error as { code?: unknown }).code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option ${option ?? first}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      // "argument missing", or a value that starts with "-" (written --flag=-1 instead).
      return first.includes('ambiguous')
        ? `${option ?? 'an option'} needs a value (for one starting with "-", write ${option ?? '--flag'}=VALUE)`
        : `${option ?? 'an option'} needs a value`;
    default:
      return first;
  }
}

/** `script FILE` is the only command; any other word on the command line is a mistake. */
function scriptOf(positionals: readonly string[]): string | undefined {
  const [first, second, ...rest] = positionals;
  if (first === undefined) return undefined;
  if (first !== 'script') {
    throw new ConfigError(
      'command line',
      `unexpected "${first}" (a prompt goes after -p; see mcphost --help)`,
    );
  }
  if (second === undefined || second === '')
    throw new ConfigError('script', 'needs a FILE: mcphost script FILE');
  if (rest.length > 0) throw new ConfigError('script', `unexpected "${rest[0] ?? ''}" after the script file`);
  return second;
}

function builtinNames(values: readonly string[] | undefined): BuiltinServerName[] | undefined {
  return values === undefined ? undefined : parseBuiltinNames(values);
}

function outputFormat(value: string | undefined): OutputFormat {
  if (value === undefined) return 'text';
  const known = OUTPUT_FORMATS.find((format) => format === value);
  if (known === undefined) {
    throw new ConfigError('--output-format', `"${value}" is not one of ${OUTPUT_FORMATS.join(', ')}`);
  }
  return known;
}

/** Flags that only make sense together with others. */
function checkCombinations(options: CliOptions): CliOptions {
  const oneShot = options.prompt !== undefined || options.script !== undefined;
  if (options.prompt !== undefined && options.script !== undefined) {
    throw new ConfigError('-p', 'give either -p or a script file, not both');
  }
  if (!oneShot) {
    if (options.outputFormat !== 'text') throw new ConfigError('--output-format', 'only with -p or a script');
    if (options.quiet) throw new ConfigError('--quiet', 'only with -p or a script');
    if (options.noExit)
      throw new ConfigError('--no-exit', 'only with -p or a script (it goes on chatting after the answer)');
  }
  if (options.noExit && options.outputFormat !== 'text') {
    throw new ConfigError('--no-exit', `the chat that follows cannot be ${options.outputFormat}`);
  }
  if (options.noExit && options.prompt === '-') {
    throw new ConfigError('--no-exit', 'stdin feeds the chat, so the prompt cannot come from it (-p -)');
  }
  return options;
}

/** The same bounds the config file checks, so a flag and a config key accept the same values. */
function numberInRange(
  flag: string,
  value: number | undefined,
  min: number,
  max: number,
): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isFinite(value)) throw new ConfigError(flag, 'expected a number');
  if (value < min || value > max) {
    const range = max === Infinity ? `at least ${min}` : `from ${min} to ${max}`;
    throw new ConfigError(flag, `expected a number ${range}, got ${value}`);
  }
  return value;
}

function positiveInteger(flag: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 1) {
    throw new ConfigError(flag, `expected a positive whole number, got ${value}`);
  }
  return value;
}

function url(flag: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!URL.canParse(value))
    throw new ConfigError(flag, `"${value}" is not a URL (for example http://127.0.0.1:11434)`);
  return value;
}
