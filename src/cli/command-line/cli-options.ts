/**
 * What the user asked for on the command line ({@link CliOptions}), and how the flags yargs parsed
 * (see the table in flags.ts) become it: every value checked, every mistake one line naming the flag.
 */
import { parseBuiltinNames, type BuiltinServerName } from '../../builtin/names.js';
import type { ToolSearchSetting } from '../../context/tool-catalog.js';
import { ConfigError } from '../../core/errors.js';
import { TOOL_CALLING_SETTINGS, type ToolCallingSetting } from '../../core/tool-calling/calling-mode.js';
import { OUTPUT_FORMATS, type OutputFormat } from '../output/schema.js';
import { INJECTION_POLICIES } from '../../safety/injection-policy.js';
import type { UntrustedContentOptions } from '../../safety/untrusted-content.js';
import { definedProperties } from '../../util/defined-properties.js';

/** What the user asked for on the command line. Unset options fall back to the config file. */
export interface CliOptions {
  readonly model?: string;
  readonly prompt?: string;
  readonly configPath?: string;
  /** Text, or the path of a file holding it. */
  readonly systemPrompt?: string;
  readonly maxSteps?: number;
  /** `--agent NAME`: run as a named agent (docs/agents.md). */
  readonly agent?: string;
  readonly providerUrl?: string;
  readonly providerApiKey?: string;
  readonly maxTokens?: number;
  /** `--context-window N`: the model's window in tokens, over the config and what mcphost knows. */
  readonly contextWindow?: number;
  /** `--tool-search auto|always|never`: when the model gets the tool search instead of every definition. */
  readonly toolSearch?: ToolSearchSetting;
  /** `--tool-calling auto|native|prompt|none`: how the model calls tools. */
  readonly toolCalling?: ToolCallingSetting;
  readonly temperature?: number;
  readonly topP?: number;
  readonly topK?: number;
  readonly stopSequences?: readonly string[];
  readonly debug: boolean;
  /** `--approve-all`: tool calls an approval rule marks `ask` run without asking. */
  readonly approveAll?: boolean;
  /** `--audit-log FILE`: one JSON line per tool call appended there. */
  readonly auditLog?: string;
  /**
   * `--injection-policy`, `--no-mark-tool-output`, `--no-untrusted-clause`: each set one overrides
   * the config's `untrustedContent` field.
   */
  readonly untrustedContent?: UntrustedContentOptions;
  /** `--quiet`: the final answer alone on stdout; on stderr, errors only. */
  readonly quiet: boolean;
  /** `--output-format` of a one-shot run. */
  readonly outputFormat: OutputFormat;
  /** `--output-schema FILE`: the one-shot answer must be JSON valid against the JSON Schema in FILE. */
  readonly outputSchema?: string;
  /** `--save-session FILE`: save the conversation there after every change. */
  readonly saveSession?: string;
  /** `--load-session FILE`: continue that conversation. */
  readonly loadSession?: string;
  /** `-s/--session FILE`: continue it if it exists, and save to it. */
  readonly session?: string;
  /** `--continue`: continue the latest saved conversation of the working folder. */
  readonly continueLatest?: boolean;
  /** `--resume [ID]`: `''` to pick from a list, else the conversation's id. */
  readonly resume?: string;
  /**
   * `--no-session-persistence`: do not save the conversation in the state folder; `--session-persistence`
   * saves it whatever the config says. Unset when neither is given.
   */
  readonly sessionPersistence?: boolean;
  /** `--no-exit`: after the one-shot answer, go on in the chat. */
  readonly noExit: boolean;
  /** `--no-color`: plain text in the chat (as with NO_COLOR or output that is not a terminal). */
  readonly noColor?: boolean;
  /** `--builtin fs,todo`: built-in servers turned on for this run. */
  readonly builtin?: readonly BuiltinServerName[];
  /** `--apps`: MCP Apps in a local browser page (docs/mcp-features.md). */
  readonly apps?: boolean;
  /** `--apps-timeout SECONDS`: how long `-p --apps` waits for the page. */
  readonly appsTimeout?: number;
  /** `--sandbox`: the built-in bash and every stdio server run in a sandbox (docs/safety.md). */
  readonly sandbox?: boolean;
  /** `--root DIR` (repeatable): the folders servers may work in, instead of the working directory. */
  readonly roots?: readonly string[];
  /** `mcphost script FILE [--args:name value …]`. */
  readonly script?: ScriptCommand;
}

/** A script file to run, and the values of its `--args:name` variables. */
export interface ScriptCommand {
  readonly path: string;
  readonly arguments: Readonly<Record<string, string>>;
}

/** What yargs parsed, by flag name (a flag given twice is an array: its last value wins). */
export type ParsedValues = Readonly<Record<string, unknown>>;

