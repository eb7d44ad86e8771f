/**
 * Putting the safety pieces together for one session, from plain settings (createRunner reads them
 * from the config): the guarded tool host, and the Runner options that run the prompt hooks.
 */
import type { ParentEnvironment } from '../mcp/environment.js';
import type { RunnerOptions } from '../runner.js';
import type { ToolHost } from '../types.js';
import type { ApprovalHandler, QuestionQueue } from './approval.js';
import type { AuditSink } from './audit-log.js';
import { GuardedToolHost, type ToolLocation } from './guarded-tool-host.js';
import { HookRunner, type HookSessionContext, type HooksConfig } from './hooks.js';
import { ApprovalPolicy, type ApprovalRuleSet } from './policy.js';
import { promptHooks } from './prompt-hooks.js';

/** What a session's safety is made of. */
export interface SafetySettings {
  /** The host to guard (the MCP pool). */
  readonly host: ToolHost;
  /** Where an exposed name leads; should read the table calls are routed through (see GuardedToolHostOptions). */
  readonly locate?: (exposedName: string) => ToolLocation | undefined | Promise<ToolLocation | undefined>;
  readonly approval?: readonly ApprovalRuleSet[];
  readonly hooks?: HooksConfig;
  readonly audit?: AuditSink;
  readonly maxToolResultBytes?: number;
  readonly onApproval?: ApprovalHandler;
  readonly approveAll?: boolean;
  /** What hooks are told about the session. */
  readonly hookContext: HookSessionContext;
  /** Our environment (hooks get a minimal part of it). */
  readonly env: ParentEnvironment;
  /** Hook failures that do not block. */
  readonly onWarning?: (message: string) => void;
  /** The runner's one question queue. */
  readonly questionQueue?: QuestionQueue;
}

/** The guarded host, and the Runner options for `UserPromptSubmit` and `Stop` hooks. */
export interface Safety {
  readonly guard: GuardedToolHost;
  readonly runnerOptions: Pick<RunnerOptions, 'beforePrompt' | 'afterRun'>;
}

export function assembleSafety(settings: SafetySettings): Safety {
  const hooks =
    settings.hooks === undefined
      ? undefined
      : new HookRunner({
          config: settings.hooks,
          context: settings.hookContext,
          env: settings.env,
          ...(settings.onWarning === undefined ? {} : { onWarning: settings.onWarning }),
        });
  const guard = new GuardedToolHost({
    host: settings.host,
    policy: new ApprovalPolicy(settings.approval ?? []),
    ...(settings.locate === undefined ? {} : { locate: settings.locate }),
    ...(settings.onApproval === undefined ? {} : { onApproval: settings.onApproval }),
    ...(settings.approveAll === undefined ? {} : { approveAll: settings.approveAll }),
    ...(hooks === undefined ? {} : { hooks }),
    ...(settings.audit === undefined ? {} : { audit: settings.audit }),
    ...(settings.maxToolResultBytes === undefined ? {} : { maxResultBytes: settings.maxToolResultBytes }),
    ...(settings.questionQueue === undefined ? {} : { questionQueue: settings.questionQueue }),
  });
  return { guard, runnerOptions: hooks === undefined ? {} : promptHooks(hooks) };
}
