/**
 * The guard's pipeline: named stages, each `(call) => verdict`, run in order by the two small
 * runners below. Stages before the call decide whether it runs (`continue`, `allow`, `ask`,
 * `refuse`); stages after it may rewrite its result (`continue`, `rewrite`). The lists themselves
 * are in pipeline.ts, where adding a stage is one line.
 */
import type { ToolCallBlock, ToolResultBlock } from '../../core/types.js';
import type { DecidedBy } from '../audit-log.js';
import type { ContentFlag } from '../untrusted-content.js';
import type { ToolLocation } from '../tool-location.js';
import { definedProperties } from '../../util/defined-properties.js';

/** What the stages before this one have decided about a call that has not run. */
export type Standing =
  | { readonly kind: 'allowed'; readonly decidedBy: DecidedBy; readonly reason?: string }
  | {
      readonly kind: 'asking';
      /** Why someone must approve it (the question's reason). */
      readonly reason: string;
      /** Whether a kept "always allow" answer may stand in for the user's. */
      readonly keptApplies: boolean;
    };

/** A call on its way through the stages before it runs. */
export interface PendingCall {
  readonly call: ToolCallBlock;
  readonly location: ToolLocation | undefined;
  /** Aborted when the run is cancelled or the guard closes. */
  readonly signal: AbortSignal;
  readonly standing: Standing;
  /** The named agent whose run made the call (src/agents); absent for the main run. */
  readonly agent?: string;
}

/** Why a call is not run: for the audit line, and the error result the model reads. */
export interface Refusal {
  /** `allowed` for a call that was allowed but cancelled before it ran. */
  readonly decision: 'denied' | 'blocked' | 'allowed';
  readonly decidedBy: DecidedBy;
  readonly reason: string;
  /** What the model is told. */
  readonly message: string;
  readonly outcome: 'not-run' | 'cancelled';
  /** The budget or rate limit that refused it. */
  readonly budget?: string;
}

/** What a stage before the call says. */
export type GateVerdict =
  /** No say: the standing decision stays. */
  | { readonly kind: 'continue' }
  /** The call may run (an answer to an `ask` too), unless a later stage says otherwise. */
  | { readonly kind: 'allow'; readonly decidedBy: DecidedBy; readonly reason?: string }
  /**
   * Someone must approve it. `keptApplies: false` when no kept answer may stand in (a rule set
   * marked `alwaysAsk`); the stricter of two asks wins.
   */
  | { readonly kind: 'ask'; readonly reason: string; readonly keptApplies?: boolean }
  /** Not run; the stages after this one are skipped. */
  | { readonly kind: 'refuse'; readonly refusal: Refusal };

export interface GateStage {
  /** What the stage is, for a reader and a debugger. */
  readonly name: string;
  check(call: PendingCall): GateVerdict | Promise<GateVerdict>;
}

/** How the gate ended: the call runs, and who allowed it, or the refusal. */
export type GateOutcome =
  | { readonly kind: 'run'; readonly decidedBy: DecidedBy; readonly reason?: string }
  | { readonly kind: 'refuse'; readonly refusal: Refusal };

/** Runs the stages before the call in order. */
export async function runGate(
  stages: readonly GateStage[],
  call: Omit<PendingCall, 'standing'>,
): Promise<GateOutcome> {
  let standing: Standing = { kind: 'allowed', decidedBy: 'policy' };
  for (const stage of stages) {
    const verdict = await stage.check({ ...call, standing });
    switch (verdict.kind) {
      case 'continue':
        break;
      case 'allow':
        standing = {
          kind: 'allowed',
          decidedBy: verdict.decidedBy,
          ...definedProperties({ reason: verdict.reason }),
        };
        break;
      case 'ask':
        standing = {
          kind: 'asking',
          reason: verdict.reason,
          keptApplies:
            (verdict.keptApplies ?? true) && (standing.kind === 'asking' ? standing.keptApplies : true),
        };
        break;
      case 'refuse':
        return verdict;
      default: {
        const unexpected: never = verdict;
        throw new TypeError(`unknown gate verdict ${JSON.stringify(unexpected)}`);
      }
    }
  }
  if (standing.kind === 'asking') {
    // The approval stage answers every ask; without one in the list, an ask must not mean "run".
    return {
      kind: 'refuse',
      refusal: {
        decision: 'denied',
        decidedBy: 'no-one-to-ask',
        reason: `needs approval (${standing.reason}), and no one can be asked`,
        message: `The call to ${call.call.name} needs the user's approval (${standing.reason}), and no one can be asked here, so it was not run.`,
        outcome: 'not-run',
      },
    };
  }
  return { kind: 'run', decidedBy: standing.decidedBy, ...definedProperties({ reason: standing.reason }) };
}

/** What the stages after the call found, for the audit line. */
export interface ResultFacts {
  /** UTF-8 bytes of text the model gets. */
  readonly resultBytes?: number;
  readonly cutBytes?: number;
  readonly droppedImages?: number;
  /** Why a PostToolUse hook withheld the result. */
  readonly withheld?: string;
  readonly flag?: ContentFlag;
}

/** A call that ran, on its way through the stages after it. */
export interface CompletedCall {
  readonly call: ToolCallBlock;
  readonly location: ToolLocation | undefined;
  readonly signal: AbortSignal;
  /** The result as the stages before this one left it. */
  readonly result: ToolResultBlock;
  /** The result as the host answered it. */
  readonly fromServer: ToolResultBlock;
  readonly durationMs: number;
  /** Whether the signal had aborted when the call answered (read once, before these stages). */
  readonly cancelled: boolean;
  readonly facts: ResultFacts;
}

/** What a stage after the call says. */
export type ResultVerdict =
  | { readonly kind: 'continue'; readonly facts?: ResultFacts }
  | { readonly kind: 'rewrite'; readonly result: ToolResultBlock; readonly facts?: ResultFacts };

export interface ResultStage {
  readonly name: string;
  check(call: CompletedCall): ResultVerdict | Promise<ResultVerdict>;
}

/** Runs the stages after the call in order: each sees the result and facts the ones before left. */
export async function runResultStages(
  stages: readonly ResultStage[],
  completed: CompletedCall,
): Promise<{ readonly result: ToolResultBlock; readonly facts: ResultFacts }> {
  let { result, facts } = completed;
  for (const stage of stages) {
    const verdict = await stage.check({ ...completed, result, facts });
    facts = { ...facts, ...verdict.facts };
    switch (verdict.kind) {
      case 'continue':
        break;
      case 'rewrite':
        result = verdict.result;
        break;
      default: {
        const unexpected: never = verdict;
        throw new TypeError(`unknown result verdict ${JSON.stringify(unexpected)}`);
      }
    }
  }
  return { result, facts };
}
