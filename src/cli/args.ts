/**
 * Command-line parsing. Only yargs is imported here, so `mcphost --help` stays fast: everything
 * heavy is imported after the arguments are known.
 */
import yargs from 'yargs';
import { ConfigError } from '../errors.js';
import { optional } from '../optional.js';
import { OUTPUT_FORMATS, type OutputFormat } from './output/schema.js';
import { splitScriptArguments } from './script-arguments.js';

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

const EXAMPLES: ReadonlyArray<[string, string]> = [
  ['mcphost -m ollama:qwen2.5:3b', 'chat with a local model and the tools in ~/.mcp.json'],
  ['mcphost -m anthropic:claude-sonnet-4-5 -p "List the files in /tmp"', 'one answer on stdout, then exit'],
  ['git diff | mcphost -p "Review this" --quiet', 'stdin is added to the prompt'],
  ['mcphost -s chat.json -p "And then?"', 'continue a saved conversation, and save it'],
  ['mcphost script review.md --args:file src/main.ts', 'run a script file with a variable'],
];

/** String flags whose empty value is a mistake, not a choice. */
const VALUE_FLAGS = [
  'model',
  'prompt',
  'config',
  'system-prompt',
  'provider-url',
  'provider-api-key',
  'audit-log',
  'save-session',
  'load-session',
  'session',
] as const;

function buildParser(version: string) {
  return (
    yargs()
      .scriptName('mcphost')
      .usage('$0 [options]\n\nChat with a model that can use the tools of your MCP servers.')
      .version(version)
      .help()
      .alias('h', 'help')
      .alias('v', 'version')
      .strict()
      // A flag given twice takes its last value (as most CLIs do) rather than becoming an array.
      .parserConfiguration({ 'duplicate-arguments-array': false })
      .wrap(Math.min(110, process.stdout.columns || 80))
      .options({
        model: {
          alias: 'm',
          type: 'string',
          describe: 'provider:model (default: config "model", else ollama:mistral-small)',
        },
        prompt: { alias: 'p', type: 'string', describe: 'Run this prompt once, print the answer, exit' },
        config: { type: 'string', describe: 'Config file (default: ~/.mcp.json, ~/.mcphost.json|yml|yaml)' },
        'system-prompt': { type: 'string', describe: 'System prompt text, or a file holding it' },
        'max-steps': { type: 'number', describe: 'Model calls per prompt before giving up (default 20)' },
        'provider-url': { type: 'string', describe: 'Base URL of the provider API' },
        'provider-api-key': { type: 'string', describe: 'API key (overrides the environment variable)' },
        'max-tokens': { type: 'number', describe: 'Token limit per model call' },
        temperature: { type: 'number', describe: 'Sampling temperature' },
        'top-p': { type: 'number', describe: 'Nucleus sampling' },
        'top-k': { type: 'number', describe: 'Top-k sampling' },
        'stop-sequences': { type: 'string', array: true, describe: 'Stop generating at any of these' },
        debug: {
          type: 'boolean',
          default: false,
          describe: 'Show server stderr, protocol noise and stack traces',
        },
        'approve-all': {
          type: 'boolean',
          default: false,
          describe: 'Run tool calls that need approval without asking (deny rules and hooks still apply)',
        },
        'audit-log': {
          type: 'string',
          describe: 'Append one JSON line per tool call to FILE (secrets redacted)',
        },
        quiet: {
          alias: 'q',
          type: 'boolean',
          default: false,
          describe: 'With -p: only the final answer on stdout; only errors on stderr',
        },
        'output-format': {
          choices: OUTPUT_FORMATS,
          default: 'text' as const,
          describe: 'With -p: text, one JSON object (json), or JSON lines as it happens (stream-json)',
        },
        'save-session': { type: 'string', describe: 'Save the conversation to FILE after every change' },
        'load-session': { type: 'string', describe: 'Continue the conversation saved in FILE' },
        session: {
          alias: 's',
          type: 'string',
          describe: 'Continue FILE if it exists, and save to it',
          conflicts: ['save-session', 'load-session'],
        },
        // yargs reads --no-exit as exit=false; `no-exit` is listed for --help and strict mode.
        exit: { type: 'boolean', hidden: true },
        'no-exit': { type: 'boolean', describe: 'With -p: after the answer, go on chatting' },
        // Like --no-exit: yargs reads --no-color as color=false.
        color: { type: 'boolean', hidden: true },
        'no-color': {
          type: 'boolean',
          describe: 'Plain text in the chat: no colors, spinner or markdown rendering',
        },
      })
      .command('script <file>', 'Run a script file: YAML front matter and a prompt (see README)', (command) =>
        command
          .positional('file', {
            type: 'string',
            describe: 'The script; pass its variables as --args:name value',
          })
          .usage('$0 script <file> [--args:name value …] [options]'),
      )
      .example(EXAMPLES.map(([command, description]) => [command, description]))
      .epilogue(
        'Docs: README.md. Exit codes: 0 ok, 1 internal, 2 usage/config, 3 provider, 4 max steps, ' +
          '5 no server started (library), 6 prompt blocked by a hook, 129/130/143 SIGHUP/Ctrl-C/SIGTERM.',
      )
  );
}

