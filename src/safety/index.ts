/**
 * Safety: the host decides what runs. Approval rules, hooks, audit log, output limits and secret
 * redaction, and {@link GuardedToolHost}, which applies them to any ToolHost.
 */
export { GuardedToolHost, type GuardedToolHostOptions, type ToolLocation } from './guarded-tool-host.js';
export {
  ApprovalPolicy,
  type ApprovalFallback,
  type ApprovalRule,
  type ApprovalRuleSet,
  toolHintsOf,
  type PolicyVerdict,
  type SamplingRule,
  type SamplingVerdict,
  type ToolDecision,
  type ToolHints,
  type ToolIdentity,
} from './policy.js';
export { QuestionQueue } from '../core/questions.js';
export {
  SessionGrants,
  type ApprovalDecision,
  type ApprovalHandler,
  type ApprovalRequest,
} from './approval.js';
export {
  DEFAULT_HOOK_TIMEOUT_SECONDS,
  HOOK_EVENTS,
  HookRunner,
  hookMatcherMatches,
  MAX_HOOK_TIMEOUT_SECONDS,
  type HookCommand,
  type HookEvent,
  type HookMatcherGroup,
  type HookRunnerOptions,
  type HooksConfig,
  type HookSessionContext,
  type HookVerdict,
} from './hooks.js';
export { promptHooks } from './prompt-hooks.js';
export {
  formatAuditLine,
  MAX_AUDIT_STRING_LENGTH,
  openAuditLog,
  type AuditEntry,
  type AuditSink,
  type DecidedBy,
} from './audit-log.js';
export {
  DEFAULT_MAX_TOOL_IMAGE_BYTES,
  DEFAULT_MAX_TOOL_RESULT_BYTES,
  DEFAULT_MAX_TOOL_RESULT_IMAGE_BYTES,
  limitToolImages,
  limitToolResult,
  stripControlCharacters,
  stripResultControlCharacters,
  type ImageLimitedResult,
  type ImageLimits,
  type LimitedResult,
} from './output-limits.js';
export { isSecretKey, REDACTED, redactSecrets, redactText } from './redact.js';
export { compileGlob, globToRegExp, type Glob } from './glob.js';
