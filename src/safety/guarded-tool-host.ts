/**
 * The host is where safety is enforced: the model proposes a call, this decides. `GuardedToolHost`
 * wraps any {@link ToolHost} (the MCP pool, in mcphost) so the Runner and the pool know nothing of
 * policy. Each call goes through a pipeline of named stages (guard/pipeline.ts), in order:
 *
 * Before the call, each says whether it may run (guard/stages.ts: continue, allow, ask, refuse):
 * 1. the approval policy: a `deny` ends here (no hook runs, no one is asked);
 * 2. `PreToolUse` hooks: a block ends here; a hook may also approve the call or ask for approval;
 * 3. approval, when the policy or a hook says `ask`: an earlier "always" answer of this session,
 *    a kept one, `approveAll` (`--approve-all`), or the user through `questions.approveToolCall`;
 *    with none of them, denied;
 * 4. not cancelled meanwhile;
 * 5. the budgets (calls, calls per minute, tool time, result bytes per session, server and tool).
 *
 * Then the call itself, and after it, each may rewrite the result (continue, rewrite):
 * 6. the output limit: text stripped of terminal control sequences and cut to the size limit,
 *    images too big for the model's API replaced by a note; the budgets charged;
 * 7. `PostToolUse` hooks: a block withholds the result from the model (the call did run);
 * 8. the untrusted-content screen: hidden characters revealed, injection flagged and handled by
 *    policy (see untrusted-content.ts), for a server's content only (not the host's own errors).
 *
 * Last, one audit entry, whatever happened (guard/audit-record.ts). A call that is not run is
 * answered to the model with an error result that says who refused it and why, so it can tell
 * the user or try something else. Never throws.
 */
import { errorResult } from '../core/tool-execution.js';
import { messageOf } from '../core/errors.js';
import type { ToolCallBlock, ToolHost, ToolResultBlock, ToolSpec } from '../core/types.js';
import { SessionGrants } from './approval.js';
import { QuestionQueue, type UserQuestions } from '../core/questions.js';
import type { AuditSink, DecidedBy, ServerIdentity } from './audit-log.js';
import { ToolBudgets } from './budgets.js';
import type { SafetyOptions } from './options.js';
import type { FlagReport } from './untrusted-content.js';
import type { HookRunner } from './hooks.js';
import { DEFAULT_MAX_TOOL_RESULT_BYTES } from './output-limits.js';
import { ApprovalPolicy, type SamplingVerdict } from './policy.js';
import type { ToolLocation } from './tool-location.js';
import type { ToolPinCheck } from './tool-pin-check.js';
import { auditRecord, type CallFacts } from './guard/audit-record.js';
import { gateStages, resultStages } from './guard/pipeline.js';
import type { GuardActivityObserver } from './guard/activity.js';
import { runGate, runResultStages, type GateStage, type ResultStage } from './guard/stages.js';
import { definedProperties } from '../util/defined-properties.js';

export type { ToolLocation } from './tool-location.js';

/**
 * How to guard a tool host: the settings object, and the collaborators the stages work with.
 * Everything but `host` is optional: alone, it only cleans and caps results.
 */
export interface GuardedToolHostOptions {
  readonly host: ToolHost;
  /**
   * The settings: approval rules, `approveAll`, the result size limit, the untrusted-content policy,
   * the budgets, kept permissions (the one object createRunner builds; `hooks` and `auditLog` are
   * used through {@link hooks} and {@link audit}, which are built from it).
   */
  readonly safety?: SafetyOptions;
  /**
   * Finds the server behind an exposed name (the pool knows). Without it, server rules never match.
   * It must read the same name table `host.call` routes through, or rules, hooks and the audit log
   * would judge another tool than the one that runs (for the pool: `McpPool.locate`).
   */
  readonly locate?: (exposedName: string) => ToolLocation | undefined | Promise<ToolLocation | undefined>;
  /**
   * Asks the user: `approveToolCall` about an `ask` call (absent: such calls are denied, unless
   * `approveAll`), `reviewFlaggedContent` about flagged content under the `ask` policy.
   */
  readonly questions?: UserQuestions;
  /** Runs PreToolUse and PostToolUse hooks. */
  readonly hooks?: HookRunner;
  /** Receives one entry per call. */
  readonly audit?: AuditSink;
  /** Where the whole text of a result over the budget is saved (the state folder's `tool-output`). */
  readonly toolOutputFolder?: string;
  /** The session id written on every audit line. */
  readonly sessionId?: string;
  /** Who a server is (name, version, command or URL), for the audit line. */
  readonly identify?: (server: string) => ServerIdentity | undefined;
  /** Told when the detector flags a result (the CLI shows it). */
  readonly onFlagged?: (report: FlagReport) => void;
  /** The clock. Default `Date.now`. */
  readonly now?: () => number;
  /** Told when an answer to keep a permission could not be kept (the chat shows it). */
  readonly onWarning?: (message: string) => void;
  /** The runner's one question queue (shared with elicitation). Default: a queue of its own. */
  readonly questionQueue?: QuestionQueue;
  /** Checks tool definitions against their pins: a changed one may be withheld (tool-pin-check.ts). */
  readonly pins?: ToolPinCheck;
  /**
   * Follows the guard's own work inside a call — approval waits, hook runs, the untrusted-content
   * screen (guard/activity.ts; telemetry makes child spans of `execute_tool` from it).
   */
  readonly activities?: GuardActivityObserver;
}

