/**
 * The guard's stages, in the order they run. A new check is one line in one of these lists (and
 * a file of its own beside them; see stages.ts for the verdicts).
 */
import { approvalStage } from './approval-stage.js';
import { budgetAdmissionStage, budgetChargeStage } from './budget-stages.js';
import { notCancelledStage } from './cancelled-stage.js';
import { postToolUseStage, preToolUseStage } from './hook-stages.js';
import type { GuardParts } from './parts.js';
import { approvalPolicyStage } from './policy-stage.js';
import { outputLimitStage, untrustedContentStage } from './result-stages.js';
import type { GateStage, ResultStage } from './stages.js';
import { toolPinStage } from './tool-pin-stage.js';
import { sessionModeStage } from './session-mode-stage.js';

/** Before the call: whether it runs, and who said so. The first refusal ends the list. */
export function gateStages(parts: GuardParts): readonly GateStage[] {
  return [
    toolPinStage(parts.pins, parts.pinsOnSight),
    approvalPolicyStage(parts.policy),
    sessionModeStage(parts.settings.sessionMode),
    preToolUseStage(parts.hooks, parts.activities),
    approvalStage(parts),
    notCancelledStage(parts.cancellation),
    budgetAdmissionStage(parts.budgets),
  ];
}

/** After the call: what the model gets of its result. */
export function resultStages(parts: GuardParts): readonly ResultStage[] {
  return [
    outputLimitStage(parts),
    budgetChargeStage(parts.budgets),
    postToolUseStage(parts.hooks, parts.activities),
    untrustedContentStage(parts),
  ];
}
