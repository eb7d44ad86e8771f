/**
 * `mcphost mcp add|add-json|list|get|remove`: the servers of a config file, as `claude mcp` manages
 * them. Changes edit the file in place (see config/edit-servers.ts); `list` starts every server
 * once, briefly, to show whether it works.
 */
import { loadConfig, type LoadedConfig } from '../../../config/index.js';
import { addServerToFile, removeServerFromFile, serverFilePath } from '../../../config/edit-servers.js';
import { configureClientFor, type ServerFeatures } from '../../mcp/client-features.js';
import { McpPool } from '../../mcp/pool.js';
import { planServerRoots } from '../../mcp/server-roots.js';
import type { ServerDefinition } from '../../mcp/definition.js';
import { redactText } from '../../safety/redact.js';
import { stripControlCharacters } from '../../safety/output-limits.js';
import { ConfigError } from '../../core/errors.js';
import type { McpCommand } from '../args.js';
import { ExitCode, type ExitCodeValue } from '../exit-codes.js';
import type { CliIO } from '../io.js';
import { definedProperties } from '../../util/defined-properties.js';

/** How long `mcp list` lets each server start: it is a health check, not a session. */
const LIST_START_TIMEOUT_MS = 10_000;

/**
 * The client capabilities a run declares (elicitation, sampling, roots), so that a server lists
 * the tools a run gets: some offer tools only to a client that can answer them (server-everything
 * lists 13 tools without these, 17 with: get-roots-list, trigger-elicitation-request,
 * trigger-url-elicitation, trigger-sampling-request). No tool runs during a listing, so nobody
 * is asked: a question is declined, a sampling request refused, and the root list is empty (a
 * server keeps the folders of its own arguments).
 */
const LISTING_FEATURES: ServerFeatures = {
  elicit: () => Promise.resolve({ action: 'decline' }),
  sample: () => Promise.reject(new Error('mcphost mcp list answers no sampling requests')),
  roots: () => [],
};

export interface McpCommandContext {
  readonly io: CliIO;
  /** `--config FILE`. */
  readonly configPath?: string;
}

export async function runMcpCommand(command: McpCommand, context: McpCommandContext): Promise<ExitCodeValue> {
  const { io } = context;
  const target = (scope: 'user' | 'project', vscode: boolean) =>
    serverFilePath({
      ...definedProperties({ configPath: context.configPath }),
      scope,
      homeDir: io.homeDir,
      projectDir: io.cwd,
      env: io.env,
      vscode,
    });
  switch (command.action) {
    case 'add': {
      const path = await target(command.scope, command.vscode);
      await addServerToFile(path, command.name, command.entry, io.env, io.homeDir);
      io.stdout.write(`added server "${command.name}" to ${path}\n`);
      return ExitCode.ok;
    }
    case 'remove': {
      const path = await target(command.scope, command.vscode);
      await removeServerFromFile(path, command.name);
      io.stdout.write(`removed server "${command.name}" from ${path}\n`);
      return ExitCode.ok;
    }
    case 'get': {
      const config = await load(context);
      const definition = config.servers[command.name];
      if (definition === undefined) {
        const where = config.path ?? io.homeDir;
        throw new ConfigError(where, `no server named "${command.name}"${namesHint(config)}`);
      }
      // The roots the server would be offered when mcphost runs in this folder (without --root).
      const roots = await planServerRoots({
        servers: { [command.name]: definition },
        shared: config.roots,
        projectDir: io.cwd,
        homeDir: io.homeDir,
        configLabel: config.path ?? 'config',
        serverCwd: io.cwd,
      });
      io.stdout.write(describeDefinition(command.name, definition, roots.describe(command.name)));
      return ExitCode.ok;
    }
    case 'list':
      return listServers(await load(context), io, command.namesOnly);
    case 'pins':
    case 'pins-reset': {
      const { runPinsCommand } = await import('./pins-commands.js');
      return runPinsCommand(command, io);
    }
  }
}

function load(context: McpCommandContext): Promise<LoadedConfig> {
  const { io } = context;
  return loadConfig({
    configPath: context.configPath,
    homeDir: io.homeDir,
    env: io.env,
    projectDir: io.cwd,
    // Listing and editing need no secret: a VS Code file's inputs stay as written.
    leaveInputs: true,
  });
}

