/**
 * The contract between the Runner, the providers and the tool host.
 *
 * Everything here is plain data (tagged unions) so that a conversation can be saved as JSON,
 * replayed, and mapped to any vendor's wire format by a pure function.
 */

/** A piece of text, from the user, the model or a tool. */
export interface TextBlock {
  readonly type: 'text';
  /** The text itself, never transformed by mcphost. */
  readonly text: string;
}

/** An image, from the user or a tool. */
export interface ImageBlock {
  readonly type: 'image';
  /** IANA media type, e.g. `image/png`. */
  readonly mimeType: string;
  /** The image bytes, base64-encoded (no `data:` prefix). */
  readonly data: string;
}

/**
 * Opaque data a vendor attaches to a part of its answer and wants back unchanged on the next
 * request (Gemini's thought signatures, for instance). Keyed by provider name.
 */
export type ProviderMetadata = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

/** A request from the model to run one tool. */
export interface ToolCallBlock {
  readonly type: 'tool-call';
  /** Unique within the conversation. Made up by the adapter for vendors that send none (Ollama, Gemini). */
  readonly id: string;
  /** The tool's exposed name (`server__tool`), as the model sent it. */
  readonly name: string;
  /** The arguments. `{}` when the model's arguments could not be read; see {@link rawInput}. */
  readonly input: Readonly<Record<string, unknown>>;
  /**
   * Present only when the model's arguments were not a JSON object (OpenAI sends them as a string):
   * the text as received. The Runner answers such a call with an error result instead of running it.
   */
  readonly rawInput?: string;
  /** Vendor data to echo back unchanged (e.g. a Gemini thought signature). */
  readonly providerMetadata?: ProviderMetadata;
  /**
   * Sent as the `tools/call` request's `_meta` (never to the model). Durable workers put an
   * idempotency key here, because after a crash a tool call may run twice (docs/workers.md).
   */
  readonly meta?: Readonly<Record<string, unknown>>;
  /**
   * Set when an MCP App's page made this call (src/apps), not the model: the app's id. Such a call
   * passes the same guard as the model's, may reach its own server's app-only tools, and its audit
   * line says it came from the app. Never in a conversation's history.
   */
  readonly fromApp?: string;
  /**
   * Asks the pool to keep the server's `structuredContent` on the result (MCP Apps' host does, for
   * the app's interface, and takes it off again before the result goes on). Never from a model.
   */
  readonly keepStructuredContent?: boolean;
}

/** The outcome of one tool call, fed back to the model. */
export interface ToolResultBlock {
  readonly type: 'tool-result';
  /** The {@link ToolCallBlock.id} this answers. */
  readonly toolCallId: string;
  /** The exposed name of the tool that was called (some vendors want it back with the result). */
  readonly toolName: string;
  /** What the tool returned, or an explanation of why it failed. */
  readonly content: ReadonlyArray<TextBlock | ImageBlock>;
  /** True when the call failed: unknown tool, bad arguments, server error, timeout, denied… */
  readonly isError: boolean;
  /**
   * Who wrote {@link content}. Absent means `server`. Only a server's content is screened for
   * injection and marked as data from outside ({@link untrusted}): the host's own words are not.
   */
  readonly origin?: ToolResultOrigin;
  /**
   * Set on the copy of the history sent to the model when tool output is marked as external data
   * (the default of createRunner; `untrustedContent.markAsData`). Each provider then carries the
   * content in the form its vendor handles best: Anthropic, OpenAI and Ollama inside an
   * `<untrusted-tool-output source="…">` envelope in the tool-result message, Gemini as fields of
   * the `functionResponse.response` object. A provider of your own should do the same. The
   * history itself never has it.
   */
  readonly untrusted?: UntrustedMarking;
  /**
   * The server's `structuredContent`, only when the call asked for it
   * ({@link ToolCallBlock.keepStructuredContent}): for an MCP App, never for the model or the history.
   */
  readonly structuredContent?: Readonly<Record<string, unknown>>;
}

/**
 * Where a tool result's content comes from.
 * - `server`: what a tool returned, or an error that quotes a server (its message, its stderr): data
 *   from outside, screened and marked. The default, so a {@link ToolHost} of your own is treated as
 *   a server unless it says otherwise.
 * - `host`: mcphost's own words about a call it did not run or could not finish (denied by policy
 *   or the user, past a budget, an unknown or malformed tool name, arguments that are not an
 *   object, a needed sign-in, a cancellation, a timeout). Sent to the model plain.
 */
