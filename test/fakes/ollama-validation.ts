/**
 * The rules a real Ollama server applies to an `/api/chat` body, as far as mcphost can break them.
 * The fake answers 400/404 with Ollama's `{"error": "…"}` bodies where the real server would, so a
 * mapper bug fails a test instead of passing a lenient fake.
 */
import * as z from 'zod';

/** One message as the fake received it (after validation). */
export interface FakeChatMessage {
  readonly role: 'system' | 'user' | 'assistant' | 'tool';
  readonly content: string;
  readonly images?: readonly string[];
  readonly tool_calls?: ReadonlyArray<{
    readonly function: { readonly name: string; readonly arguments: Readonly<Record<string, unknown>> };
  }>;
  readonly tool_name?: string | undefined;
}

/** A tool as the fake received it. */
export interface FakeChatTool {
  readonly type: 'function';
  readonly function: {
    readonly name: string;
    readonly description?: string;
    readonly parameters?: Readonly<Record<string, unknown>>;
  };
}

/** A valid `/api/chat` body, as handed to scripted reply functions. */
export interface FakeChatRequest {
  readonly model: string;
  readonly messages: readonly FakeChatMessage[];
  readonly tools?: readonly FakeChatTool[];
  readonly options?: Readonly<Record<string, unknown>>;
  /** Structured output: `"json"` or a JSON Schema object. */
  readonly format?: string | Readonly<Record<string, unknown>>;
  /** Ollama streams unless told `false`. */
  readonly stream: boolean;
}

/** Either the valid body or the status and `error` text Ollama would answer with. */
export type ChatValidation =
  | { readonly ok: true; readonly request: FakeChatRequest }
  | { readonly ok: false; readonly status: number; readonly error: string };

/** Ollama's model names get `:latest` when they have no tag. */
export function normalizeModelName(name: string): string {
  const lastPart = name.slice(name.lastIndexOf('/') + 1);
  return lastPart.includes(':') ? name : `${name}:latest`;
}

const objectSchema = z.record(z.string(), z.unknown());

// Ollama decodes `[]byte` fields with Go's strict base64 (padding required, no `data:` prefix).
const base64Pattern = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const messageSchema = z
  .object({
    role: z.string(),
    content: z.string().optional(),
    images: z.array(z.string()).nullish(),
    tool_calls: z
      .array(z.object({ function: z.object({ name: z.string(), arguments: objectSchema.optional() }) }))
      .nullish(),
    tool_name: z.string().optional(),
  })
  // Unknown keys are kept (Go ignores them) so that reply functions and tests see what was sent.
  .loose();

const propertySchema = z.object({ type: z.union([z.string(), z.array(z.string())]).optional() }).loose();

const toolSchema = z.object({
  type: z.string(),
  function: z
    .object({
      name: z.string().optional(),
      description: z.string().optional(),
      parameters: z
        .object({
          type: z.string().optional(),
          required: z.array(z.string()).optional(),
          properties: z.record(z.string(), propertySchema).optional(),
        })
        .loose()
        .optional(),
    })
    .loose(),
});

const bodySchema = z.object({
  model: z.string().optional(),
  messages: z.array(messageSchema).nullish(),
  tools: z.array(toolSchema).nullish(),
  options: objectSchema.nullish(),
  // Go keeps `format` as raw JSON and checks it when the request runs (formatProblem).
  format: z.unknown().optional(),
  stream: z.boolean().nullish(),
});

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);
const NUMBER_OPTIONS = new Set(['temperature', 'top_p', 'top_k', 'num_predict', 'num_ctx', 'seed', 'min_p']);

/**
 * Checks a parsed body the way Ollama does. `models` are the installed models (normalized with
 * {@link normalizeModelName}).
 */
