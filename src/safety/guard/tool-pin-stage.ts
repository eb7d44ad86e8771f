/**
 * The pinned-definitions stage, first before a call: the definition the call will run under is
 * checked against its pin (tool-pin-check.ts), and a tool withheld by the `toolChanges` policy is
 * refused before any rule, hook or person is consulted.
 */
import type { ToolPinCheck } from '../tool-pin-check.js';
import type { ToolLocation } from '../tool-location.js';
import type { GateStage } from './stages.js';

export function toolPinStage(
  pins: ToolPinCheck | undefined,
  pinsOnSight: (exposedName: string, location: ToolLocation) => boolean,
): GateStage {
  return {
    name: 'pinned tool definition',
    async check({ call, location, signal }) {
      if (pins === undefined) return { kind: 'continue' };
      const onSight = location !== undefined && pinsOnSight(call.name, location);
      const verdict = await pins.beforeCall(call.name, location, onSight, signal);
      if (verdict.kind === 'run') return { kind: 'continue' };
      return {
        kind: 'refuse',
        refusal: {
          decision: 'blocked',
          decidedBy: 'tool-pin',
          reason: verdict.message,
          message: verdict.message,
          outcome: 'not-run',
        },
      };
    },
  };
}
