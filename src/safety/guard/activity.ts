/**
 * The guard's work inside a tool call that a listener may follow (telemetry: child spans of the
 * call's `execute_tool` span): a wait for a person's approval, a hook run, the untrusted-content
 * screen. The guard knows nothing of OpenTelemetry; src/telemetry implements the listener. With
 * none, {@link observed} runs the work and nothing else.
 */
import type { ToolCallBlock } from '../../core/types.js';

export type GuardActivity =
  /** A person is asked to approve the call (the wait for the answer). */
  | { readonly kind: 'approval' }
  /** The call's `PreToolUse` or `PostToolUse` hooks run. */
  | { readonly kind: 'hook'; readonly event: 'PreToolUse' | 'PostToolUse' }
  /** A server's result goes through the untrusted-content screen. */
  | { readonly kind: 'screen' };

/** How an activity ended, in one low-cardinality word (`allow`, `deny`, `block`, `flagged`…). */
export type ActivityOutcome = string;

export interface GuardActivityObserver {
  /** Runs `work` (the activity) and returns what it returns; `outcomeOf` names how it ended. */
  during<T>(
    activity: GuardActivity,
    call: ToolCallBlock,
    work: () => Promise<T>,
    outcomeOf: (value: T) => ActivityOutcome,
  ): Promise<T>;
}

/** `work`, followed by the observer when there is one. */
export function observed<T>(
  observer: GuardActivityObserver | undefined,
  activity: GuardActivity,
  call: ToolCallBlock,
  work: () => Promise<T>,
  outcomeOf: (value: T) => ActivityOutcome,
): Promise<T> {
  return observer === undefined ? work() : observer.during(activity, call, work, outcomeOf);
}
