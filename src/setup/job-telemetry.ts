/**
 * OpenTelemetry for the jobs of a batch or a worker (src/setup/job-host.ts): each job's runner
 * gets a listener of its own, tagged with the job's key, and hook commands join the active span.
 * Made only when the program (or the CLI) registered a provider: nothing is loaded otherwise.
 */
import type { RunObserver } from '../core/run-observer.js';
import type { McpPool } from '../mcp/pool.js';
import { telemetryRegistered } from '../telemetry/registered.js';
import type { RunnerTelemetryOptions } from './runner-options.js';
import { capturesContent, locate } from './telemetry.js';

export interface JobTelemetry {
  /** The listener of one job's runner: its spans carry `mcphost.job.id`; tool calls are located in `pools`. */
  observer(jobKey: string | undefined, pools: readonly McpPool[]): RunObserver;
  /** `TRACEPARENT` of the active span, for hook commands. */
  readonly traceEnvironment: () => Readonly<Record<string, string>>;
}

export async function jobTelemetry(
  options: RunnerTelemetryOptions | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Promise<JobTelemetry | undefined> {
  if (!telemetryRegistered()) return undefined;
  const { createTelemetry } = await import('../telemetry/run-telemetry.js');
  const { activeTraceEnvironment } = await import('../telemetry/trace-context.js');
  const captureContent = options?.captureContent ?? capturesContent(env);
  return {
    observer(jobKey, pools) {
      return createTelemetry({
        env,
        captureContent,
        locateTool: (name) => {
          for (const pool of pools) {
            const found = locate(pool, name);
            if (found !== undefined) return found;
          }
          return undefined;
        },
        ...(jobKey === undefined ? {} : { jobId: jobKey }),
      }).observer;
    },
    traceEnvironment: activeTraceEnvironment,
  };
}
