/** Helpers for the built-in server tests: a pool running one built-in server, and calls to it. */
import type { BuiltinServerSettings } from '../../src/builtin/options.js';
import type { McpPool } from '../../src/mcp/pool.js';
import { firstText, startPool, testEnvironment, toolCall } from '../mcp/support.js';

export { closePoolsAfterEach } from '../mcp/support.js';

/** A pool whose one server is the built-in server `settings`, under its own name. */
export async function startBuiltin(settings: BuiltinServerSettings): Promise<McpPool> {
  const pool = await startPool({
    servers: { [settings.name]: { transport: 'builtin', builtin: settings } },
    env: testEnvironment(),
  });
  const [status] = pool.status();
  if (status?.state !== 'ready')
    throw new Error(`built-in ${settings.name} did not start: ${status?.lastError ?? '?'}`);
  return pool;
}

/** Calls `server__tool` and gives back its text and error flag. */
export async function callTool(
  pool: McpPool,
  name: string,
  input: Record<string, unknown> = {},
  signal?: AbortSignal,
): Promise<{ readonly text: string; readonly isError: boolean }> {
  const result = await pool.call(toolCall(name, input), signal);
  return { text: firstText(result), isError: result.isError };
}
