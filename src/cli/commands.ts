/**
 * Slash commands of the chat. Parsing is pure ({@link parseCommand}); running one
 * ({@link runCommand}) goes through a {@link CommandContext}, so tests drive it without a terminal.
 */
import type { ToolDescription } from '../mcp/pool.js';
import type { ServerStatus } from '../mcp/status.js';
import type { Runner } from '../runner.js';
import { describeFailure } from './exit-codes.js';
import { listHistory, listServers, listTools, showUsage } from './chat/listings.js';
import {
  formatServerLogs,
  promptsHelp,
  OFFERINGS_COMMANDS,
  showPrompts,
  showResources,
} from './chat/offerings-commands.js';
import type { ServerLogRecord } from '../mcp/server-logs.js';
import type { ServerOfferings } from '../mcp/server-offerings.js';
import type { Style } from './chat/style.js';
import type { UsageTotals } from './chat/usage.js';
import { compactionNotice } from './output/text.js';

/** A command's name, what it takes, and what it does, for `/help` and completion. */
export interface CommandHelp {
  readonly name: string;
  readonly argument?: string;
  readonly summary: string;
}

export const SLASH_COMMANDS: readonly CommandHelp[] = [
  { name: '/help', summary: 'show this help' },
  { name: '/tools', summary: 'list the tools, grouped by server' },
  { name: '/servers', summary: 'show each server: state, tool count, last error' },
  { name: '/history', summary: 'show the conversation so far' },
  { name: '/clear', summary: 'start a new conversation (also /new)' },
  { name: '/usage', summary: 'tokens in and out this session, and context use' },
  { name: '/compact', argument: '[focus]', summary: 'summarize the older conversation now' },
  ...OFFERINGS_COMMANDS,
  { name: '/model', argument: 'provider:model', summary: 'switch model, keeping the conversation' },
  { name: '/save', argument: 'FILE', summary: 'save the conversation to a file' },
  { name: '/quit', summary: 'leave (also /exit, or Ctrl-D)' },
];

/** A parsed command line. A tagged union: switch on `kind`. */
export type SlashCommand =
  | { readonly kind: 'help' | 'tools' | 'servers' | 'history' | 'clear' | 'usage' | 'quit' }
  | { readonly kind: 'model'; readonly modelString: string | undefined }
  | { readonly kind: 'save'; readonly path: string | undefined }
  | { readonly kind: 'compact'; readonly focus: string | undefined }
  | { readonly kind: 'resources' | 'prompts' | 'logs'; readonly server: string | undefined }
  | { readonly kind: 'unknown'; readonly name: string; readonly suggestion: string | undefined };

/**
 * The command on a line, or undefined when the line is a prompt for the model. A command is `/`
 * and a word (`/help`, `/model x:y`); `/etc/hosts?` is a prompt, and `//text` sends `/text`.
 */
export function parseCommand(line: string): SlashCommand | undefined {
  const match = /^\s*\/([a-z][\w-]*)(?:\s+(.*))?$/is.exec(line);
  if (match === null) return undefined;
  const name = `/${(match[1] ?? '').toLowerCase()}`;
  const argument = unquote(match[2]?.trim() ?? '');
  switch (name) {
    case '/help':
      return { kind: 'help' };
    case '/tools':
      return { kind: 'tools' };
    case '/servers':
      return { kind: 'servers' };
    case '/history':
      return { kind: 'history' };
    case '/clear':
    case '/new':
      return { kind: 'clear' };
    case '/usage':
      return { kind: 'usage' };
    case '/model':
      return { kind: 'model', modelString: argument === '' ? undefined : argument };
    case '/save':
      return { kind: 'save', path: argument === '' ? undefined : argument };
    case '/compact':
      return { kind: 'compact', focus: argument === '' ? undefined : argument };
    case '/resources':
      return { kind: 'resources', server: argument === '' ? undefined : argument };
    case '/prompts':
      return { kind: 'prompts', server: argument === '' ? undefined : argument };
    case '/logs':
      return { kind: 'logs', server: argument === '' ? undefined : argument };
    case '/quit':
    case '/exit':
      return { kind: 'quit' };
    default:
      return { kind: 'unknown', name, suggestion: closestCommand(name) };
  }
}

/** A line the model should get: `//text` becomes `/text`. */
export function promptText(line: string): string {
  return line.startsWith('//') ? line.slice(1) : line;
}

/** What a command needs from the chat. */
export interface CommandContext {
  readonly runner: Runner;
  describeTools(): Promise<readonly ToolDescription[]>;
  servers(): readonly ServerStatus[];
  readonly usage: UsageTotals;
  /** The model in use, as `provider:model`. */
  modelString(): string;
  /** Creates the provider and makes it the runner's; throws (leaving the old one) on failure. */
  switchModel(modelString: string): Promise<void>;
  /** Saves the conversation; resolves to the path written. */
  saveSession(path: string): Promise<string>;
  readonly style: Style;
  columns(): number;
  readonly debug: boolean;
  /** Resources and prompts of the servers (absent for a chat without MCP servers behind it). */
  readonly offerings?: ServerOfferings;
  /** The servers' kept log messages, of one server or all. */
  serverLogs?(server?: string): readonly ServerLogRecord[];
}

