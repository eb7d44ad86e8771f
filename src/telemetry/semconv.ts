/**
 * The attribute and metric names of the OpenTelemetry GenAI and MCP semantic conventions this host
 * records (open-telemetry/semantic-conventions-genai, status "development"; see
 * docs/telemetry.md). Written out here because `@opentelemetry/semantic-conventions` keeps them
 * in its `incubating` entry, a module of several thousand constants to load for thirty names.
 */
export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const ATTR_GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name';
export const ATTR_GEN_AI_REQUEST_MODEL = 'gen_ai.request.model';
export const ATTR_GEN_AI_RESPONSE_MODEL = 'gen_ai.response.model';
export const ATTR_GEN_AI_CONVERSATION_ID = 'gen_ai.conversation.id';
export const ATTR_GEN_AI_AGENT_NAME = 'gen_ai.agent.name';
export const ATTR_GEN_AI_REQUEST_MAX_TOKENS = 'gen_ai.request.max_tokens';
export const ATTR_GEN_AI_REQUEST_TEMPERATURE = 'gen_ai.request.temperature';
export const ATTR_GEN_AI_REQUEST_TOP_P = 'gen_ai.request.top_p';
export const ATTR_GEN_AI_REQUEST_TOP_K = 'gen_ai.request.top_k';
export const ATTR_GEN_AI_REQUEST_STOP_SEQUENCES = 'gen_ai.request.stop_sequences';
export const ATTR_GEN_AI_RESPONSE_FINISH_REASONS = 'gen_ai.response.finish_reasons';
export const ATTR_GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
export const ATTR_GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
export const ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS = 'gen_ai.usage.cache_read.input_tokens';
export const ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS = 'gen_ai.usage.cache_creation.input_tokens';
export const ATTR_GEN_AI_TOKEN_TYPE = 'gen_ai.token.type';
export const ATTR_GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
export const ATTR_GEN_AI_TOOL_TYPE = 'gen_ai.tool.type';
export const ATTR_GEN_AI_TOOL_CALL_ID = 'gen_ai.tool.call.id';
export const ATTR_GEN_AI_TOOL_CALL_ARGUMENTS = 'gen_ai.tool.call.arguments';
export const ATTR_GEN_AI_TOOL_CALL_RESULT = 'gen_ai.tool.call.result';
export const ATTR_GEN_AI_OUTPUT_MESSAGES = 'gen_ai.output.messages';
export const ATTR_MCP_METHOD_NAME = 'mcp.method.name';
export const ATTR_MCP_SESSION_ID = 'mcp.session.id';
export const ATTR_MCP_PROTOCOL_VERSION = 'mcp.protocol.version';
export const ATTR_NETWORK_TRANSPORT = 'network.transport';
export const ATTR_NETWORK_PROTOCOL_NAME = 'network.protocol.name';
export const ATTR_SERVER_ADDRESS = 'server.address';
export const ATTR_SERVER_PORT = 'server.port';
export const ATTR_ERROR_TYPE = 'error.type';
/** Ours (no convention names the configured server): the pool's name for it. */
export const ATTR_MCPHOST_SERVER = 'mcphost.mcp.server';
/** Ours: which attempt of a retried model call a `chat` span is (1 for the first). */
export const ATTR_MCPHOST_ATTEMPT = 'mcphost.attempt';
/** Ours: a server start that is a restart (after a crash or a failed start). */
export const ATTR_MCPHOST_RESTART = 'mcphost.mcp.restart';
/** Ours: how many tools a started server listed. */
export const ATTR_MCPHOST_TOOL_COUNT = 'mcphost.mcp.tool_count';
/** Ours: how an approval wait, a hook run or the screen ended (`allow-once`, `block`, `clean`…). */
export const ATTR_MCPHOST_OUTCOME = 'mcphost.outcome';
/** Ours: which hooks a `hook` span ran (`PreToolUse`, `PostToolUse`). */
export const ATTR_MCPHOST_HOOK_EVENT = 'mcphost.hook.event';
/** Ours: the batch or worker job a trace belongs to. */
export const ATTR_MCPHOST_JOB_ID = 'mcphost.job.id';

export const METRIC_GEN_AI_CLIENT_TOKEN_USAGE = 'gen_ai.client.token.usage';
export const METRIC_GEN_AI_CLIENT_OPERATION_DURATION = 'gen_ai.client.operation.duration';
export const METRIC_MCP_CLIENT_OPERATION_DURATION = 'mcp.client.operation.duration';
/** Ours: tool calls by server and outcome. */
export const METRIC_MCPHOST_TOOL_CALLS = 'mcphost.tool.calls';

/** The `gen_ai.provider.name` of each of our providers (the convention's names where it has one). */
export function genAiProviderName(provider: string): string {
  switch (provider) {
    case 'google':
      return 'gcp.gemini';
    case 'local':
      return 'llama.cpp';
    default:
      return provider;
  }
}
