/**
 * `mcphost mcp add|add-json|list|get|remove|pins` in the yargs command tree: parsing only, and the
 * server entry `mcp add` writes. The handlers live in mcp-commands.ts, imported only when one runs.
 */
import type { Argv } from 'yargs';
import { ConfigError } from '../../core/errors.js';
import { definedProperties } from '../../util/defined-properties.js';
import { command, noOptions, stringValue, type Values } from './yargs-command.js';

/** `mcphost mcp …`: a change to the servers of a config file, or a look at them. */
export type McpCommand =
  | {
      readonly action: 'add';
      readonly name: string;
      /** The server entry to write, as the config file holds it. */
      readonly entry: Readonly<Record<string, unknown>>;
      readonly scope: 'user' | 'project';
      /** `--vscode`: into VS Code's file of the scope, in its form. */
      readonly vscode: boolean;
    }
  | {
      readonly action: 'remove';
      readonly name: string;
      readonly scope: 'user' | 'project';
      readonly vscode: boolean;
    }
  /** `namesOnly` (hidden `--names`, for shell completion): the names, one a line, nothing started. */
  | { readonly action: 'list'; readonly namesOnly: boolean }
  | { readonly action: 'get'; readonly name: string }
  /** `mcp pins`: the pinned tool definitions; `mcp pins reset [SERVER [TOOL]]`: forget them. */
  | { readonly action: 'pins' }
  | { readonly action: 'pins-reset'; readonly server?: string; readonly tool?: string };

/** The `mcp` command's sub-commands; `choose` receives the one the command line names. */
export function mcpCommands(parser: Argv, choose: (command: McpCommand) => void): Argv {
  const scope = {
    alias: 's',
    choices: ['user', 'project'],
    default: 'user',
    describe: 'user: the config in your home folder; project: .mcp.json here',
  } as const;
  const scopeOf = (values: Values): 'user' | 'project' => (values.scope === 'project' ? 'project' : 'user');
  const withScope = (command: Argv): Argv =>
    command.option('scope', scope).option('vscode', {
      type: 'boolean',
      describe: "VS Code's file instead: .vscode/mcp.json (project) or VS Code's user mcp.json",
    });
  const vscodeOf = (values: Values): boolean => values.vscode === true;
  let tree: Argv = parser.option('config', {
    type: 'string',
    describe: 'edit or read this config file instead',
  });
  tree = command(
    tree,
    'add <name> [command..]',
    'add a server: mcphost mcp add NAME -- COMMAND [ARGS…], or --transport http --url URL',
    (add) =>
      withScope(add)
        .option('env', { alias: 'e', type: 'string', array: true, describe: 'KEY=VALUE for a stdio server' })
        .option('transport', {
          alias: 't',
          choices: ['stdio', 'http', 'sse'],
          describe: 'default: stdio, or http with --url',
        })
        .option('url', { type: 'string', describe: 'the URL of a remote server' })
        .option('header', {
          alias: 'H',
          type: 'string',
          array: true,
          describe: '"Name: value" for a remote server',
        }),
    (values) =>
      choose({ action: 'add', ...serverEntryOf(values), scope: scopeOf(values), vscode: vscodeOf(values) }),
  );
  tree = command(tree, 'add-json <name> <json>', 'add a server from its JSON entry', withScope, (values) =>
    choose({
      action: 'add',
      name: String(values.name),
      entry: jsonEntry(String(values.json)),
      scope: scopeOf(values),
      vscode: vscodeOf(values),
    }),
  );
  tree = command(
    tree,
    'list',
    'list the servers, each with its status after a quick start',
    (list) => list.option('names', { type: 'boolean', hidden: true }),
    (values) => choose({ action: 'list', namesOnly: values.names === true }),
  );
  tree = command(tree, 'get <name>', 'show one server', noOptions, (values) =>
    choose({ action: 'get', name: String(values.name) }),
  );
  tree = command(tree, 'remove <name>', 'remove a server', withScope, (values) =>
    choose({ action: 'remove', name: String(values.name), scope: scopeOf(values), vscode: vscodeOf(values) }),
  );
  tree = command(
    tree,
    'pins',
    'list pinned tool definitions; pins reset [SERVER [TOOL]] forgets them',
    (pins) =>
      command(
        pins,
        'reset [server] [tool]',
        "forget pins: all, a server's, or one tool's",
        noOptions,
        (values) =>
          choose({
            action: 'pins-reset',
            ...definedProperties({ server: stringValue(values.server), tool: stringValue(values.tool) }),
          }),
      ),
    () => choose({ action: 'pins' }),
  );
  return tree.demandCommand(1, 'mcp needs a command: add, add-json, list, get, remove or pins');
}

/** The entry `mcp add` writes, from its flags and the command after `--`. */
function serverEntryOf(values: Values): { name: string; entry: Record<string, unknown> } {
  const name = String(values.name);
  const command = [
    ...((values.command as string[] | undefined) ?? []),
    ...((values['--'] as string[] | undefined) ?? []),
  ].map(String);
  const url = stringValue(values.url);
  const transport = (values.transport as string | undefined) ?? (url === undefined ? 'stdio' : 'http');
  const env = pairs((values.env as string[] | undefined) ?? [], '=', '--env', 'KEY=VALUE');
  const headers = pairs((values.header as string[] | undefined) ?? [], ':', '--header', '"Name: value"');
  if (transport === 'stdio') {
    if (url !== undefined) throw new ConfigError('--url', 'only for --transport http or sse');
    if (Object.keys(headers).length > 0)
      throw new ConfigError('--header', 'only for --transport http or sse');
    const [program, ...args] = command;
    if (program === undefined)
      throw new ConfigError('mcp add', `needs a command: mcphost mcp add ${name} -- COMMAND [ARGS…]`);
    return {
      name,
      entry: {
        command: program,
        ...(args.length > 0 ? { args } : {}),
        ...(Object.keys(env).length > 0 ? { env } : {}),
      },
    };
  }
  if (url === undefined) throw new ConfigError('--url', `needed with --transport ${transport}`);
  if (command.length > 0)
    throw new ConfigError('mcp add', `a remote server takes --url, not a command ("${command[0] ?? ''}")`);
  if (Object.keys(env).length > 0) throw new ConfigError('--env', 'only for a stdio server');
  return { name, entry: { type: transport, url, ...(Object.keys(headers).length > 0 ? { headers } : {}) } };
}

function pairs(
  items: readonly string[],
  separator: string,
  flag: string,
  form: string,
): Record<string, string> {
  const result: Record<string, string> = {};
  for (const item of items) {
    const at = item.indexOf(separator);
    if (at <= 0) throw new ConfigError(flag, `expected ${form}, got "${item}"`);
    result[item.slice(0, at).trim()] = item.slice(at + 1).trim();
  }
  return result;
}

function jsonEntry(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError('mcp add-json', `the entry is not valid JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError('mcp add-json', 'the entry must be a JSON object ({"command": …} or {"url": …})');
  }
  return value as Record<string, unknown>;
}
