/**
 * Putting the safety pieces together for one session from its {@link SafetyOptions} (createRunner
 * merges the config's and the caller's): the guarded tool host, and the Runner options that run
 * the prompt hooks and count the turns for the audit log.
 */
import type { ParentEnvironment } from '../mcp/environment.js';
import type { UserQuestions } from '../core/questions.js';
import type { RunnerOptions } from '../core/runner.js';
import type { ToolHost } from '../core/types.js';
import type { ApprovalHandler } from './approval.js';
import { QuestionQueue } from '../core/questions.js';
import type { AuditSink, ServerIdentity } from './audit-log.js';
import { GuardedToolHost, type GuardedToolHostOptions, type ToolLocation } from './guarded-tool-host.js';
import { HookRunner, type HookSessionContext } from './hooks.js';
import type { SafetyOptions } from './options.js';
import { promptHooks } from './prompt-hooks.js';
import { ToolPinCheck, type ToolChangeNotice } from './tool-pin-check.js';

/** What a session's safety is made of: the settings, and what they act on. */
export interface SafetySettings {
  /** The host to guard (the MCP pool). */
  readonly host: ToolHost;
  /** The settings, passed on unchanged to the guard. */
  readonly safety: SafetyOptions;
  /** Where an exposed name leads; should read the table calls are routed through (see GuardedToolHostOptions). */
  readonly locate?: (exposedName: string) => ToolLocation | undefined | Promise<ToolLocation | undefined>;
  /** Who a server is, for the audit log. */
  readonly identify?: (server: string) => ServerIdentity | undefined;
  /** The audit log, opened from `safety.auditLog`. */
  readonly audit?: AuditSink;
  /** Where the whole text of a result over the budget is saved. */
  readonly toolOutputFolder?: string;
  readonly onApproval?: ApprovalHandler;
  /** Asks about flagged content (the `ask` policy). */
  readonly questions?: UserQuestions;
  /** Told when the detector flags a result. */
  readonly onFlagged?: GuardedToolHostOptions['onFlagged'];
  /** What hooks are told about the session (its id is also on every audit line). */
  readonly hookContext: HookSessionContext;
  /** Our environment (hooks get a minimal part of it). */
  readonly env: ParentEnvironment;
  /** Hook failures that do not block. */
  readonly onWarning?: (message: string) => void;
  /** Told of each tool definition that changed since it was pinned. */
  readonly onToolChange?: (notice: ToolChangeNotice) => void;
  /** The runner's one question queue. */
  readonly questionQueue?: QuestionQueue;
}

/** The guarded host, and the Runner options for `UserPromptSubmit` and `Stop` hooks. */
export interface Safety {
  readonly guard: GuardedToolHost;
  readonly runnerOptions: Pick<RunnerOptions, 'beforePrompt' | 'afterRun'>;
}

export function assembleSafety(settings: SafetySettings): Safety {
  const { safety } = settings;
  const hooks =
    safety.hooks === undefined
      ? undefined
      : new HookRunner({
          config: safety.hooks,
          context: settings.hookContext,
          env: settings.env,
          ...(settings.onWarning === undefined ? {} : { onWarning: settings.onWarning }),
        });
  const questionQueue = settings.questionQueue ?? new QuestionQueue();
  const pins =
    safety.toolPins === undefined || safety.toolPins === false
      ? undefined
      : new ToolPinCheck({
          store: safety.toolPins,
          ...(safety.toolChanges === undefined ? {} : { settings: safety.toolChanges }),
          ...(settings.questions === undefined ? {} : { questions: settings.questions }),
          queue: questionQueue,
          ...(settings.audit === undefined ? {} : { audit: settings.audit }),
          sessionId: settings.hookContext.sessionId,
          ...(settings.identify === undefined ? {} : { identify: settings.identify }),
          ...(settings.onWarning === undefined ? {} : { onWarning: settings.onWarning }),
          ...(settings.onToolChange === undefined ? {} : { onChange: settings.onToolChange }),
        });
  const guard = new GuardedToolHost({
    host: settings.host,
    safety,
    sessionId: settings.hookContext.sessionId,
    ...(settings.locate === undefined ? {} : { locate: settings.locate }),
    ...(settings.identify === undefined ? {} : { identify: settings.identify }),
    ...(settings.onApproval === undefined ? {} : { onApproval: settings.onApproval }),
    ...(settings.questions === undefined ? {} : { questions: settings.questions }),
    ...(settings.onFlagged === undefined ? {} : { onFlagged: settings.onFlagged }),
    ...(hooks === undefined ? {} : { hooks }),
    ...(settings.audit === undefined ? {} : { audit: settings.audit }),
    ...(settings.toolOutputFolder === undefined ? {} : { toolOutputFolder: settings.toolOutputFolder }),
    questionQueue,
    ...(pins === undefined ? {} : { pins }),
    ...(settings.onWarning === undefined ? {} : { onWarning: settings.onWarning }),
  });
  const prompt: Partial<Safety['runnerOptions']> = hooks === undefined ? {} : promptHooks(hooks);
  return {
    guard,
    runnerOptions: {
      ...prompt,
      // Counted before the hooks run: a prompt they refuse still took a turn number.
      beforePrompt: async (content, signal) => {
        guard.beginTurn();
        await prompt.beforePrompt?.(content, signal);
      },
    },
  };
}
