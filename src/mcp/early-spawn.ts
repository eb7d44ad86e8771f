/**
 * The stdio servers spawned before the MCP SDK loads, so they boot while it does (see
 * server-process.ts). Kept out of pool.ts; each server's first start adopts its process.
 */
import { childEnvironment } from './environment.js';
import type { ServerProcess } from './server-process.js';
import type { McpPoolOptions } from './pool-options.js';
import { definedProperties } from '../util/defined-properties.js';

/** Spawns every stdio server's process (see server-process.ts), by server name. */
export async function spawnStdioServers(options: McpPoolOptions): Promise<Map<string, ServerProcess>> {
  // Loaded here, not with the pool: a run without servers never needs child_process.
  const { ServerProcess, SandboxRefusedError } = await import('./server-process.js');
  const spawned = new Map<string, ServerProcess>();
  for (const [name, definition] of Object.entries(options.servers)) {
    if (definition.transport !== 'stdio') continue;
    try {
      spawned.set(
        name,
        new ServerProcess({
          command: definition.command,
          args: definition.args,
          ...definedProperties({ cwd: definition.cwd }),
          env: childEnvironment(options.env, definition),
          ...definedProperties({ sandbox: definition.sandbox }),
        }),
      );
    } catch (error) {
      // Its sandbox cannot be made: not spawned early; its start says why (the transport tries again).
      if (!(error instanceof SandboxRefusedError)) throw error;
    }
  }
  return spawned;
}
