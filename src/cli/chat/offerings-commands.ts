/**
 * The chat's commands for what servers offer besides tools: `/resources [server]` (resources and
 * templates) and `/prompts [server]` (prompts with their arguments, invoked as `/server:prompt`).
 */
import type { PromptEntry } from '../../mcp/prompts.js';
import { describeArguments } from '../../mcp/prompts.js';
import type { ResourceListing } from '../../mcp/resources.js';
import type { ServerOfferings } from '../../mcp/server-offerings.js';
import { stripControlCharacters } from '../../safety/output-limits.js';
import { describeLogData, type ServerLogRecord } from '../../mcp/server-logs.js';
import type { Style } from './style.js';
import { describeFailure } from '../exit-codes.js';
import { failed, show, type ChatCommand, type CommandContext, type CommandOutcome } from './command-table.js';

/** These commands, registered in `src/cli/chat/slash-commands.ts`. */
export const OFFERINGS_COMMANDS: readonly ChatCommand[] = [
  {
    name: '/resources',
    argument: '[server]',
    summary: 'list resources and templates; attach one with @server:uri',
    run: (server, context) => listOfferings(showResources, server, context),
  },
  {
    name: '/prompts',
    argument: '[server]',
    summary: 'list prompts; run one with /server:prompt [args]',
    run: (server, context) => listOfferings(showPrompts, server, context),
  },
  {
    name: '/logs',
    argument: '[server]',
    summary: "the servers' latest log messages",
    run: (server, context) =>
      show(formatServerLogs(context.serverLogs?.(server === '' ? undefined : server) ?? [], context.style)),
  },
];

async function listOfferings(
  list: (offerings: ServerOfferings, server: string | undefined, style: Style) => Promise<string>,
  server: string,
  context: CommandContext,
): Promise<CommandOutcome> {
  if (context.offerings === undefined) return failed('No MCP servers in this chat.');
  try {
    return show(await list(context.offerings, server === '' ? undefined : server, context.style));
  } catch (failure) {
    return failed(describeFailure(failure, context.debug));
  }
}

const clean = (text: string): string => stripControlCharacters(text);

/** `/resources [server]`. */
export async function showResources(
  offerings: ServerOfferings,
  server: string | undefined,
  style: Style,
): Promise<string> {
  return formatResources(await offerings.listResources(server), style);
}

export function formatResources(listing: ResourceListing, style: Style): string {
  const lines: string[] = [];
  for (const resource of listing.resources) {
    const about = resource.description ?? resource.title ?? resource.name;
    lines.push(`  ${style.cyan(`@${resource.server}:${clean(resource.uri)}`)}  ${clean(about)}`);
  }
  if (listing.templates.length > 0) {
    lines.push('Templates (fill in the {braces}):');
    for (const template of listing.templates) {
      const about = template.description ?? template.title ?? template.name;
      lines.push(`  ${style.cyan(`@${template.server}:${clean(template.uriTemplate)}`)}  ${clean(about)}`);
    }
  }
  for (const failure of listing.failures) {
    lines.push(style.red(`  ${failure.server}: ${clean(failure.reason)}`));
  }
  return lines.length === 0 ? 'No server offers resources.' : ['Resources:', ...lines].join('\n');
}

/** `/prompts [server]`. */
export async function showPrompts(
  offerings: ServerOfferings,
  server: string | undefined,
  style: Style,
): Promise<string> {
  return formatPrompts(await offerings.listPrompts(server), style);
}

export function formatPrompts(prompts: readonly PromptEntry[], style: Style): string {
  if (prompts.length === 0) return 'No server offers prompts.';
  const lines = prompts.map((prompt) => {
    const about = prompt.description ?? prompt.title ?? '';
    return `  ${style.cyan(`/${prompt.server}:${prompt.name}`)}  ${clean(about)}\n      takes ${clean(describeArguments(prompt))}`;
  });
  return ['Prompts (arguments as name=value or in order):', ...lines].join('\n');
}

/** The servers' prompts as lines of `/help` (none when no server offers any). */
export function promptsHelp(prompts: readonly PromptEntry[], style: Style): string[] {
  if (prompts.length === 0) return [];
  const usage = (prompt: PromptEntry): string =>
    [
      `/${prompt.server}:${prompt.name}`,
      ...prompt.arguments.map((argument) =>
        argument.required === true ? `<${argument.name}>` : `[${argument.name}]`,
      ),
    ].join(' ');
  const width = Math.min(40, Math.max(...prompts.map((prompt) => usage(prompt).length)));
  return [
    '',
    "Servers' prompts (their messages become your turn; Tab completes names and values):",
    ...prompts.map((prompt) =>
      `  ${style.cyan(clean(usage(prompt)).padEnd(width))}  ${clean(prompt.description ?? prompt.title ?? '')}`.trimEnd(),
    ),
  ];
}

/** `/logs [server]`: the kept log messages, oldest first. */
export function formatServerLogs(records: readonly ServerLogRecord[], style: Style): string {
  if (records.length === 0) return 'No log messages from servers yet.';
  return records
    .map((record) => {
      const time = new Date(record.at).toISOString().slice(11, 19);
      const logger = record.logger === undefined ? '' : ` ${clean(record.logger)}`;
      const level = ['error', 'critical', 'alert', 'emergency'].includes(record.level)
        ? style.red(record.level)
        : record.level;
      return `  ${time} ${style.cyan(record.server)} ${level}${logger}: ${clean(describeLogData(record.data))}`;
    })
    .join('\n');
}
