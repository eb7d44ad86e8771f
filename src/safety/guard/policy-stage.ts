/** Stage 1: the approval rules. A `deny` ends here (no hook runs, no one is asked). */
import type { ApprovalPolicy } from '../policy.js';
import type { GateStage } from './stages.js';
import { definedProperties } from '../../util/defined-properties.js';

export function approvalPolicyStage(policy: ApprovalPolicy): GateStage {
  return {
    name: 'approval policy',
    check: ({ call, location }) => {
      const verdict = policy.decide({
        exposedName: call.name,
        ...(location === undefined ? {} : { server: location.server, tool: location.tool }),
        ...definedProperties({ hints: location?.hints }),
      });
      const why =
        verdict.rule?.reason === undefined ? verdict.because : `${verdict.rule.reason} (${verdict.because})`;
      switch (verdict.decision) {
        case 'deny':
          return {
            kind: 'refuse',
            refusal: {
              decision: 'denied',
              decidedBy: 'policy',
              reason: why,
              message: `The user's approval policy does not allow ${call.name}: ${why}. It was not run.`,
              outcome: 'not-run',
            },
          };
        case 'ask':
          // A kept answer stands in for the user's only where the rule set may be lifted.
          return { kind: 'ask', reason: why, keptApplies: verdict.alwaysAsk !== true };
        case 'allow':
          return { kind: 'continue' };
        default: {
          const unexpected: never = verdict.decision;
          throw new TypeError(`unknown approval decision ${JSON.stringify(unexpected)}`);
        }
      }
    },
  };
}