/** What the chat should do after a command. */
export type CommandOutcome =
  | { readonly kind: 'show'; readonly text: string }
  | { readonly kind: 'error'; readonly text: string }
  | { readonly kind: 'quit' };

export async function runCommand(command: SlashCommand, context: CommandContext): Promise<CommandOutcome> {
  switch (command.kind) {
    case 'help': {
      const prompts = (await context.offerings?.catalog())?.prompts ?? [];
      return show([helpText(context.style), ...promptsHelp(prompts, context.style)].join('\n'));
    }
    case 'tools':
      return show(listTools(await context.describeTools(), context.style, context.columns()));
    case 'servers':
      return show(listServers(context.servers(), context.style, context.columns()));
    case 'history':
      return show(listHistory(context.runner.history, context.style, context.columns()));
    case 'clear':
      context.runner.reset();
      return show('Started a new conversation.');
    case 'usage':
      return show(
        showUsage(context.usage, context.modelString(), context.style, context.runner.contextUsage),
      );
    case 'compact':
      return compact(command.focus, context);
    case 'model':
      return switchModel(command.modelString, context);
    case 'save':
      return save(command.path, context);
    case 'resources':
    case 'prompts': {
      if (context.offerings === undefined) return error('No MCP servers in this chat.');
      const list = command.kind === 'resources' ? showResources : showPrompts;
      try {
        return show(await list(context.offerings, command.server, context.style));
      } catch (failure) {
        return error(message(failure, context.debug));
      }
    }
    case 'logs':
      return show(formatServerLogs(context.serverLogs?.(command.server) ?? [], context.style));
    case 'quit':
      return { kind: 'quit' };
    case 'unknown': {
      const hint = command.suggestion === undefined ? '' : ` — did you mean ${command.suggestion}?`;
      return error(
        `Unknown command ${command.name}${hint} (/help lists them; nothing was sent to the model)`,
      );
    }
    default: {
      const unexpected: never = command;
      throw new TypeError(`unknown command ${JSON.stringify(unexpected)}`);
    }
  }
}

async function compact(focus: string | undefined, context: CommandContext): Promise<CommandOutcome> {
  try {
    const done = await context.runner.compact(focus === undefined ? {} : { focus });
    if (done === undefined) return show('Nothing to compact yet: the conversation is one turn.');
    return show(compactionNotice({ type: 'compaction', ...done }));
  } catch (failure) {
    return error(`Could not compact: ${describeFailure(failure, context.debug)}`);
  }
}

function show(text: string): CommandOutcome {
  return { kind: 'show', text };
}

function error(text: string): CommandOutcome {
  return { kind: 'error', text };
}

function helpText(style: Style): string {
  const usage = (command: CommandHelp) =>
    command.argument === undefined ? command.name : `${command.name} ${command.argument}`;
  const width = Math.max(...SLASH_COMMANDS.map((command) => usage(command).length));
  const lines = SLASH_COMMANDS.map(
    (command) => `  ${style.cyan(usage(command).padEnd(width))}  ${command.summary}`,
  );
  return [
    'Commands:',
    ...lines,
    '',
    'Keys: Tab completes a command, @server:uri, /server:prompt and its arguments · Up/Down recall',
    'earlier input · Ctrl-C stops a turn (twice at an empty prompt to quit) · Ctrl-D quits. End a',
    'line with \\ to continue on the next one; pasted lines are kept together until you press Enter.',
    'Start a message with // to send a leading /.',
  ].join('\n');
}

async function switchModel(
  modelString: string | undefined,
  context: CommandContext,
): Promise<CommandOutcome> {
  if (modelString === undefined) {
    return show(
      `Model: ${context.modelString()}. Switch with /model provider:model (e.g. /model ollama:qwen2.5:3b).`,
    );
  }
  try {
    await context.switchModel(modelString);
  } catch (failure) {
    return error(`${message(failure, context.debug)} (still using ${context.modelString()})`);
  }
  return show(`Now using ${context.modelString()}; the conversation goes on.`);
}

async function save(path: string | undefined, context: CommandContext): Promise<CommandOutcome> {
  if (path === undefined) return error('Usage: /save FILE');
  try {
    const written = await context.saveSession(path);
    return show(`Saved the conversation (${context.runner.history.length} messages) to ${written}.`);
  } catch (failure) {
    return error(`Could not save: ${message(failure, context.debug)}`);
  }
}

function message(failure: unknown, debug: boolean): string {
  return describeFailure(failure, debug);
}

function unquote(text: string): string {
  const match = /^(["'])(.*)\1$/s.exec(text);
  return match?.[2] ?? text;
}

/** The command a typo most likely meant: a shared prefix, or at most two edits away. */
function closestCommand(name: string): string | undefined {
  const names = SLASH_COMMANDS.map((command) => command.name);
  const prefixed = names.find((candidate) => candidate.startsWith(name) || name.startsWith(candidate));
  if (prefixed !== undefined) return prefixed;
  let best: { name: string; distance: number } | undefined;
  for (const candidate of names) {
    const distance = editDistance(name, candidate);
    if (distance <= 2 && (best === undefined || distance < best.distance))
      best = { name: candidate, distance };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
