/**
 * The zod schemas of the safety settings: `approval`, `permissions`, `hooks`, `auditLog`,
 * `maxToolResultBytes`. They are plugged into `settingsShape` (schema.ts) like every other setting.
 *
 * `hooks` is the Go mcphost's format (which is Claude Code's): events, matcher groups, commands
 * with a timeout in seconds. An event we do not run is an error, not silently ignored: a safety
 * hook that never runs is worse than a config that does not load.
 */
import * as z from 'zod';
import { HOOK_EVENTS, MAX_HOOK_TIMEOUT_SECONDS } from '../src/safety/hooks.js';

const decisionSchema = z.enum(['allow', 'ask', 'deny']);
const globSchema = z.string().min(1);

/** `{ "tool": "filesystem__write_*", "decision": "ask" }`, optionally with `server` and `reason`. */
const approvalRuleSchema = z
  .strictObject({
    tool: globSchema.optional(),
    server: globSchema.optional(),
    // The tool's annotations (hints its server gives): `{ "readOnly": true, "decision": "allow" }`.
    readOnly: z.boolean().optional(),
    destructive: z.boolean().optional(),
    openWorld: z.boolean().optional(),
    decision: decisionSchema,
    reason: z.string().optional(),
  })
  .refine(
    (rule) =>
      rule.tool !== undefined ||
      rule.server !== undefined ||
      rule.readOnly !== undefined ||
      rule.destructive !== undefined ||
      rule.openWorld !== undefined,
    {
      error:
        'a rule needs "tool" or "server" (a glob such as "filesystem__write_*"), or a hint ("readOnly", "destructive", "openWorld")',
    },
  );

/** `{ "server": "everything", "decision": "allow" }`: may this server have the model called for it. */
const samplingRuleSchema = z.strictObject({ server: globSchema, decision: decisionSchema });

/** mcphost's own policy form: ordered rules (first match wins), a default, and sampling rules. */
export const approvalSchema = z.strictObject({
  default: decisionSchema.optional(),
  rules: z.array(approvalRuleSchema).optional(),
  sampling: z.array(samplingRuleSchema).optional(),
});

/**
 * Claude Code's form: lists of tool globs. Read as rules in the order deny, ask, allow, which is
 * Claude Code's precedence. Its other keys (`defaultMode`, `additionalDirectories` …) are ignored.
 */
export const permissionsSchema = z.looseObject({
  allow: z.array(globSchema).optional(),
  ask: z.array(globSchema).optional(),
  deny: z.array(globSchema).optional(),
});

/** A regular expression as JavaScript reads it (the Go mcphost's RE2 patterns are a subset in practice). */
const matcherSchema = z.string().refine(
  (pattern) => {
    try {
      new RegExp(pattern);
      return true;
    } catch {
      return false;
    }
  },
  { error: 'not a valid regular expression' },
);

const hookCommandSchema = z.looseObject({
  type: z.literal('command').optional(),
  command: z.string().min(1),
  /** Seconds, as in the Go mcphost and Claude Code. */
  timeout: z.number().positive().max(MAX_HOOK_TIMEOUT_SECONDS).optional(),
});

const hookGroupSchema = z.looseObject({
  // YAML `matcher:` with nothing after it is null: every tool, like an empty matcher.
  matcher: matcherSchema.nullable().optional(),
  hooks: z.array(hookCommandSchema).min(1),
});

const eventList = z.array(hookGroupSchema).optional();

/** `{ "PreToolUse": [ { "matcher": "…", "hooks": [ { "type": "command", "command": "…" } ] } ] }`. */
export const hooksSchema = z.strictObject(
  {
    PreToolUse: eventList,
    PostToolUse: eventList,
    UserPromptSubmit: eventList,
    Stop: eventList,
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown hook event ${issue.keys.map((key) => `"${key}"`).join(', ')}; mcphost runs ${HOOK_EVENTS.join(', ')}`
        : undefined,
  },
);

export type ApprovalSettings = z.infer<typeof approvalSchema>;
export type PermissionSettings = z.infer<typeof permissionsSchema>;
export type HookSettings = z.infer<typeof hooksSchema>;

/** `untrustedContent`: how tool output is screened and marked (see src/safety/untrusted-content.ts). */
export const untrustedContentSchema = z.strictObject({
  policy: z.enum(['warn', 'ask', 'redact', 'block']).exactOptional(),
  markAsData: z.boolean().exactOptional(),
  systemPromptClause: z.boolean().exactOptional(),
});

const countSchema = z.number().int().min(0);
const budgetLimitsSchema = z.strictObject({
  maxCalls: countSchema.exactOptional(),
  callsPerMinute: countSchema.exactOptional(),
  maxToolTimeMs: countSchema.exactOptional(),
  maxResultBytes: countSchema.exactOptional(),
});

/** `budgets`: limits per session, per server and per tool (see src/safety/budgets.ts). */
export const budgetsSchema = z.strictObject({
  maxTokens: z.number().int().positive().exactOptional(),
  sampling: z
    .strictObject({ maxRequestsPerTurn: countSchema.exactOptional(), maxTokens: countSchema.exactOptional() })
    .exactOptional(),
  session: budgetLimitsSchema.exactOptional(),
  eachServer: budgetLimitsSchema.exactOptional(),
  eachTool: budgetLimitsSchema.exactOptional(),
  servers: z.record(z.string(), budgetLimitsSchema).exactOptional(),
  tools: z.record(z.string(), budgetLimitsSchema).exactOptional(),
});