export type ToolResultOrigin = 'host' | 'server';

/** Marks content as data from outside, never instructions (see {@link ToolResultBlock.untrusted}). */
export interface UntrustedMarking {
  /** Where it came from, for the model: the exposed tool name (`server__tool`). */
  readonly source: string;
}

/** Content a user may send. */
export type UserContent = TextBlock | ImageBlock;
/** Content the model may produce. */
export type AssistantContent = TextBlock | ToolCallBlock;

/** A user turn. */
export interface UserMessage {
  readonly role: 'user';
  readonly content: readonly UserContent[];
}

/** A model turn: text and/or tool calls, in the order the model produced them. */
export interface AssistantMessage {
  readonly role: 'assistant';
  readonly content: readonly AssistantContent[];
}

/**
 * The results of every tool call of one step, together, in the order of the calls. One message per
 * step is what the strictest vendor (Anthropic) requires: each `tool_use` answered in the next message.
 */
export interface ToolMessage {
  readonly role: 'tool';
  readonly content: readonly ToolResultBlock[];
}

/** One entry of the conversation history. */
export type Message = UserMessage | AssistantMessage | ToolMessage;

/** A JSON Schema object, as an MCP server describes a tool's input. */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** A JSON Schema a run's final answer must match (`--output-schema`, `RunOptions.outputSchema`). */
export type JsonSchemaObject = Readonly<Record<string, unknown>>;

/**
 * What form the model's answer must take, for one model call. A tagged union: switch on `type`.
 * Absent means `text`.
 */
export type ResponseFormat =
  /** Free text (the default). */
  | { readonly type: 'text' }
  /**
   * A JSON value valid against `schema`. The schema always has an object at its root (the Runner
   * wraps any other root, see src/core/structured-output.ts), which every vendor's native
   * structured output takes. Each provider applies it in its vendor's way (docs/structured-output.md):
   * OpenAI `response_format`, Gemini `responseJsonSchema`, Ollama `format`, node-llama-cpp a
   * grammar, Anthropic a final-answer tool. Vendors that cannot combine it with tools apply it on a
   * call without tools; the Runner validates the answer either way.
   */
  | {
      readonly type: 'json-schema';
      /** A name for the schema (`^[a-zA-Z0-9_-]{1,64}$`, what OpenAI takes). */
      readonly name: string;
      /** The schema, root an object. */
      readonly schema: JsonSchemaObject;
    };

/** A tool offered to the model. */
export interface ToolSpec {
  /** The exposed name (`server__tool`), matching `^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`. */
  readonly name: string;
  /** What the tool does, for the model. May be empty. */
  readonly description: string;
  /** JSON Schema of the arguments (an object schema). Providers clean it up for their vendor. */
  readonly inputSchema: JsonSchema;
}

/** Sampling settings. Each is optional; a provider reports the ones its vendor does not take. */
export interface GenerationSettings {
  /** Upper bound on tokens generated per model call. */
  readonly maxTokens?: number;
  /** Sampling temperature. */
  readonly temperature?: number;
  /** Nucleus sampling. */
  readonly topP?: number;
  /** Top-k sampling. */
  readonly topK?: number;
  /** Generation stops at any of these strings. */
  readonly stopSequences?: readonly string[];
}

/** One model call. */
export interface ChatRequest {
  /** The system prompt, if any. */
  readonly system?: string;
  /** The whole conversation so far; the last message is a user or tool message. */
  readonly messages: readonly Message[];
  /** The tools the model may call (may be empty). */
  readonly tools: readonly ToolSpec[];
  /** Sampling settings. */
  readonly settings: GenerationSettings;
  /** The form the answer must take; absent: free text. */
  readonly responseFormat?: ResponseFormat;
  /** Aborts the call, including a stream in progress. */
  readonly signal?: AbortSignal | undefined;
}

/** Why the model stopped. A closed set, mapped from each vendor's own values. */
export type FinishReason = 'stop' | 'tool-calls' | 'length' | 'content-filter' | 'other';

/** Tokens counted by the vendor for one call (or summed over several). */
export interface Usage {
  /** Tokens the model read (the prompt, history and tool definitions), cached ones included. */
  readonly inputTokens: number;
  /** Tokens the model wrote. */
  readonly outputTokens: number;
  /** Of {@link inputTokens}, those read from the vendor's prompt cache (when it says; telemetry). */
  readonly cacheReadInputTokens?: number;
  /** Of {@link inputTokens}, those written to the vendor's prompt cache (when it says; telemetry). */
  readonly cacheCreationInputTokens?: number;
}

