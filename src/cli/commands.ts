/** Slash commands of the chat. Parsing is pure; each command returns the text to show. */
import type { McpRunner } from '../setup/create-runner.js';

export interface SlashCommand {
  readonly name: string;
  readonly summary: string;
}

export const SLASH_COMMANDS: readonly SlashCommand[] = [
  { name: '/help', summary: 'show this help' },
  { name: '/tools', summary: 'list the tools, grouped by server' },
  { name: '/servers', summary: 'show each server: state, tool count, last error' },
  { name: '/clear', summary: 'start a new conversation' },
  { name: '/quit', summary: 'leave (Ctrl-D works too)' },
];

/** What the chat should do after a command. */
export type CommandOutcome = { readonly kind: 'show'; readonly text: string } | { readonly kind: 'quit' };

/** True when the line is meant as a command rather than a prompt. */
export function isCommand(line: string): boolean {
  return /^\/[a-z]/i.test(line.trim());
}

export async function runCommand(line: string, runner: McpRunner): Promise<CommandOutcome> {
  const [name = ''] = line.trim().split(/\s+/);
  switch (name.toLowerCase()) {
    case '/help':
      return show(
        SLASH_COMMANDS.map((command) => `  ${command.name.padEnd(10)} ${command.summary}`).join('\n'),
      );
    case '/tools':
      return show(await listTools(runner));
    case '/servers':
      return show(listServers(runner));
    case '/clear':
      runner.reset();
      return show('Started a new conversation.');
    case '/quit':
    case '/exit':
      return { kind: 'quit' };
    default:
      return show(unknownCommand(name));
  }
}

function show(text: string): CommandOutcome {
  return { kind: 'show', text };
}

function unknownCommand(name: string): string {
  const close = SLASH_COMMANDS.find((command) => command.name.startsWith(name.slice(0, 3).toLowerCase()));
  const hint = close === undefined ? '' : ` Did you mean ${close.name}?`;
  return `Unknown command ${name}.${hint} Type /help for the list (it was not sent to the model).`;
}

async function listTools(runner: McpRunner): Promise<string> {
  const tools = await runner.pool.describeTools();
  if (tools.length === 0) return 'No tools: no MCP server is running.';
  // Map.groupBy needs Node 21; we run on 20.
  const byServer = new Map<string, typeof tools>();
  for (const tool of tools) byServer.set(tool.server, [...(byServer.get(tool.server) ?? []), tool]);
  return [...byServer]
    .map(([server, serverTools]) => {
      const lines = serverTools.map((tool) => {
        const description = tool.description.split('\n')[0] ?? '';
        return `  ${tool.exposedName}${description === '' ? '' : ` — ${description}`}`;
      });
      return `${server} (${serverTools.length})\n${lines.join('\n')}`;
    })
    .join('\n');
}

function listServers(runner: McpRunner): string {
  const servers = runner.servers;
  if (servers.length === 0) return 'No MCP servers are configured.';
  return servers
    .map((server) => {
      const error = server.lastError === undefined ? '' : ` — ${server.lastError}`;
      return `  ${server.name}: ${server.state}, ${server.toolCount} tools${error}`;
    })
    .join('\n');
}
