/**
 * The config file's schema, in zod. Two halves:
 *
 * - the top-level settings: lenient about keys we do not know (Claude Desktop's file carries its
 *   own), and accepting the Go mcphost's kebab-case spellings (`max-steps`) beside camelCase;
 * - one schema per server form, strict about the types of every key it knows. Which form an entry
 *   is gets decided first, from `type`, `command` and `url` (see `server-form.ts`), so that an error
 *   speaks of the form the author meant instead of listing why every form failed.
 *
 * To add a setting (approval policy, hooks…), add a line to {@link settingsShape}; its kebab-case
 * alias, validation and error messages come with it.
 */
import * as z from 'zod';
import {
  approvalSchema,
  budgetsSchema,
  hooksSchema,
  permissionsSchema,
  untrustedContentSchema,
} from './safety-schema.js';
import { sandboxOptionSchema } from '../src/safety/sandbox-settings.js';
import { TOOL_CHANGE_POLICIES, type ToolChangePolicy } from '../src/safety/tool-pins.js';
import { agentsSchema } from '../src/agents/definition.js';

/** What a changed tool definition is met with: `warn`, `ask` or `block` (docs/safety.md). */
const toolChangesSchema = z.enum(TOOL_CHANGE_POLICIES as [ToolChangePolicy, ...ToolChangePolicy[]]);

/** A count or a duration in milliseconds: a whole number above zero. */
export const positiveInteger = z.number().int().positive();

/** Top-level settings, by their camelCase name. Every one is optional. */
export const settingsShape = {
  /** Default model, `provider:model`. */
  model: z.string().min(1),
  /** System prompt text, or the path of a file holding it (as `--system-prompt`). */
  systemPrompt: z.string(),
  /** Most model calls in one run. */
  maxSteps: positiveInteger,
  /** Base URL of the provider's API. */
  providerUrl: z.string().min(1),
  /** API key for the provider (the environment variables are the better place). */
  providerApiKey: z.string().min(1),
  /** Most tokens in one answer. */
  maxTokens: positiveInteger,
  /** Sampling temperature. */
  temperature: z.number().min(0),
  /** Nucleus sampling. */
  topP: z.number().min(0).max(1),
  /** Top-K sampling. */
  topK: positiveInteger,
  /** Strings that end an answer. */
  stopSequences: z.array(z.string().min(1)),
  /** Default startup timeout of every server, in ms. */
  initTimeout: positiveInteger,
  /** Default timeout of one tool call, in ms. */
  toolTimeout: positiveInteger,
  /** Which tool calls run, need the user's approval, or never run (ordered rules and a default). */
  approval: approvalSchema,
  /** The same in Claude Code's form: `allow` / `ask` / `deny` lists of tool globs. */
  permissions: permissionsSchema,
  /** Commands run at PreToolUse, PostToolUse, UserPromptSubmit and Stop (the Go mcphost's format). */
  hooks: hooksSchema,
  /** A file that gets one JSON line per tool call (as `--audit-log`). */
  auditLog: z.string().min(1),
  /** The most text of one tool result the model gets, in UTF-8 bytes; the rest is cut. */
  maxToolResultBytes: positiveInteger,
  /** The model's context window in tokens, instead of what mcphost knows or asks (docs/long-conversations.md). */
  contextWindow: positiveInteger,
  /** Compact the conversation when a request would fill this share of the window, in (0, 1]. */
  compactAt: z.number().gt(0).lte(1),
  /** False: never compact on its own (`/compact` still works). */
  autoCompact: z.boolean(),
  /** When to send the tool-search tool instead of every tool definition (docs/long-conversations.md). */
  toolSearch: z.enum(['auto', 'always', 'never']),
  /** The share of the window tool definitions may take before `toolSearch: auto` turns to the search. */
  toolSearchAt: z.number().gt(0).lte(1),
  /** How the model calls tools: auto, native, prompt or none (docs/local-models.md). */
  toolCalling: z.enum(['auto', 'native', 'prompt', 'none']),
  /** Rotate the audit log before it grows past this many bytes. */
  auditLogMaxBytes: positiveInteger,
  /** How tool output is screened for injection and marked as data. */
  untrustedContent: untrustedContentSchema,
  /** Limits on tool calls per session, server and tool. */
  budgets: budgetsSchema,
  /** How servers' elicitations are answered when nobody can be asked (`-p`, library). */
  elicitation: z.strictObject({ policy: z.enum(['decline', 'accept-defaults']) }),
  /** The folders servers may work in (MCP roots), instead of the one mcphost runs in. */
  roots: z.array(z.string().min(1)),
  /** False: save no conversation in the state folder (as `--no-session-persistence`). */
  sessionPersistence: z.boolean(),
  /** What a tool definition that changed since it was pinned is met with (per server too). */
  toolChanges: toolChangesSchema,
  /** Whether tool calls may run as tasks (the tasks extension), for every server that sets none. */
  tasks: z.enum(['auto', 'never', 'always']),
  /** How long a tool call that runs as a task may take in all, in ms (default one hour). */
  taskTimeout: positiveInteger,
  /** Durable workers (docs/workers.md): the jobs database, below `--db` and `MCPHOST_DATABASE_URL`. */
  jobs: z.strictObject({
    database: z
      .string()
      .refine((url) => /^postgres(ql)?:\/\/\S+$/.test(url), {
        error: 'must be a URL starting with postgres:// or postgresql://',
      })
      .exactOptional(),
  }),
  /** Named agents the model may hand tasks to (docs/agents.md). */
  agents: agentsSchema,
  /** Agent calls of one step that run at once (default 4). */
  maxParallelAgents: positiveInteger,
  /**
   * OpenTelemetry export (docs/telemetry.md), below the standard `OTEL_*` variables, which win:
   * where to send (an OTLP/HTTP endpoint), how, and whether prompts and answers go too.
   */
  telemetry: z.strictObject({
    endpoint: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).exactOptional(),
    protocol: z.enum(['http/protobuf', 'http/json']).exactOptional(),
    headers: z.record(z.string(), z.string()).exactOptional(),
    serviceName: z.string().min(1).exactOptional(),
    captureContent: z.boolean().exactOptional(),
  }),
} as const;

