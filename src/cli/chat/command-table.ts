/**
 * What a slash command of the chat is, what it may use of the chat ({@link CommandContext}), and
 * how a line is matched to one. The commands themselves live in modules that each export a list of
 * {@link ChatCommand}s; `src/cli/chat/slash-commands.ts` registers every module with one line.
 */
import type { ToolDescription } from '../../mcp/pool.js';
import type { ServerLogRecord } from '../../mcp/server-logs.js';
import type { ServerOfferings } from '../../mcp/server-offerings.js';
import type { ServerStatus } from '../../mcp/status.js';
import type { Runner } from '../../core/runner.js';
import type { KeptPermissions } from '../../safety/kept-permissions.js';
import type { Message } from '../../core/types.js';
import type { SkillSummary } from '../../mcp/skills/skill-library.js';
import type { AgentRun } from '../../agents/child-run.js';
import type { RunningTask } from '../../mcp/tasks/running-tasks.js';
import type { ConversationSummary } from '../sessions/saved-conversations.js';
import type { Style } from './style.js';
import type { UsageTotals } from './usage.js';

/** A command's name, what it takes, and what it does, for `/help` and completion. */
export interface CommandHelp {
  readonly name: string;
  readonly argument?: string;
  readonly summary: string;
}

/** One slash command: its help, other names, and what it does with the rest of the line. */
export interface ChatCommand extends CommandHelp {
  /** Other names (`/new` for `/clear`). */
  readonly aliases?: readonly string[];
  /** Runs the command; `argument` is the rest of the line, trimmed and unquoted ('' when none). */
  run(argument: string, context: CommandContext): Promise<CommandOutcome> | CommandOutcome;
}

/** What a command needs from the chat. */
export interface CommandContext {
  readonly runner: Runner;
  describeTools(): Promise<readonly ToolDescription[]>;
  servers(): readonly ServerStatus[];
  readonly usage: UsageTotals;
  /** The model in use, as `provider:model`. */
  modelString(): string;
  /** Creates the provider and makes it the runner's; throws (leaving the old one) on failure. */
  switchModel(modelString: string): Promise<void>;
  /** Saves a copy of the conversation; resolves to the path written. */
  saveConversation(path: string): Promise<string>;
  /** Asks the user a question on the chat's own prompt (`/resume` without an id). */
  ask?(question: string): Promise<string>;
  /** The "always allow" answers kept for this folder (`/permissions`). */
  readonly permissions?: KeptPermissions;
  /** Takes up a saved conversation of this folder (`/resume`); absent where there are none. */
  readonly savedConversations?: SavedConversationsAccess;
  readonly style: Style;
  columns(): number;
  readonly debug: boolean;
  /** Resources and prompts of the servers (absent for a chat without MCP servers behind it). */
  readonly offerings?: ServerOfferings;
  /** The servers' kept log messages, of one server or all. */
  serverLogs?(server?: string): readonly ServerLogRecord[];
  /** The MCP roots (absent for a chat without MCP servers behind it). */
  readonly roots?: RootsControl;
  /** The skills offered to the model, for `/skills` (absent: none). */
  skills?(): Promise<readonly SkillSummary[]>;
  /** The subagent runs of this conversation, for `/agents` (absent: none). */
  agentRuns?(): readonly AgentRun[];
  /** The tool calls running as tasks, for `/tasks` (absent: none). */
  runningTasks?(): readonly RunningTask[];
  /** MCP Apps' page and the session's apps, for `/apps` (absent: apps are off). */
  apps?(): Promise<AppsListing>;
}

/** The folders servers may work in, as `/roots` reads and changes them. */
export interface RootsControl {
  /** The shared roots (offered to servers with no folders of their own). */
  list(): readonly string[];
  /** One server's roots and where they come from, in one line (`/servers`, `/roots`). */
  describe(server: string): string;
  /** True when the server is offered the shared roots (and follows `/roots add|remove`). */
  followsShared(server: string): boolean;
  /** Replaces them (relative folders from the working directory); rejects naming a bad folder. */
  set(folders: readonly string[]): Promise<void>;
}

/** The saved conversations of the working folder, for `/resume`. */
export interface SavedConversationsAccess {
  /** Newest first. */
  list(): Promise<readonly ConversationSummary[]>;
  /** Makes the conversation at `path` the chat's: its history, and where it is saved from now on. */
  takeUp(path: string): Promise<readonly Message[]>;
}

/** What the chat should do after a command. */
export type CommandOutcome =
  | { readonly kind: 'show'; readonly text: string }
  | { readonly kind: 'error'; readonly text: string }
  | { readonly kind: 'quit' };

export function show(text: string): CommandOutcome {
  return { kind: 'show', text };
}

export function failed(text: string): CommandOutcome {
  return { kind: 'error', text };
}

/** A line read as a command: a known one with its argument, or an unknown name (maybe a typo). */
export type ParsedCommand =
  | { readonly kind: 'command'; readonly command: ChatCommand; readonly argument: string }
  | { readonly kind: 'unknown'; readonly name: string; readonly suggestion: string | undefined };

/**
 * The command on a line, or undefined when the line is a prompt for the model. A command is `/`
 * and a word (`/help`, `/model x:y`); `/etc/hosts?` is a prompt, and `//text` sends `/text`.
 */
export function parseCommandLine(line: string, commands: readonly ChatCommand[]): ParsedCommand | undefined {
  const match = /^\s*\/([a-z][\w-]*)(?:\s+(.*))?$/is.exec(line);
  if (match === null) return undefined;
  const name = `/${(match[1] ?? '').toLowerCase()}`;
  const argument = unquote(match[2]?.trim() ?? '');
  const command = commands.find(
    (candidate) => candidate.name === name || (candidate.aliases ?? []).includes(name),
  );
  if (command !== undefined) return { kind: 'command', command, argument };
  return { kind: 'unknown', name, suggestion: closestCommand(name, commands) };
}

function unquote(text: string): string {
  const match = /^(["'])(.*)\1$/s.exec(text);
  return match?.[2] ?? text;
}

/** The command a typo most likely meant: a shared prefix, or at most two edits away. */
function closestCommand(name: string, commands: readonly ChatCommand[]): string | undefined {
  const names = commands.map((command) => command.name);
  const prefixed = names.find((candidate) => candidate.startsWith(name) || name.startsWith(candidate));
  if (prefixed !== undefined) return prefixed;
  let best: { name: string; distance: number } | undefined;
  for (const candidate of names) {
    const distance = editDistance(name, candidate);
    if (distance <= 2 && (best === undefined || distance < best.distance))
      best = { name: candidate, distance };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The page and the session's apps, newest first. */
export interface AppsListing {
  readonly url: string;
  readonly apps: ReadonlyArray<{
    readonly id: string;
    readonly tool: string;
    readonly server: string;
    readonly closed: boolean;
    /** Where the page shows it. */
    readonly url: string;
  }>;
}
