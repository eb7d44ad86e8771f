/**
 * The safety settings of a session, as one object: the config file's and the command line's are
 * merged into it once (createRunner), and it is passed unchanged to `assembleSafety` and on to
 * `GuardedToolHost`. A new setting is added here, and nowhere else along the way.
 */
import type { BudgetOptions } from './budgets.js';
import type { HooksConfig } from './hooks.js';
import type { KeptPermissions } from './kept-permissions.js';
import type { ToolPinStore } from './tool-pin-store.js';
import type { ToolChangeSettings } from './tool-pins.js';
import type { ApprovalFallback, ApprovalRuleSet } from './policy.js';
import type { UntrustedContentOptions } from './untrusted-content.js';
import type { SessionModeCheck } from './session-mode.js';

export interface SafetyOptions {
  /** Approval rules, one set per config file (first match wins within a set; see policy.ts). */
  readonly approval?: readonly ApprovalRuleSet[];
  /**
   * What decides a call no approval rule and no `default` speaks to (see policy.ts). Default in
   * the guard: `allow`. createRunner chooses `ask-unless-read-only` when someone can be asked (an
   * approval callback is given: the chat), else `allow` (`-p`, a library without a callback).
   */
  readonly approvalFallback?: ApprovalFallback;
  /** Hook commands by event. */
  readonly hooks?: HooksConfig;
  /** Run `ask` calls without asking (`--approve-all`). Deny rules, hooks and the detector still apply. */
  readonly approveAll?: boolean;
  /** Append one JSON line per tool call to this file (`--audit-log`). */
  readonly auditLog?: string;
  /** Rotate the audit log before it grows past this many bytes. Default: never. */
  readonly auditLogMaxBytes?: number;
  /** The most text of one tool result the model gets, in UTF-8 bytes. */
  readonly maxToolResultBytes?: number;
  /** How tool output is marked and screened for injection. */
  readonly untrustedContent?: UntrustedContentOptions;
  /** Limits on tool calls per session, server and tool. */
  readonly budgets?: BudgetOptions;
  /**
   * "Always allow" answers kept for the project folder: they answer an `ask` without asking (never
   * a deny rule, nor a rule set marked `alwaysAsk`), and an answer with `keep` is added to them.
   */
  readonly keptPermissions?: KeptPermissions;
  /**
   * Where tool definitions are pinned (tool-pin-store.ts). Absent: definitions are not pinned or
   * checked. createRunner opens the state folder's `tool-pins.json` unless given `false`.
   */
  readonly toolPins?: ToolPinStore | false;
  /** What a changed tool definition is met with, for every server and per server (default `warn`). */
  readonly toolChanges?: ToolChangeSettings;
  /**
   * The session's approval mode, read at every call (an editor's `session/set_mode`; see
   * session-mode.ts): after the rules, it may refuse a call or lift an `ask`. Absent: no mode.
   */
  readonly sessionMode?: SessionModeCheck;
}

/**
 * `base` with every setting `over` sets (the command line over the config file). `untrustedContent`
 * is merged field by field: `--no-untrusted-clause` keeps the config's `policy`.
 */
export function mergeSafetyOptions(base: SafetyOptions, over: SafetyOptions): SafetyOptions {
  const set = Object.fromEntries(Object.entries(over).filter(([, value]) => value !== undefined));
  const untrustedContent =
    base.untrustedContent === undefined || over.untrustedContent === undefined
      ? {}
      : { untrustedContent: { ...base.untrustedContent, ...definedFields(over.untrustedContent) } };
  return { ...base, ...set, ...untrustedContent };
}

function definedFields<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>;
}