function namesHint(config: LoadedConfig): string {
  const names = Object.keys(config.servers);
  return names.length === 0 ? ' (there are none)' : ` (there are: ${names.join(', ')})`;
}

async function listServers(config: LoadedConfig, io: CliIO, namesOnly: boolean): Promise<ExitCodeValue> {
  const names = Object.keys(config.servers);
  if (namesOnly) {
    io.stdout.write(names.map((name) => `${name}\n`).join(''));
    return ExitCode.ok;
  }
  for (const warning of config.warnings) io.stderr.write(`mcphost: ${warning}\n`);
  if (config.path === undefined) {
    io.stdout.write(`no config file in ${io.homeDir}: add a server with mcphost mcp add NAME -- COMMAND\n`);
    return ExitCode.ok;
  }
  io.stdout.write(`${config.path}\n`);
  if (names.length === 0 && config.disabledServers.length === 0) {
    io.stdout.write('  no servers\n');
    return ExitCode.ok;
  }
  const pool = await McpPool.start({
    servers: config.servers,
    env: io.env,
    initTimeoutMs: LIST_START_TIMEOUT_MS,
    configureClient: configureClientFor(LISTING_FEATURES),
  });
  let anyFailed = false;
  try {
    const width = Math.max(
      ...names.map((name) => name.length),
      ...config.disabledServers.map((name) => name.length),
    );
    for (const status of pool.status()) {
      if (status.state !== 'ready') anyFailed = true;
      const definition = config.servers[status.name];
      const state =
        status.state === 'ready'
          ? `✓ ready, ${status.toolCount} tool${status.toolCount === 1 ? '' : 's'}`
          : `✗ ${status.state}${status.lastError === undefined ? '' : `: ${clean(status.lastError.split('\n')[0] ?? '')}`}`;
      io.stdout.write(
        `  ${status.name.padEnd(width)}  ${definition === undefined ? '' : target(definition)}  ${state}\n`,
      );
    }
    for (const name of config.disabledServers) io.stdout.write(`  ${name.padEnd(width)}  (disabled)\n`);
  } finally {
    await pool.close();
  }
  // A health check a script can test: a server that did not start is the `servers` exit code.
  return anyFailed ? ExitCode.servers : ExitCode.ok;
}

function clean(text: string): string {
  return stripControlCharacters(redactText(text));
}

/** The command line or URL of a server, as one short string. */
function target(definition: ServerDefinition): string {
  switch (definition.transport) {
    case 'stdio':
      return clean([definition.command, ...definition.args].join(' '));
    case 'http':
    case 'sse':
      return `${definition.url} (${definition.transport})`;
    case 'builtin':
      return `built-in ${definition.builtin.name}`;
  }
}

/** `mcp get`: every setting of one server. Values of env and headers are not shown: they may be secrets. */
function describeDefinition(name: string, definition: ServerDefinition, roots: string): string {
  const lines = [`${name}:`, `  transport: ${definition.transport}`];
  switch (definition.transport) {
    case 'stdio':
      lines.push(`  command: ${clean(definition.command)}`);
      if (definition.args.length > 0) lines.push(`  args: ${clean(definition.args.join(' '))}`);
      if (Object.keys(definition.env).length > 0)
        lines.push(`  env: ${Object.keys(definition.env).join(', ')}`);
      if (definition.cwd !== undefined) lines.push(`  cwd: ${definition.cwd}`);
      break;
    case 'http':
    case 'sse':
      lines.push(`  url: ${definition.url}`);
      if (Object.keys(definition.headers).length > 0) {
        lines.push(`  headers: ${Object.keys(definition.headers).join(', ')}`);
      }
      break;
    case 'builtin':
      lines.push(`  builtin: ${definition.builtin.name}`);
      // The options are folders, limits and addresses, never secrets: shown whole.
      if (Object.keys(definition.builtin.options).length > 0)
        lines.push(`  options: ${clean(JSON.stringify(definition.builtin.options))}`);
      break;
  }
  if (definition.allowedTools !== undefined)
    lines.push(`  allowedTools: ${definition.allowedTools.join(', ')}`);
  if (definition.excludedTools !== undefined)
    lines.push(`  excludedTools: ${definition.excludedTools.join(', ')}`);
  lines.push(`  roots: ${clean(roots)}`);
  return `${lines.join('\n')}\n`;
}
