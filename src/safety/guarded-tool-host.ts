/**
 * The host is where safety is enforced: the model proposes a call, this decides. `GuardedToolHost`
 * wraps any {@link ToolHost} (the MCP pool, in mcphost) so the Runner and the pool know nothing of
 * policy. For each call, in order:
 *
 * 1. the approval policy: a `deny` answer ends here (no hook runs, no one is asked);
 * 2. `PreToolUse` hooks: a block ends here; a hook may also approve the call or ask for approval;
 * 3. approval, when the policy or a hook says `ask`: an earlier "always" answer of this session,
 *    `approveAll` (`--approve-all`), or the user through `onApproval`; with none of them, denied;
 * 4. the budgets (calls, calls per minute, tool time, result bytes per session, server and tool);
 * 5. the call itself; its text is stripped of terminal control sequences and cut to the size limit,
 *    and images too big for the model's API are replaced by a note;
 * 6. `PostToolUse` hooks: a block withholds the result from the model (the call did run);
 * 7. the untrusted-content screen: hidden characters revealed, injection flagged and handled by
 *    policy (see untrusted-content.ts), for a server's content only (not the host's own errors);
 * 8. one audit entry, whatever happened.
 *
 * A call that is not run is answered to the model with an error result that says who refused it
 * and why, so it can tell the user or try something else. Never throws.
 */
import { applyToolOutputBudget } from '../context/tool-output-budget.js';
import { errorResult } from '../core/tool-execution.js';
import { messageOf } from '../core/errors.js';
import { CANCELLED, untilAborted } from '../util/abort.js';
import type { ToolCallBlock, ToolHost, ToolResultBlock, ToolSpec } from '../core/types.js';
import { SessionGrants, type ApprovalDecision, type ApprovalHandler } from './approval.js';
import { QuestionQueue } from '../core/questions.js';
import {
  resultDigest,
  type AuditEntry,
  type AuditSink,
  type DecidedBy,
  type ServerIdentity,
} from './audit-log.js';
import { ToolBudgets } from './budgets.js';
import type { SafetyOptions } from './options.js';
import { isHostMade, screenToolResult, type ContentFlag, type FlagReport } from './untrusted-content.js';
import type { UserQuestions } from '../core/questions.js';
import type { HookRunner } from './hooks.js';
import { DEFAULT_MAX_TOOL_RESULT_BYTES, stripResultControlCharacters } from './output-limits.js';
import { ApprovalPolicy, type SamplingVerdict, type ToolHints } from './policy.js';
import type { ListedTool } from './tool-pins.js';
import type { ToolPinCheck } from './tool-pin-check.js';

/** Where an exposed tool name leads. */
export interface ToolLocation {
  /** The configured server name. */
  readonly server: string;
  /** The tool's own name on that server. */
  readonly tool: string;
  /** What the server says about the tool (its annotations), for rules and the approval question. */
  readonly hints?: ToolHints;
  /** The tool's definition as its server lists it, for pinning (tool-pin-check.ts). */
  readonly definition?: ListedTool;
}

/** How to guard a tool host. Everything but `host` is optional: alone, it only cleans and caps results. */
export interface GuardedToolHostOptions {
  readonly host: ToolHost;
  /**
   * Finds the server behind an exposed name (the pool knows). Without it, server rules never match.
   * It must read the same name table `host.call` routes through, or rules, hooks and the audit log
   * would judge another tool than the one that runs (for the pool: `McpPool.locate`).
   */
  readonly locate?: (exposedName: string) => ToolLocation | undefined | Promise<ToolLocation | undefined>;
  /**
   * The settings: approval rules, `approveAll`, the result size limit, the untrusted-content policy,
   * the budgets (the same object createRunner builds; `hooks` and `auditLog` are used through
   * {@link hooks} and {@link audit}, which are built from it).
   */
  readonly safety?: SafetyOptions;
  /** Asks the user about an `ask` call. Absent: such calls are denied (unless `approveAll`). */
  readonly onApproval?: ApprovalHandler;
  /** Asks the user about flagged content under the `ask` policy. */
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
}

