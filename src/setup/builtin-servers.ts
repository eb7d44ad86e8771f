/**
 * Turning on built-in servers for one run (`--builtin fs,todo`, or createRunner's `builtin`), and
 * the approval rules they bring with them (bash asks before each command unless told otherwise).
 */
import type { BuiltinHost } from '../builtin/host.js';
import type { BuiltinServerName } from '../builtin/names.js';
import { requiresApproval } from '../builtin/options.js';
import { ConfigError } from '../core/errors.js';
import type { ServerDefinition } from '../mcp/definition.js';
export { parseBuiltinNames } from '../builtin/names.js';
import type { ApprovalRuleSet } from '../safety/policy.js';

/**
 * The servers with the named built-in ones added, each under its own name (`fs__read_file`) and
 * default options. A configured server of that name wins when it is that built-in server (its
 * options are kept); a different server of that name is an error.
 */
export function withBuiltinServers(
  servers: Readonly<Record<string, ServerDefinition>>,
  names: readonly BuiltinServerName[],
  source = '--builtin',
): Record<string, ServerDefinition> {
  const result: Record<string, ServerDefinition> = { ...servers };
  for (const name of names) {
    const existing = result[name];
    if (existing === undefined) {
      result[name] = { transport: 'builtin', builtin: defaultSettings(name) };
    } else if (existing.transport !== 'builtin' || existing.builtin.name !== name) {
      throw new ConfigError(source, `a configured server is already named "${name}"`);
    }
  }
  return result;
}

function defaultSettings(
  name: BuiltinServerName,
): Extract<ServerDefinition, { transport: 'builtin' }>['builtin'] {
  switch (name) {
    case 'fs':
      return { name, options: {} };
    case 'bash':
      return { name, options: {} };
    case 'todo':
      return { name, options: {} };
    case 'fetch':
      return { name, options: {} };
    default: {
      const unexpected: never = name;
      return unexpected;
    }
  }
}

/**
 * One rule set per built-in server that asks by default (bash): every call asks. Across rule sets
 * the strictest answer wins, so a config rule cannot lift it; `"requireApproval": false` in the
 * server's options, or `--approve-all`, does.
 */
export function builtinApprovalRules(servers: Readonly<Record<string, ServerDefinition>>): ApprovalRuleSet[] {
  return Object.entries(servers).flatMap(([server, definition]) =>
    definition.transport === 'builtin' && requiresApproval(definition.builtin)
      ? [
          {
            source: `the built-in "${definition.builtin.name}" server's default (options.requireApproval)`,
            // A kept "always allow" from an earlier run does not lift it (docs/builtin-servers.md).
            alwaysAsk: true,
            rules: [{ server, decision: 'ask' as const, reason: 'runs a shell command on this machine' }],
          },
        ]
      : [],
  );
}

/** The servers with every built-in one given `host` (an editor's files, terminal and plan view). */
export function withBuiltinHost(
  servers: Readonly<Record<string, ServerDefinition>>,
  host: BuiltinHost,
): Record<string, ServerDefinition> {
  return Object.fromEntries(
    Object.entries(servers).map(([name, definition]) => [
      name,
      definition.transport === 'builtin' ? { ...definition, host } : definition,
    ]),
  );
}