/** The name of a top-level setting. */
export type SettingName = keyof typeof settingsShape;

/** The top-level settings (not `mcpServers`, which is read server by server). */
export const settingsSchema = z.object(settingsShape).partial();

/** Validated top-level settings, as written in the file (before any renaming). */
export type FileSettings = z.infer<typeof settingsSchema>;

/** `maxSteps` → `max-steps`: the Go mcphost's spelling of the same key. */
export function kebabCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}

/** Every kebab-case alias, mapped to the setting it stands for. */
export const settingAliases: ReadonlyMap<string, SettingName> = new Map(
  (Object.keys(settingsShape) as SettingName[])
    .filter((name) => kebabCase(name) !== name)
    .map((name) => [kebabCase(name), name]),
);

const toolNames = z.array(z.string().min(1));
const stringMap = z.record(z.string(), z.string());

/** Keys every server form takes. */
const commonServerShape = {
  disabled: z.boolean().optional(),
  allowedTools: toolNames.optional(),
  excludedTools: toolNames.optional(),
  initTimeout: positiveInteger.optional(),
  toolTimeout: positiveInteger.optional(),
  /**
   * The server's roots: a list of folders (`~/` and paths relative to the config file's folder),
   * `false` for none (it keeps its own folders), `true` for the shared ones even when its arguments
   * name folders (docs/mcp-features.md#roots).
   */
  roots: z.union([z.boolean(), z.array(z.string().min(1)).min(1)]).optional(),
  /**
   * `mcphost batch` / `runBatch`: `shared` (default) starts the server once for every job;
   * `per-job` starts a process of it for each job (a stateful server such as server-memory).
   */
  isolation: z.enum(['shared', 'per-job']).optional(),
  /** This server's `toolChanges` policy, over the config-wide one. */
  toolChanges: toolChangesSchema.optional(),
  /** Whether its tool calls may run as tasks (docs/mcp-features.md#tasks). */
  tasks: z.enum(['auto', 'never', 'always']).optional(),
  /** How long one of its calls that runs as a task may take in all, in ms. */
  taskTimeout: positiveInteger.optional(),
};