/** A {@link ToolHost} that enforces approval rules, hooks, output limits and auditing. */
export class GuardedToolHost implements ToolHost {
  /** The "always allow" answers of this session. */
  readonly grants = new SessionGrants();
  readonly #options: GuardedToolHostOptions;
  readonly #policy: ApprovalPolicy;
  readonly #budgets: ToolBudgets;
  readonly #gate: readonly GateStage[];
  readonly #afterCall: readonly ResultStage[];
  #turn = 0;
  readonly #inFlight = new Set<Promise<unknown>>();
  /** Aborted by {@link close}: questions, hooks and calls still pending end at once. */
  readonly #closing = new AbortController();

  constructor(options: GuardedToolHostOptions) {
    const settings = options.safety ?? {};
    const maxResultBytes = settings.maxToolResultBytes ?? DEFAULT_MAX_TOOL_RESULT_BYTES;
    if (!Number.isInteger(maxResultBytes) || maxResultBytes < 1) {
      throw new TypeError(`maxToolResultBytes must be a positive integer, got ${String(maxResultBytes)}`);
    }
    this.#options = options;
    this.#policy = new ApprovalPolicy(settings.approval ?? [], settings.approvalFallback);
    this.#budgets = new ToolBudgets(settings.budgets, options.now);
    const parts = {
      settings,
      policy: this.#policy,
      budgets: this.#budgets,
      grants: this.grants,
      questionQueue: options.questionQueue ?? new QuestionQueue(),
      questions: options.questions,
      hooks: options.hooks,
      identify: options.identify,
      onFlagged: options.onFlagged,
      onWarning: options.onWarning,
      toolOutputFolder: options.toolOutputFolder,
      maxResultBytes,
      cancellation: () => this.#cancellation(),
      pins: options.pins,
      activities: options.activities,
      pinsOnSight: (exposedName: string, location: ToolLocation) => this.#pinsOnSight(exposedName, location),
    };
    this.#gate = gateStages(parts);
    this.#afterCall = resultStages(parts);
  }

  /** A new prompt of the session began: later audit lines carry the next turn number. */
  beginTurn(): void {
    this.#turn += 1;
  }

  /** The prompt of the session now running, from 1 (0 before the first). */
  get turn(): number {
    return this.#turn;
  }

  /** What the sampling rules say about a server's sampling request. */
  decideSampling(server: string): SamplingVerdict {
    return this.#policy.decideSampling(server);
  }

  /** Counts a server's sampling request against the budgets, or says which limit it is past. */
  admitSampling(server: string): string | undefined {
    return this.#budgets.admit({ tool: `${server}:sampling/createMessage`, server });
  }

  async tools(): Promise<readonly ToolSpec[]> {
    const tools = await this.#options.host.tools();
    const pins = this.#options.pins;
    if (pins === undefined) return tools;
    // The definitions the model is about to read are checked against their pins (tool-pin-check.ts).
    const located = await Promise.all(
      tools.map(async (tool) => ({ exposedName: tool.name, location: await this.#locate(tool.name) })),
    );
    const withheld = await pins.screen(
      located,
      (exposedName, location) => this.#pinsOnSight(exposedName, location),
      this.#closing.signal,
    );
    return withheld.size === 0 ? tools : tools.filter((tool) => !withheld.has(tool.name));
  }

  /** A tool that needs no approval is pinned when first listed; the others when first approved. */
  #pinsOnSight(exposedName: string, location: ToolLocation): boolean {
    const { decision } = this.#policy.decide({
      exposedName,
      server: location.server,
      tool: location.tool,
      ...definedProperties({ hints: location.hints }),
    });
    return decision !== 'ask' || this.#options.safety?.approveAll === true;
  }

  call(call: ToolCallBlock, signal?: AbortSignal): Promise<ToolResultBlock> {
    return this.#track(call, signal, undefined);
  }

