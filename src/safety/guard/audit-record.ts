/**
 * The one place an audit line is built, so that every line has one shape: a tool call, whatever
 * became of it (refused by a stage, cancelled before it ran, or run, with what the stages after it
 * found); a server's sampling request (mcp/sampling.ts), sent or declined; a tool definition that
 * changed since it was pinned (tool-pin-check.ts).
 */
import type { ToolCallBlock, ToolResultBlock } from '../../core/types.js';
import { resultDigest, type AuditEntry, type DecidedBy, type ServerIdentity } from '../audit-log.js';
import type { ToolLocation } from '../tool-location.js';
import type { ContentFlag } from '../untrusted-content.js';
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
  /** The named agent whose run made the call (src/agents); absent for the main run. */
  readonly agent?: string;
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
    }
  | {
      /** A server's sampling request: the call is the request, its input the request's arguments. */
      readonly kind: 'sampling';
      readonly sent: boolean;
      readonly decidedBy: DecidedBy;
      /** Why it was declined, or what let it through. */
      readonly reason: string;
      readonly durationMs: number;
      /** UTF-8 bytes of the answer, when one came. */
      readonly resultBytes?: number;
      readonly flag?: ContentFlag;
    }
  | {
      /** A pinned tool's definition changed: no call ran (no id, no arguments). */
      readonly kind: 'tool-change';
      readonly decidedBy: DecidedBy;
      /** What happened, in one line. */
      readonly reason: string;
      readonly toolChange: NonNullable<AuditEntry['toolChange']>;
    };

export function auditRecord(facts: CallFacts, ending: CallEnding): AuditEntry {
  const { call, location, identity, sessionId, turn } = facts;
  const base = {
    time: new Date(facts.requestedAt).toISOString(),
    ...definedProperties({ sessionId, turn: turn === 0 ? undefined : turn, serverIdentity: identity }),
    server: location?.server ?? null,
    tool: location?.tool ?? call.name,
    exposedName: call.name,
    ...definedProperties({ fromApp: call.fromApp }),
    callId: call.id,
    arguments: call.input,
    ...definedProperties({ agent: facts.agent }),
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
        ...definedProperties({
          resultBytes: found.resultBytes,
          cutBytes: nonZero(found.cutBytes),
          droppedImages: nonZero(found.droppedImages),
          resultWithheld: found.withheld === undefined ? undefined : true,
          flagged: found.flag,
        }),
        resultDigest: resultDigest(result.content),
      };
    }
    case 'sampling':
      return {
        kind: 'sampling',
        ...base,
        decision: ending.sent ? 'allowed' : 'denied',
        decidedBy: ending.decidedBy,
        reason: ending.reason,
        outcome: ending.sent ? 'ok' : 'not-run',
        durationMs: ending.durationMs,
        isError: !ending.sent,
        ...definedProperties({ resultBytes: ending.resultBytes, flagged: ending.flag }),
      };
    case 'tool-change':
      return {
        kind: 'tool-change',
        ...base,
        decision: ending.toolChange.action === 'used' ? 'allowed' : 'blocked',
        decidedBy: ending.decidedBy,
        reason: ending.reason,
        outcome: 'not-run',
        durationMs: 0,
        isError: false,
        toolChange: ending.toolChange,
      };
    default: {
      const unexpected: never = ending;
      throw new TypeError(`unknown call ending ${JSON.stringify(unexpected)}`);
    }
  }
}

/** A count worth a key on the line: nothing cut is said by leaving the key off. */
function nonZero(count: number | undefined): number | undefined {
  return count === 0 ? undefined : count;
}
