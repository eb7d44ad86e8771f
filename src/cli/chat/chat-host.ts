/**
 * What the chat is given: the host it talks to (the runner, tool and server listings) and its
 * options. Apart from interactive.ts, which starts the chat, so that the session and its parts can
 * use these types without importing the module that creates them.
 */
import type { Runner } from '../../core/runner.js';
import type { Provider } from '../../core/types.js';
import type { ToolDescription } from '../../mcp/pool.js';
import type { ServerLogRecord } from '../../mcp/server-logs.js';
import type { ServerOfferings } from '../../mcp/server-offerings.js';
import type { ToolProgress } from '../../mcp/server-connection.js';
import type { ServerStatus } from '../../mcp/status.js';
import type { SkillSummary } from '../../mcp/skills/skill-library.js';
import type { AgentRun } from '../../agents/child-run.js';
import type { RunningTask } from '../../mcp/tasks/running-tasks.js';
import type { KeptPermissions } from '../../safety/kept-permissions.js';
import type { ConversationRecorder } from '../sessions/conversation-recorder.js';
import type { AppsListing, RootsControl } from './command-table.js';
import type { MarkdownRenderer } from './markdown.js';
import type { PrompterSlot } from './prompter.js';

export interface ChatOptions {
  /**
   * Saves the conversation: `/save` writes a copy through it, and `/resume` (offered only with
   * one) switches it to the conversation taken up. The model shown is the runner's provider's.
   */
  readonly recorder?: ConversationRecorder;
  /** The "always allow" answers kept for this folder: `/permissions` lists and removes them. */
  readonly permissions?: KeptPermissions;
  readonly debug: boolean;
  /** Aborted on SIGTERM/SIGHUP: the chat ends (and so do the servers). */
  readonly signal: AbortSignal;
  /** False with --no-color: plain text, as with NO_COLOR. Default true. */
  readonly color?: boolean;
  /**
   * Creates a provider for `/model` (the CLI: src/setup/model-switch.ts, which keeps the flags' and
   * config's URL and key for the provider the chat started with only); without it, `/model` only
   * shows the model in use.
   */
  readonly createProvider?: (modelString: string) => Promise<Provider>;
  /** Bound to the chat while it runs, to ask the user something during a turn. */
  readonly prompter?: PrompterSlot;
  /** The input history file; default `$XDG_STATE_HOME/mcphost/history`; null keeps none. */
  readonly historyPath?: string | null;
  /** A markdown renderer to use at once (tests); by default marked-terminal, loaded in the background. */
  readonly renderMarkdown?: MarkdownRenderer;
  /**
   * Sent as the first turn, right after the banner, as if typed at the prompt (`-p … --no-exit`):
   * the answer shows as every chat answer does, with its token line, the prompt following.
   */
  readonly firstPrompt?: string;
  /** Running tools' progress reports, shown in the status line of the turn that runs them. */
  readonly progress?: ProgressSource;
  /** MCP Apps (`--apps`): their messages are turns, `/apps` shows the page; absent: apps are off. */
  readonly apps?: ChatApps;
}

/** MCP Apps as the chat sees them (src/cli/apps-page.ts makes one). */
export interface ChatApps {
  /** Hears each message an app sends (`ui/message`), for a new turn; returns the function that stops. */
  listen(listener: (message: AppTurn) => void): () => void;
  /** Serves the page if it is not served yet, and lists the session's apps, newest first (`/apps`). */
  show(): Promise<AppsListing>;
}

/** An app's message as a turn: who sent it, the text shown, and what the model gets. */
export interface AppTurn {
  readonly from: string;
  readonly shown: string;
  readonly prompt: string;
}

/** Where progress reports come from: `listen` returns the function that stops listening. */
export interface ProgressSource {
  listen(listener: (report: ToolProgress) => void): () => void;
}

/** What the chat needs besides the runner: tool and server listings. */
export interface ChatHost {
  readonly runner: Runner;
  /** Saved with the conversation by `/save`. */
  readonly systemPrompt?: string;
  describeTools(): Promise<readonly ToolDescription[]>;
  servers(): readonly ServerStatus[];
  /** Resources and prompts: `@server:uri` and `/server:prompt` in a message, `/resources`, `/prompts`. */
  readonly offerings?: ServerOfferings;
  /** The servers' kept log messages, for `/logs`. */
  serverLogs?(server?: string): readonly ServerLogRecord[];
  /** The MCP roots, for `/roots`. */
  readonly roots?: RootsControl;
  /** The skills offered to the model, for `/skills`. */
  skills?(): Promise<readonly SkillSummary[]>;
  /** The subagent runs of this conversation, for `/agents`. */
  agentRuns?(): readonly AgentRun[];
  /** Replaces the subagent runs with a resumed conversation's (`/resume`). */
  restoreAgentRuns?(runs: readonly AgentRun[]): void;
  /** The tool calls running as tasks, for `/tasks`. */
  runningTasks?(): readonly RunningTask[];
}
