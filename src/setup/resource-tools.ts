/**
 * The host's resource tools for a runner: added to the tool host (the pool with the `skill` tool)
 * under the same guard, and where the guard finds them (read-only: they read, they change nothing).
 */
import type { ToolHost } from '../core/types.js';
import type { McpPool } from '../mcp/pool.js';
import type { OfferingsChanges } from '../mcp/offerings-changes.js';
import { ResourceToolHost } from '../mcp/resource-tool-host.js';
import { LIST_RESOURCES_TOOL_NAME, READ_RESOURCE_TOOL_NAME } from '../mcp/resource-tools.js';
import type { ToolLocation } from '../safety/guarded-tool-host.js';

/** A tool host and where the guard finds each of its tools. */
export interface HostedTools {
  readonly host: ToolHost;
  locate(exposedName: string): ToolLocation | undefined;
}

/** What the guard's rules and the audit log see for a call of a resource tool. */
function resourceToolLocation(tool: string): ToolLocation {
  return { server: 'mcphost', tool, hints: { readOnly: true, destructive: false, openWorld: false } };
}

/** `host` with the resource tools over `pool`'s servers added, and where the guard finds each tool. */
export function withResourceTools(
  inner: HostedTools,
  pool: McpPool,
  changes: OfferingsChanges | undefined,
): HostedTools {
  return {
    host: new ResourceToolHost({
      inner: inner.host,
      servers: pool,
      ...(changes === undefined ? {} : { changes }),
      isReady: (server) => pool.status().some((status) => status.name === server && status.state === 'ready'),
    }),
    locate: (name) =>
      name === LIST_RESOURCES_TOOL_NAME || name === READ_RESOURCE_TOOL_NAME
        ? resourceToolLocation(name)
        : inner.locate(name),
  };
}
