/**
 * The hook stages: `PreToolUse` before the call (a block ends here; a hook may also approve the
 * call or ask for approval), `PostToolUse` after it (a block withholds the result from the model;
 * the call did run).
 */
import { errorResult } from '../../core/tool-execution.js';
import type { HookRunner } from '../hooks.js';
import { hookToolFields } from './parts.js';
import type { GateStage, ResultStage } from './stages.js';
import { observed, type GuardActivityObserver } from './activity.js';

export function preToolUseStage(
  hooks: HookRunner | undefined,
  activities?: GuardActivityObserver,
): GateStage {
  return {
    name: 'PreToolUse hooks',
    check: async ({ call, location, signal }) => {
      if (hooks?.has('PreToolUse') !== true) return { kind: 'continue' };
      const hook = await observed(
        activities,
        { kind: 'hook', event: 'PreToolUse' },
        call,
        () => hooks.run('PreToolUse', hookToolFields(call, location), { toolName: call.name, signal }),
        (verdict) => verdict.kind,
      );
      switch (hook.kind) {
        case 'block':
          return {
            kind: 'refuse',
            refusal: {
              decision: 'blocked',
              decidedBy: 'hook',
              reason: hook.reason,
              message: `A PreToolUse hook blocked the call to ${call.name}: ${hook.reason}. It was not run.`,
              outcome: 'not-run',
            },
          };
        case 'ask':
          return { kind: 'ask', reason: hook.reason ?? 'a PreToolUse hook asks for approval' };
        case 'approve':
          return { kind: 'allow', decidedBy: 'hook' };
        case 'none':
          return { kind: 'continue' };
        default: {
          const unexpected: never = hook;
          throw new TypeError(`unknown hook verdict ${JSON.stringify(unexpected)}`);
        }
      }
    },
  };
}

export function postToolUseStage(
  hooks: HookRunner | undefined,
  activities?: GuardActivityObserver,
): ResultStage {
  return {
    name: 'PostToolUse hooks',
    check: async ({ call, location, signal, result, cancelled }) => {
      if (cancelled || hooks?.has('PostToolUse') !== true) return { kind: 'continue' };
      const verdict = await observed(
        activities,
        { kind: 'hook', event: 'PostToolUse' },
        call,
        () =>
          hooks.run(
            'PostToolUse',
            {
              ...hookToolFields(call, location),
              tool_response: { content: result.content, isError: result.isError },
            },
            { toolName: call.name, signal },
          ),
        (hook) => hook.kind,
      );
      if (verdict.kind !== 'block') return { kind: 'continue' };
      return {
        kind: 'rewrite',
        result: errorResult(
          call,
          `The call to ${call.name} ran, but a PostToolUse hook withheld its result: ${verdict.reason}`,
        ),
        facts: { withheld: verdict.reason },
      };
    },
  };
}
