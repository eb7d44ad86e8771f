/**
 * The session's approval mode, set by a front end while it runs (an editor's `session/set_mode`):
 * read-only refuses every tool that does not say it is read-only, and accept-edits lifts the
 * question for file edits. It runs after the approval rules, so a `deny` rule is never lifted, and
 * it never lifts an `ask` that no kept answer may stand in for (a rule set marked `alwaysAsk`).
 */
import type { GateStage } from './stages.js';
import type { SessionModeCheck } from '../session-mode.js';

export function sessionModeStage(check: SessionModeCheck | undefined): GateStage {
  return {
    name: 'session mode',
    check: ({ call, location, standing }) => {
      if (check === undefined) return { kind: 'continue' };
      const verdict = check({
        exposedName: call.name,
        ...(location === undefined ? {} : { server: location.server, tool: location.tool }),
        ...(location?.hints === undefined ? {} : { hints: location.hints }),
      });
      switch (verdict.kind) {
        case 'no-say':
          return { kind: 'continue' };
        case 'refuse':
          return {
            kind: 'refuse',
            refusal: {
              decision: 'denied',
              decidedBy: 'policy',
              reason: verdict.reason,
              message: `${call.name} was not run: ${verdict.reason}.`,
              outcome: 'not-run',
            },
          };
        case 'allow':
          // Only an ask that a kept answer could lift: an `alwaysAsk` set asks in every mode.
          return standing.kind === 'asking' && standing.keptApplies
            ? { kind: 'allow', decidedBy: 'policy', reason: verdict.reason }
            : { kind: 'continue' };
        default: {
          const unexpected: never = verdict;
          throw new TypeError(`unknown session mode verdict ${JSON.stringify(unexpected)}`);
        }
      }
    },
  };
}
