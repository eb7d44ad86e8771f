/**
 * Putting the safety pieces together for one session from its {@link SafetyOptions} (createRunner
 * merges the config's and the caller's): the guarded tool host, and the Runner options that run
 * the prompt hooks and count the turns for the audit log.
 */
import type { ParentEnvironment } from '../mcp/environment.js';
import type { RunnerOptions } from '../core/runner.js';
import { GuardedToolHost, type GuardedToolHostOptions } from './guarded-tool-host.js';
import { HookRunner, type HookSessionContext } from './hooks.js';
import type { SafetyOptions } from './options.js';
import { promptHooks } from './prompt-hooks.js';
import { QuestionQueue } from '../core/questions.js';
import { ToolPinCheck, type ToolChangeNotice } from './tool-pin-check.js';
import { TokenBudget } from '../core/token-budget.js';
import { definedProperties } from '../util/defined-properties.js';

/**
 * What a session's safety is made of: the guard's own options (the settings object and the
 * collaborators), less what is made here from them (the hook runner, the session id), plus what
 * the hooks are told.
 */
export interface AssembleSafetyOptions extends Omit<
  GuardedToolHostOptions,
  'hooks' | 'sessionId' | 'safety'
> {
  /** The settings, passed on unchanged to the guard. */
  readonly safety: SafetyOptions;
  /** Told of each tool definition that changed since it was pinned (tool-pin-check.ts). */
  readonly onToolChange?: (notice: ToolChangeNotice) => void;
  /** What hooks are told about the session (its id is also on every audit line). */
  readonly hookContext: HookSessionContext;
  /** Our environment (hooks get a minimal part of it). */
  readonly env: ParentEnvironment;
  /** The trace context hooks join (telemetry; see HookRunnerOptions.traceEnvironment). */
  readonly traceEnvironment?: () => Readonly<Record<string, string>>;
}

/** The guarded host, and the Runner options for `UserPromptSubmit` and `Stop` hooks. */
export interface Safety {
  readonly guard: GuardedToolHost;
  readonly runnerOptions: Pick<RunnerOptions, 'beforePrompt' | 'afterRun' | 'tokenBudget'>;
}

export function assembleSafety(options: AssembleSafetyOptions): Safety {
  const { hookContext, env, onToolChange, traceEnvironment, ...guardOptions } = options;
  const hooks =
    options.safety.hooks === undefined
      ? undefined
      : new HookRunner({
          config: options.safety.hooks,
          context: hookContext,
          env,
          ...definedProperties({
            onWarning: options.onWarning,
            traceEnvironment,
          }),
        });
  // One queue for the guard's questions and the pin check's: never two prompts at once.
  const questionQueue = options.questionQueue ?? new QuestionQueue();
  // A check shared by several guards (the jobs of a batch) is given; else one for this session.
  const pins = options.pins ?? toolPinCheck(options, questionQueue, onToolChange);
  const guard = new GuardedToolHost({
    ...guardOptions,
    questionQueue,
    ...definedProperties({ pins }),
    sessionId: hookContext.sessionId,
    ...definedProperties({ hooks }),
  });
  const prompt: Partial<Safety['runnerOptions']> = hooks === undefined ? {} : promptHooks(hooks);
  const maxTokens = options.safety.budgets?.maxTokens;
  return {
    guard,
    runnerOptions: {
      ...prompt,
      // One counter for the session: its agents' runs get the same (src/setup/agent-runtime.ts).
      ...(maxTokens === undefined ? {} : { tokenBudget: new TokenBudget(maxTokens) }),
      // Counted before the hooks run: a prompt they refuse still took a turn number.
      beforePrompt: async (content, signal) => {
        guard.beginTurn();
        await prompt.beforePrompt?.(content, signal);
      },
    },
  };
}

/** The session's check of tool definitions against their pins, unless pinning is off. */
function toolPinCheck(
  options: AssembleSafetyOptions,
  queue: QuestionQueue,
  onChange: ((notice: ToolChangeNotice) => void) | undefined,
): ToolPinCheck | undefined {
  const { safety } = options;
  if (safety.toolPins === undefined || safety.toolPins === false) return undefined;
  return new ToolPinCheck({
    store: safety.toolPins,
    ...definedProperties({ settings: safety.toolChanges, questions: options.questions }),
    queue,
    ...definedProperties({ audit: options.audit }),
    sessionId: options.hookContext.sessionId,
    ...definedProperties({ identify: options.identify, onWarning: options.onWarning, onChange }),
  });
}
