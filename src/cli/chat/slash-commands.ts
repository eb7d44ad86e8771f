/**
 * Slash commands of the chat. Each module exports its list of commands and is registered below
 * with one line; parsing is pure ({@link parseCommand}); running one ({@link runCommand}) goes
 * through a {@link CommandContext}, so tests drive it without a terminal.
 */
import { describeFailure } from '../exit-codes.js';
import { listHistory, listServers, listTools, showUsage } from './listings.js';
import { OFFERINGS_COMMANDS, promptsHelp } from './offerings-commands.js';
import { CONVERSATION_COMMANDS } from './conversation-commands.js';
import { PERMISSIONS_COMMANDS } from './permissions-command.js';
import { ROOTS_COMMANDS } from './roots-command.js';
import { SKILLS_COMMANDS } from './skills-command.js';
import { AGENTS_COMMANDS } from './agents-command.js';
import { TASKS_COMMANDS } from './tasks-command.js';
import { APPS_COMMANDS } from './apps-command.js';
import {
  failed,
  parseCommandLine,
  show,
  type ChatCommand,
  type CommandContext,
  type CommandHelp,
  type CommandOutcome,
  type ParsedCommand,
} from './command-table.js';
import type { Style } from './style.js';
import wrapAnsi from 'wrap-ansi';
import { compactionNotice } from '../output/text.js';

export type {
  ChatCommand,
  CommandContext,
  CommandHelp,
  CommandOutcome,
  ParsedCommand,
} from './command-table.js';

const CORE_COMMANDS: readonly ChatCommand[] = [
  {
    name: '/help',
    summary: 'show this help',
    run: async (_, context) => {
      const prompts = (await context.offerings?.catalog())?.prompts ?? [];
      return show(
        [helpText(context.style, context.columns()), ...promptsHelp(prompts, context.style)].join('\n'),
      );
    },
  },
  {
    name: '/tools',
    summary: 'list the tools, grouped by server',
    run: async (_, context) => {
      const [tools, mode] = await Promise.all([
        context.describeTools(),
        context.runner.toolMode().catch(() => undefined),
      ]);
      return show(listTools(tools, context.style, context.columns(), mode));
    },
  },
  {
    name: '/servers',
    summary: 'show each server: state, tool count, roots, last error',
    run: (_, context) =>
      show(
        listServers(context.servers(), context.style, context.columns(), (server) =>
          context.roots?.describe(server),
        ),
      ),
  },
  {
    name: '/history',
    summary: 'show the conversation so far',
    run: (_, context) =>
      show(listHistory(context.runner.history, context.style, context.columns(), context.agentRuns?.())),
  },
  {
    name: '/clear',
    aliases: ['/new'],
    summary: 'start a new conversation (also /new)',
    run: (_, context) => {
      context.runner.reset();
      return show('Started a new conversation.');
    },
  },
  {
    name: '/usage',
    summary: 'tokens in and out this session, and context use',
    run: (_, context) =>
      show(showUsage(context.usage, context.modelString(), context.style, context.runner.contextUsage)),
  },
  {
    name: '/compact',
    argument: '[focus]',
    summary: 'summarize the older conversation now',
    run: (focus, context) => compact(focus === '' ? undefined : focus, context),
  },
];

const QUIT_COMMANDS: readonly ChatCommand[] = [
  {
    name: '/quit',
    aliases: ['/exit'],
    summary: 'leave (also /exit, or Ctrl-D)',
    run: () => ({ kind: 'quit' }),
  },
];

/** Every command, in the order `/help` lists them: one line per module. */
export const CHAT_COMMANDS: readonly ChatCommand[] = [
  ...CORE_COMMANDS,
  ...OFFERINGS_COMMANDS,
  ...ROOTS_COMMANDS,
  ...SKILLS_COMMANDS,
  ...AGENTS_COMMANDS,
  ...TASKS_COMMANDS,
  ...APPS_COMMANDS,
  ...CONVERSATION_COMMANDS,
  ...PERMISSIONS_COMMANDS,
  ...QUIT_COMMANDS,
];

/** The commands' help, for `/help` and Tab completion. */
export const SLASH_COMMANDS: readonly CommandHelp[] = CHAT_COMMANDS;

/** The command on a line, or undefined when the line is a prompt for the model. */
export function parseCommand(line: string): ParsedCommand | undefined {
  return parseCommandLine(line, CHAT_COMMANDS);
}

/** A line the model should get: `//text` becomes `/text`. */
export function promptText(line: string): string {
  return line.startsWith('//') ? line.slice(1) : line;
}

export async function runCommand(parsed: ParsedCommand, context: CommandContext): Promise<CommandOutcome> {
  switch (parsed.kind) {
    case 'command':
      return parsed.command.run(parsed.argument, context);
    case 'unknown': {
      const hint = parsed.suggestion === undefined ? '' : ` — did you mean ${parsed.suggestion}?`;
      return failed(
        `Unknown command ${parsed.name}${hint} (/help lists them; nothing was sent to the model)`,
      );
    }
    default: {
      const unexpected: never = parsed;
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
    return failed(`Could not compact: ${describeFailure(failure, context.debug)}`);
  }
}

/** The commands and keys, wrapped to the terminal's width (a summary under its command when narrow). */
export function helpText(style: Style, columns: number): string {
  const usage = (command: CommandHelp) =>
    command.argument === undefined ? command.name : `${command.name} ${command.argument}`;
  const width = Math.max(...SLASH_COMMANDS.map((command) => usage(command).length));
  // Room for the summaries beside the commands; below MIN_SUMMARY_WIDTH they go under them.
  const besides = columns - 2 - width - 2;
  const lines = SLASH_COMMANDS.map((command) => {
    if (besides < MIN_SUMMARY_WIDTH) {
      const summary = wrapAnsi(command.summary, Math.max(1, columns - 4), { hard: true });
      return `  ${style.cyan(usage(command))}\n${indentLines(summary, 4)}`;
    }
    const [first = '', ...rest] = wrapAnsi(command.summary, besides, { hard: true }).split('\n');
    const continued = rest.map((line) => `${' '.repeat(columns - besides)}${line}`);
    return [`  ${style.cyan(usage(command).padEnd(width))}  ${first}`, ...continued].join('\n');
  });
  const keys =
    'Keys: Tab completes a command, @server:uri, /server:prompt and its arguments · Up/Down recall ' +
    'earlier input · Ctrl-C stops a turn (twice at an ' +
    'empty prompt to quit) · Ctrl-D quits. End a line with \\ to continue on the next one; pasted ' +
    'lines are kept together until you press Enter. Start a message with // to send a leading /.';
  return ['Commands:', ...lines, '', wrapAnsi(keys, Math.max(1, columns), { hard: true })].join('\n');
}

/** Narrower than this, a command's summary goes on the lines under it. */
const MIN_SUMMARY_WIDTH = 24;

function indentLines(text: string, spaces: number): string {
  return text
    .split('\n')
    .map((line) => `${' '.repeat(spaces)}${line}`)
    .join('\n');
}
