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
} from './runner.js';
export { createRunner, DEFAULT_MODEL, type CreateRunnerOptions } from './setup/create-runner.js';
export { McpRunner } from './setup/mcp-runner.js';
export type { RunResult, RunnerEvent, StopReason, ToolCallRecord } from './events.js';
export type {
  AssistantContent,
  AssistantMessage,
  ChatRequest,
  FinishReason,
  GenerationSettings,
  ImageBlock,
  JsonSchema,
  Message,
  Provider,
  ProviderEvent,
  ProviderMetadata,
  TextBlock,
  ToolCallBlock,
  ToolHost,
  ToolMessage,
  ToolResultBlock,
  ToolSpec,
  Usage,
  UserContent,
  UserMessage,
} from './types.js';
export {
  AbortedError,
  ConfigError,
  MaxStepsError,
  McpHostError,
  PromptBlockedError,
  ProviderError,
  ServerError,
  type ProviderErrorDetails,
} from './errors.js';
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
} from './questions.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry.js';
export { loadSession, saveSession, SESSION_FORMAT_VERSION, type Session } from './session.js';
export type { ServerStatus, ServerState, PoolLogEntry } from './mcp/pool.js';
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
  type AuditEntry,
  type AuditSink,
  type GuardedToolHostOptions,
  type HookEvent,
  type HooksConfig,
  type ToolDecision,
  type ToolLocation,
} from './safety/index.js';
