/**
 * The one place a tool call's audit line is built, whatever became of the call: refused by a
 * stage, cancelled before it ran, or run (with what the stages after it found).
 */
import type { ToolCallBlock, ToolResultBlock } from '../../core/types.js';
import { resultDigest, type AuditEntry, type DecidedBy, type ServerIdentity } from '../audit-log.js';
import type { ToolLocation } from '../tool-location.js';
import type { Refusal, ResultFacts } from './stages.js';
import { definedProperties } from '../../util/defined-properties.js';

/** What is known of a call before any stage has a say. */
export interface CallFacts {
  readonly call: ToolCallBlock;
  readonly location: ToolLocation | undefined;
  readonly requestedAt: number;
  readonly sessionId: string | undefined;
  /** The session's prompt number; 0 before the first (left off the line). */
  readonly turn: number;
  readonly identity: ServerIdentity | undefined;
}

/** How the call ended. */
export type CallEnding =
  | { readonly kind: 'refused'; readonly refusal: Refusal }
  | {
      readonly kind: 'ran';
      readonly decidedBy: DecidedBy;
      /** Why it was allowed (the question asked), when someone was asked. */
      readonly reason?: string;
      readonly cancelled: boolean;
      readonly result: ToolResultBlock;
      readonly durationMs: number;
      readonly facts: ResultFacts;
    };

export function auditRecord(facts: CallFacts, ending: CallEnding): AuditEntry {
  const { call, location, identity, sessionId, turn } = facts;
  const base = {
    time: new Date(facts.requestedAt).toISOString(),
    ...definedProperties({ sessionId }),
    ...(turn === 0 ? {} : { turn }),
    ...definedProperties({ serverIdentity: identity }),
    server: location?.server ?? null,
    tool: location?.tool ?? call.name,
    exposedName: call.name,
    callId: call.id,
    arguments: call.input,
  };
  switch (ending.kind) {
    case 'refused': {
      const { refusal } = ending;
      return {
        ...base,
        decision: refusal.decision,
        decidedBy: refusal.decidedBy,
        reason: refusal.reason,
        ...definedProperties({ budget: refusal.budget }),
        outcome: refusal.outcome,
        durationMs: 0,
        isError: true,
      };
    }
    case 'ran': {
      const { result, facts: found } = ending;
      // A withheld result's reason is the hook's; otherwise the question's, if one was asked.
      const reason = found.withheld ?? ending.reason;
      return {
        ...base,
        decision: 'allowed',
        decidedBy: ending.decidedBy,
        ...definedProperties({ reason }),
        outcome: ending.cancelled ? 'cancelled' : result.isError ? 'error' : 'ok',
        durationMs: ending.durationMs,
        isError: result.isError,
        ...definedProperties({ resultBytes: found.resultBytes }),
        ...(found.cutBytes === undefined || found.cutBytes === 0 ? {} : { cutBytes: found.cutBytes }),
        ...(found.droppedImages === undefined || found.droppedImages === 0
          ? {}
          : { droppedImages: found.droppedImages }),
        ...(found.withheld === undefined ? {} : { resultWithheld: true }),
        ...definedProperties({ flagged: found.flag }),
        resultDigest: resultDigest(result.content),
      };
    }
    default: {
      const unexpected: never = ending;
      throw new TypeError(`unknown call ending ${JSON.stringify(unexpected)}`);
    }
  }
}