/** Whether a call may run, and who said so. */
type Gate =
  | { readonly kind: 'run'; readonly decidedBy: DecidedBy; readonly reason?: string }
  | {
      readonly kind: 'refuse';
      readonly decision: 'denied' | 'blocked';
      readonly decidedBy: DecidedBy;
      readonly reason: string;
      /** What the model is told. */
      readonly message: string;
    };

/** A {@link ToolHost} that enforces approval rules, hooks, output limits and auditing. */
export class GuardedToolHost implements ToolHost {
  /** The "always allow" answers of this session. */
  readonly grants = new SessionGrants();
  readonly #options: GuardedToolHostOptions;
  readonly #policy: ApprovalPolicy;
  readonly #budgets: ToolBudgets;
  readonly #maxResultBytes: number;
  readonly #questions: QuestionQueue;
  #turn = 0;
  readonly #inFlight = new Set<Promise<unknown>>();
  /** Aborted by {@link close}: questions, hooks and calls still pending end at once. */
  readonly #closing = new AbortController();

  constructor(options: GuardedToolHostOptions) {
    const maxResultBytes = options.safety?.maxToolResultBytes ?? DEFAULT_MAX_TOOL_RESULT_BYTES;
    if (!Number.isInteger(maxResultBytes) || maxResultBytes < 1) {
      throw new TypeError(`maxToolResultBytes must be a positive integer, got ${String(maxResultBytes)}`);
    }
    this.#options = options;
    this.#questions = options.questionQueue ?? new QuestionQueue();
    this.#maxResultBytes = maxResultBytes;
    this.#policy = new ApprovalPolicy(options.safety?.approval ?? [], options.safety?.approvalFallback);
    this.#budgets = new ToolBudgets(options.safety?.budgets, options.now);
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
      ...(location.hints === undefined ? {} : { hints: location.hints }),
    });
    return decision !== 'ask' || this.#options.safety?.approveAll === true;
  }

  call(call: ToolCallBlock, signal?: AbortSignal): Promise<ToolResultBlock> {
    const closing = this.#closing.signal;
    const pending = this.#call(call, signal === undefined ? closing : AbortSignal.any([closing, signal]));
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

  /** `signal` is aborted when the run is cancelled or the guard closes. */
  async #call(call: ToolCallBlock, signal: AbortSignal): Promise<ToolResultBlock> {
    const now = this.#options.now ?? Date.now;
    const requestedAt = now();
    const location = await this.#locate(call.name);
    const identity = location === undefined ? undefined : this.#options.identify?.(location.server);
    const entry = {
      time: new Date(requestedAt).toISOString(),
      ...(this.#options.sessionId === undefined ? {} : { sessionId: this.#options.sessionId }),
      ...(this.#turn === 0 ? {} : { turn: this.#turn }),
      ...(identity === undefined ? {} : { serverIdentity: identity }),
      server: location?.server ?? null,
      tool: location?.tool ?? call.name,
      exposedName: call.name,
      callId: call.id,
      arguments: call.input,
    };
    const pinned = await this.#options.pins?.beforeCall(
      call.name,
      location,
      location !== undefined && this.#pinsOnSight(call.name, location),
      signal,
    );
    const gate: Gate =
      pinned?.kind === 'refuse'
        ? refuse('blocked', 'tool-pin', pinned.message, pinned.message)
        : await this.#gate(call, location, signal);
    if (gate.kind === 'run') await this.#options.pins?.approved(location);
    if (gate.kind === 'refuse') {
      this.#audit({ ...entry, ...refusedFacts(gate), outcome: 'not-run', durationMs: 0, isError: true });
      return errorResult(call, gate.message);
    }
    if (signal.aborted) {
      // Cancelled while its hooks ran: a hook that was stopped had no say, so the call must not run.
      const why = this.#cancellation();
      this.#audit({
        ...entry,
        decision: 'allowed',
        decidedBy: gate.decidedBy,
        reason: why,
        outcome: 'cancelled',
        durationMs: 0,
        isError: true,
      });
      return errorResult(call, `The call to ${call.name} was not run: ${why}.`);
    }
    const budgetKey = { tool: call.name, ...optionalServer(location?.server) };
    const overBudget = this.#budgets.admit(budgetKey);
    if (overBudget !== undefined) {
      this.#audit({
        ...entry,
        decision: 'denied',
        decidedBy: 'budget',
        reason: overBudget,
        budget: overBudget,
        outcome: 'not-run',
        durationMs: 0,
        isError: true,
      });
      return errorResult(call, `The call to ${call.name} was not run: it is past ${overBudget}.`);
    }
    const started = now();
    let result: ToolResultBlock;
    try {
      result = await this.#options.host.call(call, signal);
    } catch (error) {
      // Hosts answer failures as results; a bug in one must still leave an answer and an audit line.
      result = errorResult(call, `The tool ${call.name} failed: ${messageOf(error)}`);
    }
    const durationMs = now() - started;
    const fromServer = result;
    // One budget for text and images (src/context/tool-output-budget.ts).
    const limited = await applyToolOutputBudget(stripResultControlCharacters(result), {
      maxTextBytes: this.#maxResultBytes,
      ...(this.#options.toolOutputFolder === undefined ? {} : { saveFolder: this.#options.toolOutputFolder }),
    });
    this.#budgets.charge(budgetKey, { toolTimeMs: durationMs, resultBytes: limited.textBytes });
    result = limited.result;
    const cancelled = isAborted(signal);
    let withheld: string | undefined;
    if (!cancelled && this.#options.hooks?.has('PostToolUse') === true) {
      const verdict = await this.#options.hooks.run(
        'PostToolUse',
        {
          ...toolFields(call, location),
          tool_response: { content: result.content, isError: result.isError },
        },
        { toolName: call.name, signal },
      );
      if (verdict.kind === 'block') withheld = verdict.reason;
    }
    let flag: ContentFlag | undefined;
    if (withheld !== undefined) {
      result = errorResult(
        call,
        `The call to ${call.name} ran, but a PostToolUse hook withheld its result: ${withheld}`,
      );
    } else if (!cancelled && !isHostMade(result)) {
      const screened = await this.#screen(call, result, fromServer, location, signal);
      result = screened.result;
      flag = screened.flag;
    }
    this.#audit({
      ...entry,
      decision: 'allowed',
      decidedBy: gate.decidedBy,
      ...(gate.reason === undefined && withheld === undefined
        ? {}
        : { reason: withheld ?? gate.reason ?? '' }),
      outcome: cancelled ? 'cancelled' : result.isError ? 'error' : 'ok',
      durationMs,
      isError: result.isError,
      resultBytes: limited.textBytes,
      ...(limited.cutBytes === 0 ? {} : { cutBytes: limited.cutBytes }),
      ...(limited.droppedImages === 0 ? {} : { droppedImages: limited.droppedImages }),
      ...(withheld === undefined ? {} : { resultWithheld: true }),
      ...(flag === undefined ? {} : { flagged: flag }),
      resultDigest: resultDigest(result.content),
    });
    return result;
  }

  async #screen(
    call: ToolCallBlock,
    result: ToolResultBlock,
    fromServer: ToolResultBlock,
    location: ToolLocation | undefined,
    signal: AbortSignal,
  ): Promise<{ result: ToolResultBlock; flag?: ContentFlag }> {
    const settings = this.#options.safety?.untrustedContent;
    return screenToolResult(
      result,
      {
        settings: {
          policy: settings?.policy ?? 'warn',
          ...(this.#options.questions === undefined ? {} : { questions: this.#options.questions }),
          // The runner's one queue: a content question never overlaps an approval prompt.
          queue: this.#questions,
          ...(this.#options.onFlagged === undefined ? {} : { onFlagged: this.#options.onFlagged }),
        },
        source: call.name,
        ...optionalServer(location?.server),
        signal,
      },
      fromServer,
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

  async #gate(call: ToolCallBlock, location: ToolLocation | undefined, signal: AbortSignal): Promise<Gate> {
    const server = location?.server;
    const verdict = this.#policy.decide({
      exposedName: call.name,
      ...(server === undefined ? {} : { server }),
      ...(location === undefined ? {} : { tool: location.tool }),
      ...(location?.hints === undefined ? {} : { hints: location.hints }),
    });
    if (verdict.decision === 'deny') {
      const why =
        verdict.rule?.reason === undefined ? verdict.because : `${verdict.rule.reason} (${verdict.because})`;
      return refuse(
        'denied',
        'policy',
        why,
        `The user's approval policy does not allow ${call.name}: ${why}. It was not run.`,
      );
    }
    let mustAsk = verdict.decision === 'ask';
    let askReason =
      verdict.rule?.reason === undefined ? verdict.because : `${verdict.rule.reason} (${verdict.because})`;
    let decidedBy: DecidedBy = 'policy';
    if (this.#options.hooks?.has('PreToolUse') === true) {
      const hook = await this.#options.hooks.run('PreToolUse', toolFields(call, location), {
        toolName: call.name,
        signal,
      });
      switch (hook.kind) {
        case 'block':
          return refuse(
            'blocked',
            'hook',
            hook.reason,
            `A PreToolUse hook blocked the call to ${call.name}: ${hook.reason}. It was not run.`,
          );
        case 'ask':
          mustAsk = true;
          askReason = hook.reason ?? 'a PreToolUse hook asks for approval';
          break;
        case 'approve':
          mustAsk = false;
          decidedBy = 'hook';
          break;
        case 'none':
          break;
        default: {
          const unexpected: never = hook;
          throw new TypeError(`unknown hook verdict ${JSON.stringify(unexpected)}`);
        }
      }
    }
    if (!mustAsk) return { kind: 'run', decidedBy };
    // A kept answer stands in for the user's only where the policy asked and may be lifted.
    const keptApplies = decidedBy === 'policy' && verdict.alwaysAsk !== true;
    return this.#approve(call, location, askReason, signal, keptApplies);
  }

  async #approve(
    call: ToolCallBlock,
    location: ToolLocation | undefined,
    reason: string,
    signal: AbortSignal,
    keptApplies: boolean,
  ): Promise<Gate> {
    const server = location?.server;
    if (this.grants.covers(call.name, server)) return { kind: 'run', decidedBy: 'session', reason };
    const kept = this.#options.safety?.keptPermissions;
    if (keptApplies && location !== undefined && kept?.covers(location.server, location.tool) === true) {
      return { kind: 'run', decidedBy: 'kept', reason };
    }
    if (this.#options.safety?.approveAll === true) return { kind: 'run', decidedBy: 'approve-all', reason };
    const ask = this.#options.onApproval;
    if (ask === undefined) {
      return refuse(
        'denied',
        'no-one-to-ask',
        `needs approval (${reason}), and no one can be asked`,
        `The call to ${call.name} needs the user's approval (${reason}), and no one can be asked here, so it was not run. ` +
          'The user can allow such calls with --approve-all.',
      );
    }
    const answer = await this.#questions.run(
      async (): Promise<ApprovalDecision | 'granted' | 'cancelled'> => {
        // An "always" answer to an earlier question of this step may already cover this call.
        if (this.grants.covers(call.name, server)) return 'granted';
        if (signal.aborted) return 'cancelled';
        try {
          // Raced with the signal: a prompt that ignores it must not keep close() waiting.
          const decision = await untilAborted(
            ask({
              call,
              tool: location?.tool ?? call.name,
              reason,
              ...optionalServer(server),
              ...(location?.hints === undefined ? {} : { hints: location.hints }),
              ...sandboxedOf(server === undefined ? undefined : this.#options.identify?.(server)),
              signal,
            }),
            signal,
          );
          return decision === CANCELLED ? 'cancelled' : decision;
        } catch {
          return { kind: 'deny' };
        }
      },
    );
    if (answer === 'granted') return { kind: 'run', decidedBy: 'session', reason };
    if (answer === 'cancelled' || signal.aborted) {
      // A prompt may answer "deny" because its signal aborted; the truth is that no one answered.
      const why = this.#cancellation();
      return refuse(
        'denied',
        'user',
        why,
        `The call to ${call.name} was waiting for the user's approval when ${why}. It was not run.`,
      );
    }
    if (answer.kind === 'deny') {
      const why = answer.reason?.trim() ?? '';
      return refuse(
        'denied',
        'user',
        why === '' ? 'denied by the user' : why,
        `The user denied the call to ${call.name}${why === '' ? ' (no reason given)' : `: ${why}`}. It was not run.`,
      );
    }
    this.grants.remember(answer, call.name, server);
    if (answer.kind !== 'allow-once' && answer.keep === true) await this.#keep(answer, location, keptApplies);
    return { kind: 'run', decidedBy: 'user', reason };
  }

  /** Keeps an "always" answer for the project folder, or says why it is kept for this session only. */
  async #keep(
    answer: { readonly kind: 'allow-tool' | 'allow-server' },
    location: ToolLocation | undefined,
    keptApplies: boolean,
  ): Promise<void> {
    const kept = this.#options.safety?.keptPermissions;
    const warn = (why: string) =>
      this.#options.onWarning?.(`not kept for this folder: ${why}; allowed for this session`);
    if (kept === undefined) return warn('there is no store of kept permissions here');
    if (location === undefined) return warn("the tool's server is unknown");
    if (!keptApplies) return warn(`${location.server} asks before every call, in every run`);
    try {
      await kept.keep({
        server: location.server,
        ...(answer.kind === 'allow-tool' ? { tool: location.tool } : {}),
      });
    } catch (error) {
      warn(messageOf(error));
    }
  }

  /** Why a call's signal aborted, for the model and the audit log. */
  #cancellation(): string {
    return this.#closing.signal.aborted ? 'mcphost is shutting down' : 'the run was cancelled';
  }

  #audit(entry: AuditEntry): void {
    this.#options.audit?.record(entry);
  }
}

