/**
 * Budgets and rate limits on what the model may make the tools do, counted over a session (one
 * createRunner, one mcphost process): for the whole session, for each server and for each tool.
 * Past a limit, a call is answered with an error the model reads (and the chat shows) naming the
 * limit; it does not run. The defaults are far above normal use and only stop a runaway loop.
 */

/** Limits of one scope. A missing field is no limit. */
export interface BudgetLimits {
  /** Most tool calls. */
  readonly maxCalls?: number;
  /** Most calls started in any 60-second window. */
  readonly callsPerMinute?: number;
  /** Most time spent in tools, in milliseconds (a call is refused once the total is reached). */
  readonly maxToolTimeMs?: number;
  /** Most result text, in UTF-8 bytes (a call is refused once the total is reached). */
  readonly maxResultBytes?: number;
}

/** Limits on servers' sampling requests (see src/mcp/sampling.ts for the defaults). */
export interface SamplingBudget {
  /** Most sampling requests (of all servers together) during one prompt of the session. */
  readonly maxRequestsPerTurn?: number;
  /** Most tokens a request may ask for (`maxTokens`); a request asking for more is declined. */
  readonly maxTokens?: number;
}

/** Budgets of a session. */
export interface BudgetOptions {
  /**
   * Most model tokens (input and output) of the session: its runs, the agents it calls and
   * compaction's summaries. Once spent, the next model call is refused (`TokenBudgetError`).
   * Default: none. In a batch, each job has its own.
   */
  readonly maxTokens?: number;
  /** Servers' sampling requests; each also counts as a call of its server in the other scopes. */
  readonly sampling?: SamplingBudget;
  /** For all calls together. Default {@link DEFAULT_SESSION_LIMITS}. */
  readonly session?: BudgetLimits;
  /** For each server on its own. Default: none. */
  readonly eachServer?: BudgetLimits;
  /** For each tool on its own. Default: none. */
  readonly eachTool?: BudgetLimits;
  /** For one server by its configured name (instead of `eachServer`). */
  readonly servers?: Readonly<Record<string, BudgetLimits>>;
  /** For one tool by its exposed name `server__tool` (instead of `eachTool`). */
  readonly tools?: Readonly<Record<string, BudgetLimits>>;
}

/** The session defaults: far above a normal session, low enough to end a runaway loop. */
export const DEFAULT_SESSION_LIMITS: Required<BudgetLimits> = {
  maxCalls: 2_000,
  callsPerMinute: 300,
  maxToolTimeMs: 4 * 60 * 60 * 1000,
  maxResultBytes: 256 * 1024 * 1024,
};

const MINUTE_MS = 60_000;

interface Usage {
  calls: number;
  toolTimeMs: number;
  resultBytes: number;
  /** Start times within the last minute, oldest first. */
  recent: number[];
}

/** What a call is charged to. */
export interface BudgetKey {
  /** The exposed name. */
  readonly tool: string;
  readonly server?: string;
}

export class ToolBudgets {
  readonly #options: BudgetOptions;
  readonly #usage = new Map<string, Usage>();
  readonly #now: () => number;

  constructor(options: BudgetOptions = {}, now: () => number = Date.now) {
    for (const [scope, limits] of scopesOf(options)) checkLimits(limits, scope);
    this.#options = options;
    this.#now = now;
  }

  /**
   * Admits a call and counts it, or says which limit it is past (one line for the model and the
   * user). A server's sampling request is admitted here too, under its server.
   */
  admit(key: BudgetKey): string | undefined {
    const now = this.#now();
    const scopes = this.#scopes(key);
    for (const { name, limits, usage } of scopes) {
      usage.recent = usage.recent.filter((time) => now - time < MINUTE_MS);
      const problem = exceeded(limits, usage);
      if (problem !== undefined) return `${name}: ${problem}`;
    }
    for (const { usage } of scopes) {
      usage.calls += 1;
      usage.recent.push(now);
    }
    return undefined;
  }

  /** Adds what an admitted call used. */
  charge(key: BudgetKey, spent: { readonly toolTimeMs: number; readonly resultBytes: number }): void {
    for (const { usage } of this.#scopes(key)) {
      usage.toolTimeMs += spent.toolTimeMs;
      usage.resultBytes += spent.resultBytes;
    }
  }

  #scopes(key: BudgetKey): Array<{ name: string; limits: BudgetLimits; usage: Usage }> {
    const options = this.#options;
    const scopes = [
      { id: 'session', name: 'the session budget', limits: options.session ?? DEFAULT_SESSION_LIMITS },
    ];
    if (key.server !== undefined) {
      const limits = options.servers?.[key.server] ?? options.eachServer;
      if (limits !== undefined)
        scopes.push({ id: `server:${key.server}`, name: `the budget of server ${key.server}`, limits });
    }
    const toolLimits = options.tools?.[key.tool] ?? options.eachTool;
    if (toolLimits !== undefined)
      scopes.push({ id: `tool:${key.tool}`, name: `the budget of tool ${key.tool}`, limits: toolLimits });
    return scopes.map((scope) => ({ ...scope, usage: this.#usageOf(scope.id) }));
  }

  #usageOf(id: string): Usage {
    let usage = this.#usage.get(id);
    if (usage === undefined) {
      usage = { calls: 0, toolTimeMs: 0, resultBytes: 0, recent: [] };
      this.#usage.set(id, usage);
    }
    return usage;
  }
}

function exceeded(limits: BudgetLimits, usage: Usage): string | undefined {
  if (limits.maxCalls !== undefined && usage.calls >= limits.maxCalls) {
    return `at most ${limits.maxCalls} tool calls (maxCalls), all used`;
  }
  if (limits.callsPerMinute !== undefined && usage.recent.length >= limits.callsPerMinute) {
    return `at most ${limits.callsPerMinute} calls per minute (callsPerMinute); wait before calling again`;
  }
  if (limits.maxToolTimeMs !== undefined && usage.toolTimeMs >= limits.maxToolTimeMs) {
    return `at most ${limits.maxToolTimeMs} ms of tool time (maxToolTimeMs), all used`;
  }
  if (limits.maxResultBytes !== undefined && usage.resultBytes >= limits.maxResultBytes) {
    return `at most ${limits.maxResultBytes} bytes of tool results (maxResultBytes), all used`;
  }
  return undefined;
}

function scopesOf(options: BudgetOptions): Array<[string, BudgetLimits]> {
  return [
    ...(options.session === undefined ? [] : [['session', options.session] as [string, BudgetLimits]]),
    ...(options.eachServer === undefined
      ? []
      : [['eachServer', options.eachServer] as [string, BudgetLimits]]),
    ...(options.eachTool === undefined ? [] : [['eachTool', options.eachTool] as [string, BudgetLimits]]),
    ...Object.entries(options.servers ?? {}).map(([name, limits]): [string, BudgetLimits] => [
      `servers.${name}`,
      limits,
    ]),
    ...Object.entries(options.tools ?? {}).map(([name, limits]): [string, BudgetLimits] => [
      `tools.${name}`,
      limits,
    ]),
  ];
}

function checkLimits(limits: BudgetLimits, scope: string): void {
  for (const [field, value] of Object.entries(limits)) {
    if (value !== undefined && (typeof value !== 'number' || !Number.isInteger(value) || value < 0)) {
      throw new TypeError(
        `budgets.${scope}.${field} must be a whole number of 0 or more, got ${String(value)}`,
      );
    }
  }
}