/** Turns parsed flags into options. Throws ConfigError naming the flag on bad input. */
export function toCliOptions(values: ParsedValues, script: ScriptCommand | undefined): CliOptions {
  const last = (name: string): unknown => {
    const value = values[name];
    return Array.isArray(value) ? (value as unknown[]).at(-1) : value;
  };
  const text = (name: string): string | undefined => {
    const value = last(name);
    if (value === undefined) return undefined;
    // `--config=` (or `--config` at the end) parses as "": a value was forgotten.
    if (value === '' && name !== 'resume') throw new ConfigError(`--${name}`, 'needs a value');
    return typeof value === 'string' ? value : JSON.stringify(value);
  };
  const flag = (name: string): boolean | undefined => {
    const value = last(name);
    return typeof value === 'boolean' ? value : undefined;
  };
  const number = (name: string): number | undefined => {
    const value = text(name);
    if (value === undefined) return undefined;
    const parsed = Number(value);
    if (value.trim() === '' || Number.isNaN(parsed))
      throw new ConfigError(`--${name}`, `expected a number, got "${value}"`);
    return parsed;
  };
  const strings = (name: string): string[] | undefined => {
    const value = values[name];
    if (value === undefined) return undefined;
    return (Array.isArray(value) ? (value as unknown[]) : [value]).map(String);
  };
  if (
    values.session !== undefined &&
    (values['save-session'] !== undefined || values['load-session'] !== undefined)
  ) {
    throw new ConfigError('--session', 'not with --save-session or --load-session (it does both)');
  }
  return checkCombinations({
    ...definedProperties({
      model: text('model'),
      prompt: text('prompt'),
      configPath: text('config'),
      systemPrompt: text('system-prompt'),
      maxSteps: positiveInteger('--max-steps', number('max-steps')),
      agent: text('agent'),
      providerUrl: url('--provider-url', text('provider-url')),
      providerApiKey: text('provider-api-key'),
      maxTokens: positiveInteger('--max-tokens', number('max-tokens')),
      contextWindow: positiveInteger('--context-window', number('context-window')),
      toolSearch: toolSearchSetting(text('tool-search')),
      toolCalling: toolCallingSetting(text('tool-calling')),
      temperature: numberInRange('--temperature', number('temperature'), 0, Infinity),
      topP: numberInRange('--top-p', number('top-p'), 0, 1),
      topK: positiveInteger('--top-k', number('top-k')),
      stopSequences: strings('stop-sequences'),
    }),
    debug: flag('debug') === true,
    approveAll: flag('approve-all') === true,
    ...definedProperties({
      auditLog: text('audit-log'),
      untrustedContent: untrustedContent(
        text('injection-policy'),
        flag('mark-tool-output'),
        flag('untrusted-clause'),
      ),
    }),
    quiet: flag('quiet') === true,
    outputFormat: outputFormat(text('output-format')),
    ...definedProperties({
      outputSchema: text('output-schema'),
      saveSession: text('save-session'),
      loadSession: text('load-session'),
      session: text('session'),
    }),
    continueLatest: flag('continue') === true,
    ...definedProperties({ resume: text('resume') }),
    // Unset unless given: the home config's `sessionPersistence` applies then (run-command.ts).
    ...definedProperties({ sessionPersistence: flag('session-persistence') }),
    noExit: flag('exit') === false,
    noColor: flag('color') === false,
    ...definedProperties({ builtin: builtinNames(strings('builtin')), roots: strings('root') }),
    ...(flag('sandbox') === true ? { sandbox: true } : {}),
    ...(flag('apps') === true ? { apps: true } : {}),
    ...definedProperties({ appsTimeout: positiveInteger('--apps-timeout', number('apps-timeout')) }),
    ...definedProperties({ script }),
  });
}

function untrustedContent(
  policy: string | undefined,
  markAsData: boolean | undefined,
  systemPromptClause: boolean | undefined,
): UntrustedContentOptions | undefined {
  const known = INJECTION_POLICIES.find((candidate) => candidate === policy);
  if (policy !== undefined && known === undefined) {
    throw new ConfigError('--injection-policy', `"${policy}" is not one of ${INJECTION_POLICIES.join(', ')}`);
  }
  const options: UntrustedContentOptions = definedProperties({
    policy: known,
    markAsData,
    systemPromptClause,
  });
  return Object.keys(options).length === 0 ? undefined : options;
}

function builtinNames(values: readonly string[] | undefined): BuiltinServerName[] | undefined {
  return values === undefined ? undefined : parseBuiltinNames(values);
}

function toolCallingSetting(value: string | undefined): ToolCallingSetting | undefined {
  if (value === undefined) return undefined;
  const known = TOOL_CALLING_SETTINGS.find((setting) => setting === value);
  if (known === undefined) {
    throw new ConfigError('--tool-calling', `"${value}" is not one of ${TOOL_CALLING_SETTINGS.join(', ')}`);
  }
  return known;
}

const TOOL_SEARCH_SETTINGS: readonly ToolSearchSetting[] = ['auto', 'always', 'never'];

function toolSearchSetting(value: string | undefined): ToolSearchSetting | undefined {
  if (value === undefined) return undefined;
  const known = TOOL_SEARCH_SETTINGS.find((setting) => setting === value);
  if (known === undefined) {
    throw new ConfigError('--tool-search', `"${value}" is not one of ${TOOL_SEARCH_SETTINGS.join(', ')}`);
  }
  return known;
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
    if (options.outputSchema !== undefined)
      throw new ConfigError('--output-schema', 'only with -p or a script');
    if (options.noExit)
      throw new ConfigError('--no-exit', 'only with -p or a script (it goes on chatting after the answer)');
  }
  if (options.noExit && options.outputSchema !== undefined) {
    throw new ConfigError('--no-exit', 'the chat that follows cannot answer to --output-schema');
  }
  if (options.noExit && options.outputFormat !== 'text') {
    throw new ConfigError('--no-exit', `the chat that follows cannot be ${options.outputFormat}`);
  }
  const picks = [
    options.continueLatest === true,
    options.resume !== undefined,
    options.session !== undefined,
  ];
  if (picks.filter(Boolean).length > 1 || ((picks[0] || picks[1]) && options.loadSession !== undefined)) {
    throw new ConfigError('--continue', 'give one of --continue, --resume, -s and --load-session');
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