/** Claude Desktop / Claude Code: a program started with `command` and `args`, over stdio. */
export const stdioServerSchema = z.object({
  type: z.literal('stdio').optional(),
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: stringMap.optional(),
  cwd: z.string().min(1).optional(),
  inheritEnv: z.boolean().optional(),
  /** Run it in a sandbox: `{ writable, hidden, network }`, or `true` (docs/safety.md). */
  sandbox: sandboxOptionSchema,
  ...commonServerShape,
});

/** The Go mcphost's newer form: `type: local`, the program and its arguments in one list. */
export const localServerSchema = z.object({
  type: z.literal('local').optional(),
  command: z.array(z.string().min(1)).min(1),
  environment: stringMap.optional(),
  cwd: z.string().min(1).optional(),
  inheritEnv: z.boolean().optional(),
  /** Run it in a sandbox: `{ writable, hidden, network }`, or `true` (docs/safety.md). */
  sandbox: sandboxOptionSchema,
  ...commonServerShape,
});

/** A header in the Go mcphost's list form: `"Authorization: Bearer …"`. */
const headerLine = z
  .string()
  .refine((line) => /^[^:\s][^:]*:/.test(line), { error: 'expected "Name: value"' });

/** Scopes as a list, or as one space-separated string (Claude Code's `oauth.scopes`). */
const scopeList = z.union([
  z.array(z.string().regex(/^\S+$/, 'a scope has no spaces')).min(1),
  z
    .string()
    .trim()
    .min(1)
    .transform((text) => text.split(/\s+/)),
]);

/**
 * Sign-in settings of a remote server. Accepts Claude Code's spelling (`clientId`, `callbackPort`,
 * `scopes` as a string) and gemini-cli's (`enabled`, `clientSecret`, `scopes` as a list); keys of
 * theirs that we do not use (`authServerMetadataUrl`, `authorizationUrl`, `tokenUrl`) are ignored.
 * `false` turns sign-in off for the server.
 */
export const oauthSchema = z.union([
  z.literal(false),
  z.object({
    enabled: z.boolean().optional(),
    grant: z.enum(['authorization_code', 'client_credentials']).optional(),
    clientId: z.string().min(1).optional(),
    clientSecret: z.string().min(1).optional(),
    clientMetadataUrl: z
      .string()
      .refine((text) => URL.canParse(text) && new URL(text).protocol === 'https:', {
        error: 'expected an https URL',
      })
      .optional(),
    scopes: scopeList.optional(),
    redirectPort: z.number().int().min(1).max(65_535).optional(),
    callbackPort: z.number().int().min(1).max(65_535).optional(),
  }),
]);

/** A server reached over HTTP (Claude Code's `http` / `sse`; the Go mcphost's `remote`). */
export const remoteServerSchema = z.object({
  type: z.enum(['http', 'streamable-http', 'sse', 'remote']).optional(),
  url: z.string().min(1),
  headers: z.union([stringMap, z.array(headerLine)]).optional(),
  oauth: oauthSchema.optional(),
  ...commonServerShape,
});

/**
 * The Go mcphost's built-in servers: `{"type": "builtin", "name": "fs", "options": {…}}`. The
 * options are checked against the named server's own schema (src/builtin/options.ts).
 */
export const builtinServerSchema = z.object({
  type: z.literal('builtin'),
  name: z.string().min(1),
  options: z.record(z.string(), z.unknown()).optional(),
  ...commonServerShape,
});

export type StdioServerEntry = z.infer<typeof stdioServerSchema>;
export type LocalServerEntry = z.infer<typeof localServerSchema>;
export type RemoteServerEntry = z.infer<typeof remoteServerSchema>;
export type BuiltinServerEntry = z.infer<typeof builtinServerSchema>;

/** Every `type` a server entry may declare. */
export const serverTypes = ['stdio', 'local', 'http', 'streamable-http', 'sse', 'remote', 'builtin'] as const;

/** The keys each form knows; a key of another form is an error, any other key is ignored. */
export const serverFormKeys = {
  stdio: Object.keys(stdioServerSchema.shape),
  local: Object.keys(localServerSchema.shape),
  remote: Object.keys(remoteServerSchema.shape),
  builtin: Object.keys(builtinServerSchema.shape),
} as const;