/**
 * `signal.aborted`, read through a call: after an early return on `signal.aborted`, TypeScript
 * would take it as still false later on, across awaits during which it may well have changed.
 */
function isAborted(signal: AbortSignal): boolean {
  return signal.aborted;
}

function optionalServer(server: string | undefined): { server?: string } {
  return server === undefined ? {} : { server };
}

function refuse(decision: 'denied' | 'blocked', decidedBy: DecidedBy, reason: string, message: string): Gate {
  return { kind: 'refuse', decision, decidedBy, reason, message };
}

function refusedFacts(gate: Extract<Gate, { kind: 'refuse' }>) {
  return { decision: gate.decision, decidedBy: gate.decidedBy, reason: gate.reason };
}

/** The tool fields of a hook's input (the Go mcphost's names, and the MCP server and tool). */
function toolFields(call: ToolCallBlock, location: ToolLocation | undefined): Record<string, unknown> {
  return {
    tool_name: call.name,
    tool_input: call.input,
    mcp_server: location?.server ?? null,
    mcp_tool: location?.tool ?? call.name,
  };
}

/** `{ sandboxed }` when the server's identity says whether it runs in a sandbox. */
function sandboxedOf(identity: ServerIdentity | undefined): { sandboxed?: boolean } {
  return identity?.sandboxed === undefined ? {} : { sandboxed: identity.sandboxed };
}
