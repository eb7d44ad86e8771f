/**
 * mcphost as a library. Named exports only.
 *
 * - {@link createRunner}: a Runner for a model string with the tools of your configured MCP servers.
 * - {@link Runner}: bring your own {@link Provider} and {@link ToolHost}.
 */
export { Runner, DEFAULT_MAX_STEPS, type RunnerOptions, type RunOptions, type Prompt } from './runner.js';
export { createRunner, McpRunner, DEFAULT_MODEL, type CreateRunnerOptions } from './setup/create-runner.js';
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
  ProviderError,
  ServerError,
  type ProviderErrorDetails,
} from './errors.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry.js';
export type { ServerStatus, ServerState, PoolLogEntry } from './mcp/pool.js';
export type { ServerDefinition } from './mcp/definition.js';
