/**
 * Command-line parsing. Only yargs is imported here, so `mcphost --help` stays fast: everything
 * heavy is imported after the arguments are known.
 */
import yargs from 'yargs';
import { ConfigError } from '../errors.js';
import { optional } from '../optional.js';

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
}

/** Either options to run with, or text to print (help, version) and leave. */
export type ParsedArguments =
  { readonly kind: 'run'; readonly options: CliOptions } | { readonly kind: 'print'; readonly text: string };

const EXAMPLES: ReadonlyArray<[string, string]> = [
  ['mcphost -m ollama:qwen2.5:3b', 'chat with a local model and the tools in ~/.mcp.json'],
  ['mcphost -m anthropic:claude-sonnet-4-5 -p "List the files in /tmp"', 'one answer on stdout, then exit'],
];

function buildParser(version: string) {
  return yargs()
    .scriptName('mcphost')
    .usage('$0 [options]\n\nChat with a model that can use the tools of your MCP servers.')
    .version(version)
    .help()
    .alias('h', 'help')
    .alias('v', 'version')
    .strict()
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
    })
    .example(EXAMPLES.map(([command, description]) => [command, description]))
    .epilogue(
      'Docs: README.md. Exit codes: 0 ok, 1 internal, 2 usage/config, 3 provider, 4 max steps, 130 cancelled.',
    );
}

/** Parses argv (without `node` and the script). Throws ConfigError naming the flag on bad input. */
export async function parseArguments(argv: readonly string[], version: string): Promise<ParsedArguments> {
  let printed = '';
  let failure: string | undefined;
  const parsed = await buildParser(version)
    .exitProcess(false)
    .fail((message, error) => {
      failure = message || error.message;
    })
    .parseAsync([...argv], {}, (_error, _argv, output) => {
      printed = output;
    });
  if (failure !== undefined) throw new ConfigError('mcphost', `${failure} (see mcphost --help)`);
  if (printed !== '') return { kind: 'print', text: printed };
  return {
    kind: 'run',
    options: {
      ...optional('model', parsed.model),
      ...optional('prompt', parsed.prompt),
      ...optional('configPath', parsed.config),
      ...optional('systemPrompt', parsed['system-prompt']),
      ...optional('maxSteps', positiveInteger('--max-steps', parsed['max-steps'])),
      ...optional('providerUrl', url('--provider-url', parsed['provider-url'])),
      ...optional('providerApiKey', parsed['provider-api-key']),
      ...optional('maxTokens', positiveInteger('--max-tokens', parsed['max-tokens'])),
      ...optional('temperature', finiteNumber('--temperature', parsed.temperature)),
      ...optional('topP', finiteNumber('--top-p', parsed['top-p'])),
      ...optional('topK', positiveInteger('--top-k', parsed['top-k'])),
      ...optional('stopSequences', parsed['stop-sequences']?.map(String)),
      debug: parsed.debug,
    },
  };
}

function finiteNumber(flag: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isFinite(value)) throw new ConfigError(flag, 'expected a number');
  return value;
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
