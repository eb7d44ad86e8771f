/**
 * Cancelled while its hooks or its question ran: a hook that was stopped had no say, so the call
 * must not run. Recorded as allowed (it was) and cancelled.
 */
import type { GateStage } from './stages.js';

export function notCancelledStage(cancellation: () => string): GateStage {
  return {
    name: 'not cancelled',
    check: ({ call, signal, standing }) => {
      if (!signal.aborted) return { kind: 'continue' };
      const why = cancellation();
      return {
        kind: 'refuse',
        refusal: {
          decision: 'allowed',
          decidedBy: standing.kind === 'allowed' ? standing.decidedBy : 'policy',
          reason: why,
          message: `The call to ${call.name} was not run: ${why}.`,
          outcome: 'cancelled',
        },
      };
    },
  };
}
