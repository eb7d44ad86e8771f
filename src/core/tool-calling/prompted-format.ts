/**
 * Prompted tool calling: what a model without native tool calling is told and held to. The tools
 * go into the system prompt as one compact line each; every step's answer is constrained by the
 * vendor's structured output (Ollama `format`, OpenAI `response_format`, node-llama-cpp a grammar)
 * to one JSON object `{"calls": [...], "answer": "..."}`; the conversation's tool calls and results
 * are carried as assistant and user turns, which every chat template shows (Gemma 3's has no tool
 * role: a `tool` message would be dropped).
 *
 * Sizes are bounded whatever the server offers: descriptions and parameter lists are cut, and the
 * schema names the tools in one `enum` with arguments as a plain object unless the per-tool schemas
 * are few, simple and small (a llama.cpp grammar compiles slowly, or not at all, past that); the
 * Runner checks arguments against the tool's schema after the fact either way.
 */
import { envelopedContent } from '../untrusted-envelope.js';
import type {
  AssistantMessage,
  ImageBlock,
  JsonSchema,
  JsonSchemaObject,
  Message,
  TextBlock,
  ToolMessage,
  ToolSpec,
  UserContent,
  UserMessage,
} from '../types.js';

/** The name of the step's response format (OpenAI's `json_schema.name`). */
export const PROMPTED_FORMAT_NAME = 'tool_step';
/** A tool's description in the prompt, at most (characters). */
const MAX_DESCRIPTION = 200;
/**
 * Calls in one step's answer, at most: parallel calls past a handful are rare, and the bound keeps
 * a constrained answer finite (a weak model under a grammar can add calls until its token limit).
 */
export const MAX_CALLS_PER_STEP = 8;
/** Parameters listed per tool, at most. */
const MAX_PARAMETERS = 12;
/** Per-tool argument schemas are put in the format only up to this many tools… */
const MAX_TOOLS_WITH_SCHEMAS = 16;
/** …and this many characters of schema in all. */
const MAX_SCHEMA_CHARACTERS = 8_000;
/** Keywords a per-tool schema may use to go into the format (what llama.cpp's converter handles well). */
const SIMPLE_KEYWORDS: ReadonlySet<string> = new Set([
  'type',
  'properties',
  'required',
  'items',
  'enum',
  'description',
  'title',
  'default',
  'additionalProperties',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
]);

/** The text that starts the user turn carrying a step's tool results. */
export const TOOL_RESULTS_HEADING = 'Tool results';

/** The system prompt's part about the tools. */
export function toolInstruction(tools: readonly ToolSpec[]): string {
  return [
    'You can call tools. Every reply of yours is one JSON object {"calls": [...], "answer": "..."}.',
    '- To call tools: list the calls, each {"name": "<tool name>", "arguments": {...}}, and leave "answer" empty. ' +
      `Their results come back in the next message, which starts with "${TOOL_RESULTS_HEADING}".`,
    '- To answer the user: "calls": [] and your whole answer in "answer".',
    'Tools (name(parameters, ? = optional): what it does):',
    ...tools.map(toolLine),
  ].join('\n');
}

/** `name(path: string, head?: integer): description`, cut to bounds. */
export function toolLine(tool: ToolSpec): string {
  const properties = objectOf(tool.inputSchema.properties);
  const required = new Set(Array.isArray(tool.inputSchema.required) ? tool.inputSchema.required : []);
  const names = Object.keys(properties);
  const shown = names.slice(0, MAX_PARAMETERS).map((name) => {
    const type = typeName(properties[name]);
    return `${name}${required.has(name) ? '' : '?'}: ${type}`;
  });
  if (names.length > MAX_PARAMETERS) shown.push(`… ${names.length - MAX_PARAMETERS} more`);
  const description = oneLine(tool.description);
  const cut =
    description.length > MAX_DESCRIPTION ? `${description.slice(0, MAX_DESCRIPTION - 1)}…` : description;
  return `- ${tool.name}(${shown.join(', ')})${cut === '' ? '' : `: ${cut}`}`;
}

/** The JSON Schema every step's answer is held to. */
export function stepSchema(tools: readonly ToolSpec[]): JsonSchemaObject {
  return {
    type: 'object',
    properties: {
      calls: { type: 'array', items: callSchema(tools), maxItems: MAX_CALLS_PER_STEP },
      answer: { type: 'string' },
    },
    required: ['calls', 'answer'],
    additionalProperties: false,
  };
}

