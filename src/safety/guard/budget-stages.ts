/**
 * The budgets (calls, calls per minute, tool time, result bytes per session, server and tool):
 * admitted before the call, charged with its time and result size after it.
 */
import type { ToolCallBlock } from '../../core/types.js';
import type { ToolBudgets } from '../budgets.js';
import type { ToolLocation } from '../tool-location.js';
import type { GateStage, ResultStage } from './stages.js';
import { definedProperties } from '../../util/defined-properties.js';

function budgetKey(call: ToolCallBlock, location: ToolLocation | undefined) {
  return { tool: call.name, ...definedProperties({ server: location?.server }) };
}

export function budgetAdmissionStage(budgets: ToolBudgets): GateStage {
  return {
    name: 'budgets',
    check: ({ call, location }) => {
      const overBudget = budgets.admit(budgetKey(call, location));
      if (overBudget === undefined) return { kind: 'continue' };
      return {
        kind: 'refuse',
        refusal: {
          decision: 'denied',
          decidedBy: 'budget',
          reason: overBudget,
          budget: overBudget,
          message: `The call to ${call.name} was not run: it is past ${overBudget}.`,
          outcome: 'not-run',
        },
      };
    },
  };
}

/** After the output limit: the bytes charged are those the model gets. */
export function budgetChargeStage(budgets: ToolBudgets): ResultStage {
  return {
    name: 'budget charge',
    check: ({ call, location, durationMs, facts }) => {
      budgets.charge(budgetKey(call, location), {
        toolTimeMs: durationMs,
        resultBytes: facts.resultBytes ?? 0,
      });
      return { kind: 'continue' };
    },
  };
}