  /**
   * The same guard for a named agent's calls (src/agents): the same rules, answers, budgets, hooks
   * and audit log, with the agent's name on each audit line and in each approval question.
   */
  forAgent(agent: string): ToolHost {
    return {
      tools: () => this.tools(),
      call: (call, signal) => this.#track(call, signal, agent),
    };
  }

  #track(
    call: ToolCallBlock,
    signal: AbortSignal | undefined,
    agent: string | undefined,
  ): Promise<ToolResultBlock> {
    const closing = this.#closing.signal;
    const pending = this.#call(
      call,
      signal === undefined ? closing : AbortSignal.any([closing, signal]),
      agent,
    );
    // Tracked so close() can wait for the last audit entries.
    this.#inFlight.add(pending);
    void pending.finally(() => this.#inFlight.delete(pending));
    return pending;
  }

  /**
   * Ends what is still pending — a question waiting for the user (the call is denied), hooks, calls
   * in flight (through their signal) — waits for those calls to answer, and writes the last audit
   * entries. Calls made afterwards are refused.
   */
  async close(): Promise<void> {
    this.#closing.abort();
    this.#options.hooks?.close();
    await Promise.allSettled([...this.#inFlight]);
    await this.#options.audit?.flush();
  }

  /**
   * A result that reached the host outside {@link call}: a task a previous session left running,
   * followed to its end by `-c`. The result stages (output limit, untrusted-content screen) and an
   * audit line apply as to any call's result; the gate does not (it let the call through when the
   * call was made).
   */
  async screenResumed(call: ToolCallBlock, fromServer: ToolResultBlock): Promise<ToolResultBlock> {
    const now = this.#options.now ?? Date.now;
    const facts = await this.#factsOf(call, now());
    return this.#finish(
      facts,
      fromServer,
      { decidedBy: 'resumed-task', durationMs: 0 },
      this.#closing.signal,
    );
  }

  async #factsOf(call: ToolCallBlock, requestedAt: number, agent?: string): Promise<CallFacts> {
    const location = await this.#locate(call.name);
    return {
      call,
      ...definedProperties({ agent }),
      location,
      requestedAt,
      sessionId: this.#options.sessionId,
      turn: this.#turn,
      identity: location === undefined ? undefined : this.#options.identify?.(location.server),
    };
  }

  /** The result stages, then the call's one audit line. */
  async #finish(
    facts: CallFacts,
    fromServer: ToolResultBlock,
    how: { readonly decidedBy: DecidedBy; readonly reason?: string; readonly durationMs: number },
    signal: AbortSignal,
  ): Promise<ToolResultBlock> {
    const { call, location } = facts;
    const cancelled = signal.aborted;
    const { result, facts: found } = await runResultStages(this.#afterCall, {
      call,
      location,
      signal,
      result: fromServer,
      fromServer,
      durationMs: how.durationMs,
      cancelled,
      facts: {},
    });
    this.#options.audit?.record(
      auditRecord(facts, {
        kind: 'ran',
        decidedBy: how.decidedBy,
        ...definedProperties({ reason: how.reason }),
        cancelled,
        result,
        durationMs: how.durationMs,
        facts: found,
      }),
    );
    return result;
  }

  /** `signal` is aborted when the run is cancelled or the guard closes. */
  async #call(call: ToolCallBlock, signal: AbortSignal, agent: string | undefined): Promise<ToolResultBlock> {
    const now = this.#options.now ?? Date.now;
    const facts = await this.#factsOf(call, now(), agent);
    const { location } = facts;
    const gate = await runGate(this.#gate, { call, location, signal, ...definedProperties({ agent }) });
    if (gate.kind === 'refuse') {
      this.#options.audit?.record(auditRecord(facts, { kind: 'refused', refusal: gate.refusal }));
      return errorResult(call, gate.refusal.message);
    }
    await this.#options.pins?.approved(location);
    const started = now();
    let fromServer: ToolResultBlock;
    try {
      fromServer = await this.#options.host.call(call, signal);
    } catch (error) {
      // Hosts answer failures as results; a bug in one must still leave an answer and an audit line.
      fromServer = errorResult(call, `The tool ${call.name} failed: ${messageOf(error)}`);
    }
    const how = { decidedBy: gate.decidedBy, durationMs: now() - started };
    return this.#finish(
      facts,
      fromServer,
      gate.reason === undefined ? how : { ...how, reason: gate.reason },
      signal,
    );
  }

  async #locate(name: string): Promise<ToolLocation | undefined> {
    try {
      return await this.#options.locate?.(name);
    } catch {
      // Without a location, server rules do not match; name rules still do.
      return undefined;
    }
  }

  /** Why a call's signal aborted, for the model and the audit log. */
  #cancellation(): string {
    return this.#closing.signal.aborted ? 'mcphost is shutting down' : 'the run was cancelled';
  }
}