/** One call: per tool where the schemas are few, simple and small; else a name enum and an object. */
function callSchema(tools: readonly ToolSpec[]): JsonSchema {
  const perTool = tools.length <= MAX_TOOLS_WITH_SCHEMAS ? tools.map(simpleArguments) : [];
  const size = perTool.reduce(
    (sum, schema) => sum + (schema === undefined ? Infinity : JSON.stringify(schema).length),
    0,
  );
  if (perTool.length > 0 && size <= MAX_SCHEMA_CHARACTERS) {
    const variants = tools.map((tool, index) => callVariant([tool.name], perTool[index] as JsonSchema));
    return variants.length === 1 ? (variants[0] as JsonSchema) : { anyOf: variants };
  }
  return callVariant(
    tools.map((tool) => tool.name),
    { type: 'object' },
  );
}

function callVariant(names: readonly string[], argumentsSchema: JsonSchema): JsonSchema {
  return {
    type: 'object',
    properties: { name: { type: 'string', enum: [...names] }, arguments: argumentsSchema },
    required: ['name', 'arguments'],
    additionalProperties: false,
  };
}

/** The tool's input schema when it uses only simple keywords (and an object root), else undefined. */
function simpleArguments(tool: ToolSpec): JsonSchema | undefined {
  const { $schema: _dialect, ...schema } = tool.inputSchema;
  if (schema.type !== 'object') return undefined;
  return isSimple(schema, 0) ? schema : undefined;
}

function isSimple(node: unknown, depth: number): boolean {
  if (typeof node === 'boolean') return true;
  if (typeof node !== 'object' || node === null || Array.isArray(node) || depth > 6) return false;
  const schema = node as Record<string, unknown>;
  if (!Object.keys(schema).every((key) => SIMPLE_KEYWORDS.has(key))) return false;
  const children = [
    ...Object.values(objectOf(schema.properties)),
    ...('items' in schema ? [schema.items] : []),
    ...(typeof schema.additionalProperties === 'object' ? [schema.additionalProperties] : []),
  ];
  return children.every((child) => isSimple(child, depth + 1));
}

/**
 * The conversation as a model without tool roles reads it: a model turn that called tools becomes
 * the JSON it wrote, a step's results one user turn (its images kept), and user turns next to each
 * other are joined (a results turn followed by a follow-up, say), since several templates refuse
 * two in a row.
 */
export function promptedMessages(messages: readonly Message[]): Message[] {
  const out: Message[] = [];
  for (const message of messages) {
    const mapped = promptedMessage(message);
    const last = out.at(-1);
    if (mapped.role === 'user' && last?.role === 'user') {
      out[out.length - 1] = { role: 'user', content: [...last.content, ...mapped.content] };
    } else {
      out.push(mapped);
    }
  }
  return out;
}

function promptedMessage(message: Message): UserMessage | AssistantMessage {
  switch (message.role) {
    case 'user':
      return message;
    case 'assistant':
      return assistantTurn(message);
    case 'tool':
      return resultsTurn(message);
    default: {
      const unexpected: never = message;
      throw new TypeError(`unknown message role in ${JSON.stringify(unexpected)}`);
    }
  }
}

function assistantTurn(message: AssistantMessage): AssistantMessage {
  const calls = message.content.flatMap((block) =>
    block.type === 'tool-call' ? [{ name: block.name, arguments: block.input }] : [],
  );
  if (calls.length === 0) return message;
  const answer = message.content
    .map((block) => (block.type === 'text' ? block.text : ''))
    .join('')
    .trim();
  return { role: 'assistant', content: [{ type: 'text', text: JSON.stringify({ calls, answer }) }] };
}

function resultsTurn(message: ToolMessage): UserMessage {
  const content: UserContent[] = [{ type: 'text', text: `${TOOL_RESULTS_HEADING}:` }];
  message.content.forEach((result, index) => {
    const blocks = envelopedContent(result);
    const text = blocks
      .filter((block): block is TextBlock => block.type === 'text')
      .map((block) => block.text)
      .join('\n');
    const status = result.isError ? ' (error)' : '';
    content.push({ type: 'text', text: `[${index + 1}] ${result.toolName}${status}:\n${text}` });
    content.push(...blocks.filter((block): block is ImageBlock => block.type === 'image'));
  });
  return { role: 'user', content };
}

function typeName(schema: unknown): string {
  const node = objectOf(schema);
  if (Array.isArray(node.enum))
    return node.enum
      .slice(0, 6)
      .map((value) => JSON.stringify(value))
      .join('|');
  if (typeof node.type === 'string') return node.type === 'array' ? `${typeName(node.items)}[]` : node.type;
  if (Array.isArray(node.type)) return node.type.join('|');
  return 'any';
}

function objectOf(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