export function validateChatBody(body: unknown, models: ReadonlySet<string>): ChatValidation {
  const parsed = bodySchema.safeParse(body);
  if (!parsed.success) return fail(400, `json: cannot unmarshal request: ${z.prettifyError(parsed.error)}`);
  const { model, messages, tools, options, stream, format } = parsed.data;
  if (model === undefined || model === '') return fail(400, 'model is required');
  if (!models.has(normalizeModelName(model))) {
    return fail(404, `model "${model}" not found, try pulling it first`);
  }
  const messageProblem = checkMessages(messages ?? []);
  if (messageProblem !== undefined) return fail(400, messageProblem);
  for (const tool of tools ?? []) {
    if (tool.type !== 'function')
      return fail(400, `invalid tool type "${tool.type}": only "function" is supported`);
    if (tool.function.name === undefined || tool.function.name === '')
      return fail(400, 'tool function name is required');
  }
  for (const [name, value] of Object.entries(options ?? {})) {
    if (NUMBER_OPTIONS.has(name) && typeof value !== 'number')
      return fail(400, `option "${name}" must be a number`);
    if (name === 'stop' && !(Array.isArray(value) && value.every((item) => typeof item === 'string'))) {
      return fail(400, 'option "stop" must be of an array of strings');
    }
  }
  const badFormat = formatProblem(format);
  if (badFormat !== undefined) return fail(500, badFormat);
  const request: FakeChatRequest = {
    model,
    messages: (messages ?? []).map(({ images, tool_calls: calls, ...message }) => ({
      ...message,
      role: message.role as FakeChatMessage['role'],
      content: message.content ?? '',
      ...(images === undefined || images === null ? {} : { images }),
      ...(calls === undefined || calls === null
        ? {}
        : {
            tool_calls: calls.map((call) => ({
              function: { name: call.function.name, arguments: call.function.arguments ?? {} },
            })),
          }),
    })),
    ...(tools === undefined || tools === null ? {} : { tools: tools as FakeChatTool[] }),
    ...(options === undefined || options === null ? {} : { options }),
    ...(typeof format === 'string' && format !== '' ? { format } : {}),
    ...(isSchemaObject(format) ? { format } : {}),
    stream: stream ?? true,
  };
  return { ok: true, request };
}

function checkMessages(messages: ReadonlyArray<z.infer<typeof messageSchema>>): string | undefined {
  // Tool results must answer an assistant message that called tools (other results may sit between).
  let answering = false;
  for (const [index, message] of messages.entries()) {
    if (!ROLES.has(message.role)) return `messages[${index}]: invalid role "${message.role}"`;
    for (const image of message.images ?? []) {
      if (!base64Pattern.test(image)) return `illegal base64 data in messages[${index}].images`;
    }
    for (const call of message.tool_calls ?? []) {
      if (message.role !== 'assistant') return `messages[${index}]: only assistant messages carry tool_calls`;
      if (call.function.name === '') return `messages[${index}]: tool call without a function name`;
    }
    if (message.role === 'tool' && !answering) {
      return `messages[${index}]: a tool message must follow an assistant message with tool_calls`;
    }
    if (message.role === 'assistant') answering = (message.tool_calls ?? []).length > 0;
    else if (message.role !== 'tool') answering = false;
  }
  return undefined;
}

/**
 * Ollama takes `format` as `"json"`, `""`/null (no constraint) or a JSON Schema object, and refuses
 * anything else before generating (a 500 from the runner in the versions this follows; newer ones
 * answer 400 with the same words). A schema object it cannot turn into a grammar is refused too.
 */
function formatProblem(format: unknown): string | undefined {
  if (format === undefined || format === null || format === '' || format === 'json') return undefined;
  if (isSchemaObject(format)) {
    const type = format.type;
    const known = ['object', 'array', 'string', 'number', 'integer', 'boolean', 'null'];
    const types = Array.isArray(type) ? type : type === undefined ? [] : [type];
    if (types.every((item) => typeof item === 'string' && known.includes(item))) return undefined;
    return 'invalid JSON schema in format';
  }
  return `invalid format: ${JSON.stringify(JSON.stringify(format))}; expected "json" or a valid JSON Schema object`;
}

function isSchemaObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fail(status: number, error: string): ChatValidation {
  return { ok: false, status, error };
}
