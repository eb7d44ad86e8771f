/**
 * Which servers run in a sandbox (their own `sandbox` setting, or `--sandbox` for one run), and
 * the check, before any server starts, that a sandbox can be made here at all: asked for and
 * impossible is an error that names where it was asked, never a run without it.
 */
import { ConfigError } from '../core/errors.js';
import type { ServerDefinition } from '../mcp/definition.js';
import type { SandboxSettings } from '../safety/sandbox-settings.js';

/** The sandbox a server runs in, if any (stdio servers and the built-in `bash` have one). */
export function sandboxOf(definition: ServerDefinition): SandboxSettings | undefined {
  switch (definition.transport) {
    case 'stdio':
      return definition.sandbox;
    case 'builtin':
      return definition.builtin.name === 'bash' ? definition.builtin.options.sandbox : undefined;
    case 'http':
    case 'sse':
      return undefined;
    default: {
      const unexpected: never = definition;
      return unexpected;
    }
  }
}

/** Whether the server runs processes on this machine, which a sandbox can hold (stdio, `bash`). */
export function runsLocalProcesses(definition: ServerDefinition): boolean {
  return (
    definition.transport === 'stdio' ||
    (definition.transport === 'builtin' && definition.builtin.name === 'bash')
  );
}

/**
 * `--sandbox`: every stdio server and the built-in `bash` in a sandbox, each keeping its own
 * settings when it has some, the strictest defaults (`{}`) when not.
 */
export function withSandboxes(
  servers: Readonly<Record<string, ServerDefinition>>,
): Record<string, ServerDefinition> {
  return Object.fromEntries(
    Object.entries(servers).map(([name, definition]): [string, ServerDefinition] => {
      if (!runsLocalProcesses(definition) || sandboxOf(definition) !== undefined) return [name, definition];
      if (definition.transport === 'stdio') return [name, { ...definition, sandbox: {} }];
      if (definition.transport === 'builtin' && definition.builtin.name === 'bash') {
        return [
          name,
          {
            ...definition,
            builtin: { ...definition.builtin, options: { ...definition.builtin.options, sandbox: {} } },
          },
        ];
      }
      return [name, definition];
    }),
  );
}

/**
 * Throws a ConfigError naming where a sandbox was asked for (`--sandbox`, or the first server
 * that has one) when none can be made on this machine: not Linux, no bwrap on PATH, or bwrap
 * refuses (no user namespaces…).
 */
export async function requireSandboxSupport(
  servers: Readonly<Record<string, ServerDefinition>>,
  context: {
    readonly env: Readonly<Record<string, string | undefined>>;
    /** True when `--sandbox` (or createRunner's `sandbox`) asked for them. */
    readonly fromFlag: boolean;
    /** The config file, for naming the server entry. */
    readonly configPath: string | undefined;
  },
): Promise<void> {
  const first = Object.entries(servers).find(([, definition]) => sandboxOf(definition) !== undefined);
  if (first === undefined) return;
  const { sandboxUnavailable } = await import('../safety/sandbox.js');
  const reason = await sandboxUnavailable(context.env);
  if (reason === undefined) return;
  const [name, definition] = first;
  const key = definition.transport === 'builtin' ? 'options.sandbox' : 'sandbox';
  const source = context.fromFlag
    ? '--sandbox'
    : `${context.configPath ?? 'config'}: mcpServers.${name}.${key}`;
  throw new ConfigError(source, `cannot make a sandbox: ${reason}`);
}
