/**
 * The safety side of createRunner, kept apart from the composition itself: the config's safety
 * settings as the one {@link SafetyOptions} object, the untrusted-content defaults and clause, the
 * content screen shared by the guard and the servers' resources and prompts, and who a server is
 * for the audit log.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ConfigSafetySettings, LoadedConfig } from '../../config/index.js';
import type { ServerDefinition } from '../mcp/definition.js';
import type { McpPool } from '../mcp/pool.js';
import type { QuestionQueue, UserQuestions } from '../core/questions.js';
import type { ServerIdentity } from '../safety/audit-log.js';
import type { SafetyOptions } from '../safety/options.js';
import {
  screenUntrustedContent,
  UNTRUSTED_CONTENT_CLAUSE,
  type ContentScreen,
  type FlagReport,
} from '../safety/untrusted-content.js';
import { mcphostFolder } from '../util/user-folders.js';
import { runsLocalProcesses, sandboxOf } from './sandbox-servers.js';
import { defaultToolPinsPath, ToolPinStore } from '../safety/tool-pin-store.js';
import type { ToolChangePolicy, ToolChangeSettings } from '../safety/tool-pins.js';
import type { CreateRunnerOptions } from './runner-options.js';
import { definedProperties } from '../util/defined-properties.js';

/** Tool output (and attached resources) reach the model marked as data from outside. */
export const DEFAULT_MARK_TOOL_OUTPUT = true;
/** The system prompt carries {@link UNTRUSTED_CONTENT_CLAUSE}. */
export const DEFAULT_SYSTEM_PROMPT_CLAUSE = true;

/** Whether tool output is marked for the model (`untrustedContent.markAsData`, default on). */
export function marksToolOutput(safety: SafetyOptions): boolean {
  return safety.untrustedContent?.markAsData ?? DEFAULT_MARK_TOOL_OUTPUT;
}

/**
 * The config file's safety settings, as the one object the guard takes: the same fields (the
 * config declares them as part of {@link SafetyOptions}), without the rest of the config.
 */
export function configSafety(
  config: ConfigSafetySettings & Pick<LoadedConfig, 'servers' | 'toolChanges'>,
): SafetyOptions {
  return definedProperties({
    approval: config.approval,
    hooks: config.hooks,
    auditLog: config.auditLog,
    auditLogMaxBytes: config.auditLogMaxBytes,
    maxToolResultBytes: config.maxToolResultBytes,
    untrustedContent: config.untrustedContent,
    budgets: config.budgets,
    toolChanges: toolChangeSettings(config),
  });
}

/** The config's `toolChanges`: the config-wide policy, and each server's own. */
function toolChangeSettings(
  config: Pick<LoadedConfig, 'servers' | 'toolChanges'>,
): ToolChangeSettings | undefined {
  const servers: Record<string, ToolChangePolicy> = {};
  for (const [name, definition] of Object.entries(config.servers)) {
    // defineProperty: a server named "__proto__" stays a server.
    if (definition.toolChanges !== undefined) {
      Object.defineProperty(servers, name, { value: definition.toolChanges, enumerable: true });
    }
  }
  const any = Object.keys(servers).length > 0;
  if (config.toolChanges === undefined && !any) return undefined;
  return { ...definedProperties({ default: config.toolChanges }), ...(any ? { servers } : {}) };
}

/**
 * The pin store a run uses: the caller's (or none, given `false`), else the state folder's
 * `tool-pins.json`, as the sign-ins and kept permissions are kept — when the run is the user's:
 * the CLI (which always says where home is), or a library caller that gives `homeDir` or runs the
 * servers of the user's config. A program that brings its own servers (`mcpServers`, `servers`)
 * and no `homeDir` has them pinned for the runner's life only, and leaves the user's file alone.
 */
export function withToolPins(
  safety: SafetyOptions,
  options: Pick<CreateRunnerOptions, 'homeDir' | 'mcpServers' | 'servers'>,
  env: Readonly<Record<string, string | undefined>>,
): SafetyOptions {
  if (safety.toolPins !== undefined) return safety;
  const usersOwn =
    options.homeDir !== undefined || (options.mcpServers === undefined && options.servers === undefined);
  const file = usersOwn ? defaultToolPinsPath(options.homeDir ?? homedir(), env) : undefined;
  return { ...safety, toolPins: new ToolPinStore(file) };
}

/** The system prompt with the untrusted-content clause, unless it is turned off (or already there). */
export function withUntrustedContentClause(
  prompt: string | undefined,
  safety: SafetyOptions,
): string | undefined {
  if (!(safety.untrustedContent?.systemPromptClause ?? DEFAULT_SYSTEM_PROMPT_CLAUSE)) return prompt;
  if (prompt === undefined || prompt.trim() === '') return UNTRUSTED_CONTENT_CLAUSE;
  if (prompt.includes(UNTRUSTED_CONTENT_CLAUSE)) return prompt;
  return `${prompt}\n\n${UNTRUSTED_CONTENT_CLAUSE}`;
}

/**
 * The session's {@link ContentScreen}: content from outside that is not a tool result (resources,
 * prompts, sampling messages) is screened with the same policy, questions and queue as the guard
 * gives tool results.
 */
export function contentScreenFor(
  safety: SafetyOptions,
  questionQueue: QuestionQueue,
  questions: UserQuestions | undefined,
  onFlagged: ((report: FlagReport) => void) | undefined,
): ContentScreen {
  return (content, origin, signal) =>
    screenUntrustedContent(
      content,
      origin,
      {
        policy: safety.untrustedContent?.policy ?? 'warn',
        queue: questionQueue,
        questions,
        onFlagged,
      },
      signal,
    );
}

/** The folder for whole tool results over the budget (see CreateRunnerOptions.toolOutputFolder). */
export function toolOutputFolderFor(
  options: { readonly toolOutputFolder?: string | null; readonly homeDir?: string },
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  if (options.toolOutputFolder === null) return undefined;
  if (options.toolOutputFolder !== undefined) return options.toolOutputFolder;
  return join(mcphostFolder('state', options.homeDir ?? homedir(), env), 'tool-output');
}

/** Who a server is: its own name and version, and the command or URL it was started with. */
export function serverIdentity(
  pool: McpPool,
  definition: ServerDefinition | undefined,
  server: string,
): ServerIdentity | undefined {
  const implementation = pool.status().find((status) => status.name === server)?.implementation;
  const started =
    definition === undefined
      ? {}
      : definition.transport === 'stdio'
        ? { command: [definition.command, ...definition.args].join(' ') }
        : definition.transport === 'builtin'
          ? {} // in-process: its serverInfo (`mcphost-fs`…) says which one
          : { url: definition.url };
  const local = definition !== undefined && runsLocalProcesses(definition);
  return {
    ...(implementation ?? {}),
    ...started,
    ...(local ? { sandboxed: sandboxOf(definition) !== undefined } : {}),
  };
}