/** Parses argv (without `node` and the script). Throws ConfigError naming the flag on bad input. */
export async function parseArguments(argv: readonly string[], version: string): Promise<ParsedArguments> {
  // `--args:name` options are the script's, not ours: they are taken out before yargs sees them.
  const split = splitScriptArguments(argv);
  let printed = '';
  let failure: string | undefined;
  const parsed = await buildParser(version)
    .exitProcess(false)
    .fail((message, error) => {
      failure = message || error.message;
    })
    .parseAsync([...split.argv], {}, (_error, _argv, output) => {
      printed = output;
    });
  if (failure !== undefined) throw new ConfigError('command line', `${failure} (see mcphost --help)`);
  if (printed !== '') return { kind: 'print', text: printed };
  const scriptPath = parsed._[0] === 'script' && typeof parsed.file === 'string' ? parsed.file : undefined;
  // `--config` at the end of the line (or `--config=`) parses as "": a value was forgotten.
  for (const flag of VALUE_FLAGS) {
    if (parsed[flag] === '') throw new ConfigError(`--${flag}`, 'needs a value');
  }
  if (split.any && scriptPath === undefined) {
    throw new ConfigError('--args', 'script variables only go with `mcphost script FILE`');
  }
  return {
    kind: 'run',
    options: checkCombinations({
      ...optional('model', parsed.model),
      ...optional('prompt', parsed.prompt),
      ...optional('configPath', parsed.config),
      ...optional('systemPrompt', parsed['system-prompt']),
      ...optional('maxSteps', positiveInteger('--max-steps', parsed['max-steps'])),
      ...optional('providerUrl', url('--provider-url', parsed['provider-url'])),
      ...optional('providerApiKey', parsed['provider-api-key']),
      ...optional('maxTokens', positiveInteger('--max-tokens', parsed['max-tokens'])),
      ...optional('temperature', numberInRange('--temperature', parsed.temperature, 0, Infinity)),
      ...optional('topP', numberInRange('--top-p', parsed['top-p'], 0, 1)),
      ...optional('topK', positiveInteger('--top-k', parsed['top-k'])),
      ...optional('stopSequences', stopSequences(parsed['stop-sequences'])),
      debug: parsed.debug,
      approveAll: parsed['approve-all'],
      ...optional('auditLog', parsed['audit-log']),
      quiet: parsed.quiet,
      outputFormat: parsed['output-format'],
      ...optional('saveSession', parsed['save-session']),
      ...optional('loadSession', parsed['load-session']),
      ...optional('session', parsed.session),
      noExit: parsed['no-exit'] === true || parsed.exit === false,
      noColor: parsed['no-color'] === true || parsed.color === false,
      ...optional(
        'script',
        scriptPath === undefined ? undefined : { path: scriptPath, arguments: split.scriptArguments },
      ),
    }),
  };
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

function stopSequences(values: readonly unknown[] | undefined): string[] | undefined {
  if (values === undefined) return undefined;
  if (values.length === 0) throw new ConfigError('--stop-sequences', 'give at least one sequence');
  return values.map(String);
}

function positiveInteger(flag: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 1) throw new ConfigError(flag, 'expected a positive whole number');
  return value;
}

function url(flag: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!URL.canParse(value))
    throw new ConfigError(flag, `"${value}" is not a URL (for example http://127.0.0.1:11434)`);
  return value;
}
