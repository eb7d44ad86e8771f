/**
 * The two hooks around a whole run, as Runner options: `UserPromptSubmit` before the prompt is
 * sent (a block refuses it with a {@link PromptBlockedError}), and `Stop` when the run has ended.
 *
 * A `Stop` hook is told, and cannot change the outcome: Claude Code lets one "block" to make the
 * model go on, which mcphost does not do (its answer is already on the user's screen).
 */
import { AbortedError, PromptBlockedError } from '../core/errors.js';
import type { RunnerOptions, RunOutcome } from '../core/runner.js';
import type { UserContent } from '../core/types.js';
import type { HookRunner } from './hooks.js';
import { blocksAsText } from '../util/content-text.js';

/** `beforePrompt` and `afterRun` that run a session's prompt and stop hooks. */
export function promptHooks(hooks: HookRunner): Required<Pick<RunnerOptions, 'beforePrompt' | 'afterRun'>> {
  return {
    async beforePrompt(prompt: readonly UserContent[], signal?: AbortSignal): Promise<void> {
      if (!hooks.has('UserPromptSubmit')) return;
      const verdict = await hooks.run(
        'UserPromptSubmit',
        { prompt: blocksAsText(prompt) },
        signal === undefined ? {} : { signal },
      );
      if (signal?.aborted === true) throw new AbortedError();
      if (verdict.kind === 'block') throw new PromptBlockedError(verdict.reason);
    },
    async afterRun(outcome: RunOutcome): Promise<void> {
      if (!hooks.has('Stop')) return;
      // Not given the run's signal: after Ctrl-C it is aborted, and the hook should still hear of it.
      await hooks.run('Stop', stopFields(outcome));
    },
  };
}

/** The Go mcphost's Stop input: `response`, `stop_reason` (completed, cancelled, error) and `meta`. */
function stopFields(outcome: RunOutcome): Record<string, unknown> {
  switch (outcome.kind) {
    case 'completed':
      return {
        stop_hook_active: false,
        response: outcome.result.text,
        stop_reason: 'completed',
        meta: {
          steps: outcome.result.steps,
          tool_calls: outcome.result.toolCalls.length,
          usage: outcome.result.usage,
          finish: outcome.result.stopReason,
        },
      };
    case 'failed': {
      const cancelled = outcome.error instanceof AbortedError;
      return {
        stop_hook_active: false,
        response: '',
        stop_reason: cancelled ? 'cancelled' : 'error',
        meta: { error: outcome.error instanceof Error ? outcome.error.message : String(outcome.error) },
      };
    }
    default: {
      const unexpected: never = outcome;
      throw new TypeError(`unknown run outcome ${JSON.stringify(unexpected)}`);
    }
  }
}
