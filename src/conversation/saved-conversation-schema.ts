/**
 * The saved conversation's schema, in zod (both formats: the version-1 JSON file and the version-2
 * journal's entries), and readable messages for what is wrong with a file. The messages are checked
 * against the {@link Message} union of `types.ts`: a saved conversation holds exactly what the
 * Runner keeps, so a loaded one can be handed to a Runner as its history.
 */
import * as z from 'zod';
import type { AgentRun } from '../agents/child-run.js';
import type { Message } from '../core/types.js';

/**
 * Built on first use, not when the module loads: every run saves its conversation, but only a run
 * that reads one back (`--continue`, `--resume`, `/resume`) needs these (~5 ms of a cold start).
 */
function buildSchemas() {
  const textBlock = z.object({ type: z.literal('text'), text: z.string() });
  const imageBlock = z.object({ type: z.literal('image'), mimeType: z.string().min(1), data: z.string() });
  const toolCallBlock = z.object({
    type: z.literal('tool-call'),
    id: z.string().min(1),
    name: z.string().min(1),
    input: z.record(z.string(), z.unknown()),
    rawInput: z.string().exactOptional(),
    providerMetadata: z.record(z.string(), z.record(z.string(), z.unknown())).exactOptional(),
  });
  const toolResultBlock = z.object({
    type: z.literal('tool-result'),
    toolCallId: z.string().min(1),
    toolName: z.string(),
    content: z.array(z.discriminatedUnion('type', [textBlock, imageBlock])),
    isError: z.boolean(),
    origin: z.enum(['host', 'server']).exactOptional(),
  });

  const userMessage = z.object({
    role: z.literal('user'),
    content: z.array(z.discriminatedUnion('type', [textBlock, imageBlock])),
  });
  const assistantMessage = z.object({
    role: z.literal('assistant'),
    content: z.array(z.discriminatedUnion('type', [textBlock, toolCallBlock])),
  });
  const toolMessage = z.object({ role: z.literal('tool'), content: z.array(toolResultBlock) });

  /** One message of the history. The annotation makes the compiler check it against {@link Message}. */
  const messageSchema: z.ZodType<Message> = z.discriminatedUnion('role', [
    userMessage,
    assistantMessage,
    toolMessage,
  ]);

  /** An ISO 8601 timestamp, as `Date.prototype.toISOString` writes it. */
  const timestamp = z.iso.datetime({ offset: true });

  const count = z.number().int().min(0);
  /** A subagent's run as it ended, its transcript included. Checked against {@link AgentRun}. */
  const agentRunSchema: z.ZodType<AgentRun> = z.object({
    agent: z.string().min(1),
    model: z.string(),
    toolCallId: z.string().min(1),
    depth: z.number().int().min(1),
    task: z.string(),
    outcome: z.enum(['completed', 'failed', 'cancelled']),
    error: z.string().exactOptional(),
    usage: z.object({ inputTokens: count, outputTokens: count }),
    steps: count,
    messages: z.array(messageSchema),
    startedAt: z.number(),
    endedAt: z.number(),
  });

  /**
   * The body of a version-1 file (one JSON document, rewritten whole at every save) (the version itself is checked before this schema, so a
   * newer file gets "upgrade mcphost" rather than a list of fields it does not know).
   * Keys this version does not know are dropped, not refused.
   */
  const sessionBodySchema = z.object({
    model: z.string().min(1),
    systemPrompt: z.string().exactOptional(),
    createdAt: timestamp,
    updatedAt: timestamp,
    messages: z.array(messageSchema),
  });

  /** The first line of a journal (format version 2 or later): what the conversation is. */
  const journalHeaderSchema = z.object({
    type: z.literal('header'),
    version: z.number().int().min(2),
    model: z.string().min(1),
    systemPrompt: z.string().exactOptional(),
    createdAt: timestamp,
  });

  /**
   * Every later line of a journal: one change of the history, in the order it happened.
   * - `message`: a message joined the end of the history;
   * - `truncate`: the history was cut back to its first `length` messages (a turn the model never
   *   answered was taken back, or the conversation was reset);
   * - `compaction`: the older part was summarized; `messages` is the whole history after it (the
   *   summary, then the turns kept verbatim), `summary` the summary's text;
   * - `model`: the conversation went on with another model;
   * - `task`: a tool call of the last step runs as a task on its server (the tasks extension), so
   *   that a later run can follow it if this one ends before it does. Changes no message.
   * - `agent-run`: a subagent's run ended (version 4): which agent, its task, outcome, usage and its
   *   whole transcript, so that a resumed conversation still shows what each child did (`/agents`).
   *   Changes no message: the parent's history holds only the agent call and its result.
   */
  const journalEntrySchema = z.discriminatedUnion('type', [
    z.object({ type: z.literal('message'), at: timestamp, message: messageSchema }),
    z.object({ type: z.literal('truncate'), at: timestamp, length: z.number().int().min(0) }),
    z.object({
      type: z.literal('compaction'),
      at: timestamp,
      summary: z.string(),
      replacedMessages: z.number().int().min(0),
      messages: z.array(messageSchema),
    }),
    z.object({ type: z.literal('model'), at: timestamp, model: z.string().min(1) }),
    z.object({
      type: z.literal('task'),
      at: timestamp,
      toolCallId: z.string().min(1),
      server: z.string().min(1),
      tool: z.string().min(1),
      taskId: z.string().min(1),
    }),
    z.object({ type: z.literal('agent-run'), at: timestamp, run: agentRunSchema }),
  ]);
  return { messageSchema, sessionBodySchema, journalHeaderSchema, journalEntrySchema };
}

let schemas: ReturnType<typeof buildSchemas> | undefined;

/** The saved conversation's schemas (see {@link buildSchemas}). */
export function conversationSchemas(): ReturnType<typeof buildSchemas> {
  schemas ??= buildSchemas();
  return schemas;
}

/** One line after the header of a journal. */
export type JournalEntry = z.infer<ReturnType<typeof buildSchemas>['journalEntrySchema']>;

/** `messages[3].content[0].type`; the empty path is "top level". */
export function renderPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else if (typeof segment === 'string' && /^[A-Za-z_$][\w$]*$/.test(segment))
      text += text === '' ? segment : `.${segment}`;
    else text += `[${JSON.stringify(String(segment))}]`;
  }
  return text === '' ? 'top level' : text;
}

/** The kind of a JSON value, in JSON's words. */
export function describeKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** The first problem zod found, as `path: what is wrong`. */
export function describeFirstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'invalid';
  const where = renderPath(issue.path);
  if (issue.code === 'invalid_type') {
    return issue.input === undefined
      ? `${where}: missing (expected ${issue.expected})`
      : `${where}: expected ${issue.expected}, got ${describeKind(issue.input)}`;
  }
  if (issue.code === 'invalid_union') {
    // A discriminated union whose tag matched no option: name the accepted tags.
    const options = 'options' in issue && Array.isArray(issue.options) ? issue.options : [];
    if (options.length > 0) {
      return `${where}: expected one of ${options.map((option) => JSON.stringify(option)).join(', ')}`;
    }
  }
  if (issue.code === 'invalid_value') {
    return `${where}: expected ${issue.values.map((value) => JSON.stringify(value)).join(' or ')}`;
  }
  if (issue.code === 'too_small') return `${where}: must not be empty`;
  if (issue.code === 'invalid_format') {
    return `${where}: expected an ISO 8601 date-time (like 2025-01-31T12:00:00.000Z)`;
  }
  return `${where}: ${issue.message}`;
}
