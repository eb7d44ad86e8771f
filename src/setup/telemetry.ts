/**
 * The runner's OpenTelemetry listener, when the program registered a provider with the global API
 * (the CLI does when exporting): loaded only then, so a run without telemetry loads no
 * OpenTelemetry module. See src/telemetry/.
 */
import type { McpPool } from '../mcp/pool.js';
import { telemetryRegistered } from '../telemetry/registered.js';
import type { Telemetry, ToolLocation } from '../telemetry/run-telemetry.js';
import type { RunnerTelemetryOptions } from './runner-options.js';
import { definedProperties } from '../util/defined-properties.js';

/** The listener, and `setPool` to tell it where tool calls go once the servers are up. */
export interface RunnerTelemetry {
  readonly telemetry: Telemetry;
  readonly setPool: (pool: McpPool) => void;
}

export async function runnerTelemetry(
  options: RunnerTelemetryOptions | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Promise<RunnerTelemetry | undefined> {
  if (!telemetryRegistered()) return undefined;
  const { createTelemetry } = await import('../telemetry/run-telemetry.js');
  let pool: McpPool | undefined;
  const telemetry = createTelemetry({
    env,
    locateTool: (name) => (pool === undefined ? undefined : locate(pool, name)),
    captureContent: options?.captureContent ?? capturesContent(env),
    ...definedProperties({ conversationId: options?.conversationId, jobId: options?.jobId }),
  });
  return {
    telemetry,
    setPool: (started) => {
      pool = started;
    },
  };
}

/** The standard switch for recording content (GenAI conventions). */
export function capturesContent(env: Readonly<Record<string, string | undefined>>): boolean {
  return env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.trim().toLowerCase() === 'true';
}

/** Where a tool name of `pool` leads, for the MCP attributes of its spans. */
export function locate(pool: McpPool, name: string): ToolLocation | undefined {
  const tool = pool.locate(name);
  if (tool === undefined) return undefined;
  const status = pool.status().find((server) => server.name === tool.server);
  if (status === undefined) return undefined;
  return {
    server: status.name,
    transport: status.transport,
    ...definedProperties({ protocolVersion: status.protocolVersion, sessionId: status.sessionId }),
  };
}
