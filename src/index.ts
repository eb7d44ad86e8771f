/**
 * mcphost as a library. Named exports only.
 *
 * - {@link createRunner}: a Runner for a model string with the tools of your configured MCP servers.
 * - {@link Runner}: bring your own {@link Provider} and {@link ToolHost}.
 */
export {
  Runner,
  DEFAULT_MAX_STEPS,
  type RunnerOptions,
  type RunOptions,
  type Prompt,
  type RunOutcome,
  type CompactOptions,
  type HistoryChange,
} from './core/runner.js';
export {
  createRunner,
  DEFAULT_MODEL,
  DEFAULT_OLLAMA_MODEL,
  type CreateRunnerOptions,
} from './setup/create-runner.js';
export { McpRunner } from './setup/mcp-runner.js';
export type { HostEvent, HostEventListener, HostEventType } from './setup/host-event.js';
export type { RunResult, RunnerEvent, StopReason, ToolCallRecord } from './core/events.js';
export type { AgentEvent } from './core/events.js';
export type { AgentRun } from './agents/child-run.js';
export type { AgentDefinition, AgentEntry } from './agents/definition.js';
export type {
  AssistantContent,
  AssistantMessage,
  ChatRequest,
  FinishReason,
  GenerationSettings,
  ImageBlock,
  JsonSchema,
  JsonSchemaObject,
  Message,
  Provider,
  ProviderEvent,
  ProviderMetadata,
  ResponseFormat,
  TextBlock,
  ToolCallBlock,
  ToolHost,
  ToolMessage,
  ToolResultBlock,
  ToolResultOrigin,
  ToolSpec,
  UntrustedMarking,
  Usage,
  UserContent,
  UserMessage,
} from './core/types.js';
export {
  AbortedError,
  ConfigError,
  MaxStepsError,
  TokenBudgetError,
  McpHostError,
  PromptBlockedError,
  ProviderError,
  ServerError,
  StructuredOutputError,
  type ProviderErrorDetails,
} from './core/errors.js';
export { DEFAULT_OUTPUT_SCHEMA_RETRIES } from './core/structured-output.js';
export type {
  ElicitationAnswer,
  ElicitationRequest,
  FlaggedContentDecision,
  FlaggedContentReview,
  FormElicitationRequest,
  SamplingDecision,
  SamplingReview,
  SignInDecision,
  SignInRequest,
  UrlElicitationRequest,
  UserQuestions,
} from './core/questions.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './core/retry.js';
export {
  loadSavedConversation,
  saveConversation,
  SAVED_CONVERSATION_FORMAT_VERSION,
  type LoadedConversation,
  type SavedConversation,
} from './conversation/saved-conversation.js';
export {
  ConversationJournal,
  type CompactionRecord,
  type ConversationJournalOptions,
  type ConversationState,
} from './conversation/conversation-journal.js';
export type { ServerStatus, ServerState, PoolLogEntry } from './mcp/pool.js';
export {
  DEFAULT_COMPACT_AT,
  type Compaction,
  type CompactionReason,
  type ContextOptions,
  type ContextUsage,
} from './context/context-budget.js';
export type { ContextWindow, ContextWindowSource } from './context/windows.js';
export { SUMMARY_TEMPLATE } from './context/compaction.js';
export { DEFAULT_TOOL_OUTPUT_BYTES } from './context/tool-output-budget.js';
export {
  DEFAULT_TOOL_SEARCH_AT,
  VENDOR_TOOL_LIMITS,
  type ToolMode,
  type ToolSearchReason,
  type ToolSearchSetting,
} from './context/tool-catalog.js';
export { TOOL_SEARCH_NAME } from './context/tool-search.js';
export type { PromptedReason, ToolCalling, ToolCallingSetting } from './core/tool-calling/calling-mode.js';
export { parseTextCalls, type TextCall } from './core/tool-calling/text-calls.js';
export { SKILL_TOOL_NAME } from './mcp/skills/skill-tool.js';
export type { SkillAnswer, SkillLibrary, SkillSource, SkillSummary } from './mcp/skills/skill-library.js';
export type { ServerDefinition } from './mcp/definition.js';
export {
  ApprovalPolicy,
  DEFAULT_MAX_TOOL_RESULT_BYTES,
  GuardedToolHost,
  HookRunner,
  openAuditLog,
  redactSecrets,
  redactText,
  stripControlCharacters,
  type ApprovalDecision,
  type ApprovalHandler,
  type ApprovalRequest,
  type ApprovalRule,
  type ApprovalRuleSet,
  type SamplingRule,
  type ToolHints,
  type AuditEntry,
  type AuditSink,
  type GuardedToolHostOptions,
  type HookEvent,
  type HooksConfig,
  type ToolDecision,
  type ApprovalFallback,
  type ToolLocation,
} from './safety/index.js';
export {
  DEFAULT_COMPLETION_TIMEOUT_MS,
  type CompleteOptions,
  type CompletionRequest,
  type CompletionResult,
  type CompletionTarget,
} from './mcp/completion.js';
export type { OfferingsChange, OfferingsChangeListener } from './mcp/offerings-changes.js';
export type { OfferingsCatalog } from './mcp/offerings-catalog.js';
export type { SubscribeOutcome } from './mcp/resource-subscriptions.js';
// Many jobs over servers started once (docs/batch.md).
export { runBatch, JOB_DIR_VARIABLE, type RunBatchOptions, type BatchInput } from './setup/batch.js';
export {
  parseJobLine,
  parseJobLines,
  jobKey,
  type BatchJob,
  type NumberedJob,
  type JobLine,
  type JobLineOptions,
} from './batch/job.js';
export type { BatchResult, BatchJobStatus, BatchJobError, BatchToolCall } from './batch/result.js';
export {
  DEFAULT_CONCURRENCY,
  DEFAULT_JOB_RETRIES,
  DEFAULT_JOB_RETRY_DELAY_MS,
  isRetryableJobError,
  type JobProgress,
} from './batch/run-jobs.js';
// MCP Apps (issue 39): `runner.apps`, and the local page a program may serve for them.
export { serveAppPage, type AppPage } from './apps/page-server.js';
export type { AppHost, HostedApp, AppEvent } from './apps/app-host.js';
export type { AppsOptions } from './apps/options.js';
