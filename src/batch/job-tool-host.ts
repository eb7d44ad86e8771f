/**
 * The tools of one batch job: the shared servers' pool and, when some servers are per-job, the
 * job's own pool, seen as one host; narrowed to the job's `servers` when it names some. The guard
 * wraps this host, so every call still passes the job's approval rules and budgets.
 */
import type { RunnerOptions } from '../core/runner.js';
import type { RunObserver } from '../core/run-observer.js';
import type { ToolCallBlock, ToolHost, ToolResultBlock, ToolSpec } from '../core/types.js';
import type { ToolLocation } from '../safety/tool-location.js';

/**
 * One job's guarded tools, for batches (src/setup/batch.ts) and workers (job-workflow.ts) alike;
 * closed when the job ends (its per-job servers stop then).
 */
export interface JobTools {
  /** The job's guard, over its servers' tools and the host's `skill` tool. */
  readonly host: ToolHost;
  /** The guard's hooks around a run (turn count, `UserPromptSubmit` and `Stop` hooks). */
  readonly runnerOptions: Pick<RunnerOptions, 'beforePrompt' | 'afterRun' | 'tokenBudget'>;
  /** The OpenTelemetry listener of the job's runner (tagged with the job), when tracing is on. */
  readonly observer?: RunObserver;
  close(): Promise<void>;
}

/** What the host needs of a pool (McpPool has it). */
export interface ToolPool extends ToolHost {
  locate(exposedName: string): ToolLocation | undefined;
  serverNames(): readonly string[];
}

export interface JobToolHostOptions {
  /** The shared pool first; the job's own pool after it. Server names do not repeat across pools. */
  readonly pools: readonly ToolPool[];
  /** Only these servers' tools (a job's `servers`). Default: every server of the pools. */
  readonly servers?: readonly string[];
}

export class JobToolHost implements ToolHost {
  readonly #pools: readonly ToolPool[];
  readonly #servers: ReadonlySet<string> | undefined;

  constructor(options: JobToolHostOptions) {
    this.#pools = options.pools;
    this.#servers = options.servers === undefined ? undefined : new Set(options.servers);
  }

  /** Server names a job's `servers` gives that no pool has (for a clear error before the run). */
  unknownServers(): string[] {
    if (this.#servers === undefined) return [];
    const known = new Set(this.#pools.flatMap((pool) => pool.serverNames()));
    return [...this.#servers].filter((server) => !known.has(server));
  }

  async tools(): Promise<readonly ToolSpec[]> {
    const lists = await Promise.all(this.#pools.map((pool) => pool.tools()));
    const seen = new Set<string>();
    const specs: ToolSpec[] = [];
    lists.forEach((list, index) => {
      for (const spec of list) {
        // Two pools could shorten two long names alike; the first pool's (the shared one) wins.
        if (seen.has(spec.name) || !this.#allows(this.#pools[index]?.locate(spec.name))) continue;
        seen.add(spec.name);
        specs.push(spec);
      }
    });
    return specs;
  }

  locate(exposedName: string): ToolLocation | undefined {
    for (const pool of this.#pools) {
      const location = pool.locate(exposedName);
      if (location !== undefined) return this.#allows(location) ? location : undefined;
    }
    return undefined;
  }

  async call(call: ToolCallBlock, signal?: AbortSignal): Promise<ToolResultBlock> {
    for (const pool of this.#pools) {
      const location = pool.locate(call.name);
      if (location === undefined) continue;
      if (!this.#allows(location)) break;
      return pool.call(call, signal);
    }
    return {
      type: 'tool-result',
      toolCallId: call.id,
      toolName: call.name,
      content: [
        {
          type: 'text',
          text: `unknown tool "${call.name}": no server of this job offers a tool by that name`,
        },
      ],
      isError: true,
    };
  }

  #allows(location: ToolLocation | undefined): boolean {
    return location !== undefined && (this.#servers === undefined || this.#servers.has(location.server));
  }
}