/** What a provider yields while it streams one model call. */
export type ProviderEvent =
  /** A piece of the answer's text, as soon as it arrives. */
  | { readonly type: 'text-delta'; readonly text: string }
  /**
   * A piece of the model's reasoning, for a model that streams it apart from the answer (Ollama's
   * `thinking`, Anthropic's `thinking_delta`, Gemini's thought parts, `reasoning_content` of
   * OpenAI-compatible servers, a `<think>` segment of the embedded model). Shown as such (ACP's
   * `agent_thought_chunk`), never part of the answer's text, and never sent back to the model.
   */
  | { readonly type: 'reasoning-delta'; readonly text: string }
  /** A complete tool call (adapters assemble streamed argument fragments first). */
  | { readonly type: 'tool-call'; readonly call: ToolCallBlock }
  /**
   * A tool call while the model still writes its arguments (Anthropic's `input_json_delta`,
   * OpenAI's `tool_calls[].function.arguments` pieces): for a listener that shows the input as it
   * grows (an MCP App's `ui/notifications/tool-input-partial`). Optional for a provider, and never
   * part of the reply: the `tool-call` event still brings the whole call, under the same `id`.
   */
  | ToolCallDeltaEvent
  /** Always the last event of a successful call. */
  | { readonly type: 'finish'; readonly reason: FinishReason; readonly usage?: Usage };

/** A tool call's arguments as streamed so far (see {@link ProviderEvent}). */
export interface ToolCallDeltaEvent {
  readonly type: 'tool-call-delta';
  /** The call's id, as its `tool-call` event will carry it. */
  readonly id: string;
  /** The tool's name as the model wrote it (the exposed `server__tool` name). */
  readonly name: string;
  /**
   * The arguments' JSON text so far (all of it, not the latest piece: a listener that joins late
   * or skips events still has the whole). Usually not valid JSON until the call is complete.
   */
  readonly argumentsText: string;
}

/**
 * A language model behind one vendor's API. Implementations map {@link ChatRequest} to the vendor's
 * request, stream the answer as {@link ProviderEvent}s, and throw `ProviderError` on failure (with
 * `retryable` set; the Runner owns the retry policy, so vendor SDK retries are turned off).
 */
export interface Provider {
  /** Provider name, e.g. `ollama`. */
  readonly name: string;
  /** Model name as the vendor knows it, e.g. `qwen2.5:3b`. */
  readonly model: string;
  /** The URL requests go to, for a provider over HTTP (telemetry's `server.address` and `server.port`). */
  readonly baseUrl?: string;
  /** Streams one model call. Must honour `request.signal`. */
  chat(request: ChatRequest): AsyncIterable<ProviderEvent>;
  /**
   * The model's context window in tokens, for a provider that can ask (Ollama's model info).
   * Optional: without it, or when it resolves `undefined`, the Runner uses its table of known models.
   */
  contextWindow?(): Promise<number | undefined>;
  /**
   * Whether the model takes tools natively, for a provider that can ask (Ollama's `/api/show`
   * capabilities). `false` makes `toolCalling: auto` call tools by prompt; `undefined` or absent:
   * unknown, tried natively (a vendor's refusal then turns to the prompt).
   */
  supportsTools?(): Promise<boolean | undefined>;
  /**
   * Why the model has no native tool calling, in a few words, once {@link supportsTools} resolved
   * `false`, for a provider that knows more than "no" (the embedded model's chat wrapper). Said in
   * the line that turns prompted tool calling on, and in the error under `toolCalling: native`.
   */
  noNativeToolsReason?(): string | undefined;
  /**
   * Releases what the provider holds (the embedded model's memory). Optional: providers over HTTP
   * hold nothing. Called once when the runner closes, or when `/model` replaces the provider.
   */
  close?(): Promise<void>;
}

/**
 * Where tool calls go. The MCP server pool implements it; tests use fakes.
 *
 * `call` never throws for a tool's own failure: unknown tool, bad arguments, server crash, timeout
 * and the like come back as a result with `isError: true`, which the model reads.
 */
export interface ToolHost {
  /** The tools currently offered. Called before every model call, so a host may refresh its list. */
  tools(): Promise<readonly ToolSpec[]>;
  /** Runs one call. `signal` cancels it (on the server too, where the protocol allows). */
  call(call: ToolCallBlock, signal?: AbortSignal): Promise<ToolResultBlock>;
}
