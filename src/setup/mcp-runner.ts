/** The Runner createRunner makes: its tools are the MCP servers of a config. */
import type { McpPool, ServerStatus } from '../mcp/pool.js';
import type { AppHost } from '../apps/app-host.js';
import { checkRootDirectories, RootList } from '../mcp/roots.js';
import { ServerRoots } from '../mcp/server-roots.js';
import { ServerLogBook } from '../mcp/server-logs.js';
import type { OfferingsChanges } from '../mcp/offerings-changes.js';
import { ServerOfferings, type OfferingsOptions } from '../mcp/server-offerings.js';
import { Runner, type Prompt, type RunOptions } from '../core/runner.js';
import type { RunResult } from '../core/events.js';
import type { ToolCallBlock, ToolResultBlock } from '../core/types.js';
import type { ResumableTask } from '../mcp/tasks/connection-tasks.js';
import { SkillLibrary } from '../mcp/skills/skill-library.js';
import { AgentRunBook } from '../agents/run-book.js';

/** A Runner whose tools come from the MCP servers of a config. */
export class McpRunner extends Runner {
  readonly #pool: McpPool;

  readonly #systemPrompt: string | undefined;

  /**
   * Resources, templates and prompts of the servers, argument completion, resource subscriptions,
   * and `@server:uri` / `/server:prompt` expansion.
   */
  readonly mcp: ServerOfferings;

  /** The servers' latest log messages (`notifications/message`), for `/logs`. */
  readonly serverLogs: ServerLogBook;

  /** The skills offered to the model (local and servers'): `skills.list()` for `/skills`. */
  readonly skills: SkillLibrary;

  constructor(
    options: ConstructorParameters<typeof Runner>[0] & {
      readonly pool: McpPool;
      readonly serverLogs?: ServerLogBook;
      /** The skills (createRunner builds them from the folders and the pool). Default: none. */
      readonly skills?: SkillLibrary;
      /** How resources and prompts are screened and marked (see ServerOfferings). */
      readonly offerings?: OfferingsOptions;
      /**
       * The user's own system prompt, without the untrusted-content clause createRunner adds: what
       * a saved session records, so the clause follows the settings of the run that continues it.
       * Default `systemPrompt`.
       */
      readonly userSystemPrompt?: string | undefined;
      /** The folders servers may work in (the pool answers `roots/list` from it). */
      readonly roots?: ServerRoots;
      /** Where the pool's handlers announce list changes and resource updates. */
      readonly offeringsChanges?: OfferingsChanges;
      /**
       * What a followed task's result passes before the model reads it (the guard's result stages
       * and audit line). Default: nothing, as for a runner without a guard.
       */
      readonly screenResumed?: (call: ToolCallBlock, result: ToolResultBlock) => Promise<ToolResultBlock>;
      /** Where the subagent runs of this conversation are kept (createRunner's agent runtime adds them). */
      readonly agentRuns?: AgentRunBook;
      /** MCP Apps' host, when apps are on (createRunner's `apps`). */
      readonly apps?: AppHost;
    },
  ) {
    // `tools` may wrap the pool (the safety guard); without it the pool is the tool host.
    super({
      ...options,
      tools: options.tools ?? options.pool,
      onClose: options.onClose ?? (() => options.pool.close()),
    });
    this.#pool = options.pool;
    this.#screenResumed = options.screenResumed;
    this.#systemPrompt = 'userSystemPrompt' in options ? options.userSystemPrompt : options.systemPrompt;
    this.mcp = new ServerOfferings(options.pool, options.offerings, options.offeringsChanges);
    this.serverLogs = options.serverLogs ?? new ServerLogBook();
    this.skills = options.skills ?? new SkillLibrary({});
    this.agentRuns = options.agentRuns ?? new AgentRunBook();
    this.#roots = options.roots ?? new ServerRoots({ shared: new RootList([]), sharedGiven: true });
    this.apps = options.apps;
  }

  /**
   * The session's MCP Apps (createRunner's `apps`), undefined when apps are off: list them, hear
   * their events (an app's message is a new turn for the caller to run), serve the local page
   * (`serveAppPage`), or connect a program's own frame to an app's bridge (`HostedApp.connect`).
   */
  readonly apps: AppHost | undefined;

  readonly #roots: ServerRoots;

  /**
   * With apps on, the apps hear every event of the run first (a call the model is still writing
   * opens its app: see AppHost.hear), and are told when it ends.
   */
  override run(prompt: Prompt, options: RunOptions = {}): Promise<RunResult> {
    const apps = this.apps;
    if (apps === undefined) return super.run(prompt, options);
    const onEvent = options.onEvent;
    const heard: RunOptions = {
      ...options,
      onEvent: (event) => {
        apps.hear(event);
        onEvent?.(event);
      },
    };
    return super.run(prompt, heard).finally(() => {
      apps.runEnded();
    });
  }

  /** The subagent runs of this conversation (`/agents`), with each child's transcript. */
  readonly agentRuns: AgentRunBook;

  readonly #screenResumed:
    ((call: ToolCallBlock, result: ToolResultBlock) => Promise<ToolResultBlock>) | undefined;

  /**
   * Follows a task a previous session left running to its result (`-c`), which then passes what
   * any tool result passes (output limit, untrusted-content screen, audit) before the model reads it.
   */
  async resumeTask(call: ToolCallBlock, task: ResumableTask, signal?: AbortSignal): Promise<ToolResultBlock> {
    const result = await this.#pool.resumeTask(call, task, signal);
    return this.#screenResumed === undefined ? result : this.#screenResumed(call, result);
  }

  /**
   * The shared roots (MCP roots), absolute paths: what servers without folders of their own are
   * offered (see {@link rootsOf} for one server's).
   */
  get roots(): readonly string[] {
    return this.#roots.shared.directories;
  }

  /**
   * One server's roots and where they come from (its own folders, its `roots`, the shared ones):
   * `folders` is `undefined` when it is offered none; `shared` is true when they are the shared
   * roots (and follow {@link setRoots}); `description` is one line for a person.
   */
  rootsOf(server: string): {
    readonly folders: readonly string[] | undefined;
    readonly shared: boolean;
    readonly description: string;
  } {
    return {
      folders: this.#roots.directoriesOf(server),
      shared: this.#roots.followsShared(server),
      description: this.#roots.describe(server),
    };
  }

  /**
   * Replaces the shared roots and tells the running servers that follow them
   * (`notifications/roots/list_changed`); a server with folders of its own keeps them. Relative
   * folders are taken from the working directory. Rejects with a ConfigError naming `source` when
   * one is not a directory (nothing changes then).
   */
  async setRoots(directories: readonly string[], source = 'setRoots'): Promise<void> {
    const checked = await checkRootDirectories(directories, process.cwd(), source);
    if (this.#roots.setShared(checked)) {
      await this.#pool.notifyRootsChanged((server) => this.#roots.followsShared(server));
    }
  }

  /** The user's system prompt (a saved session records it); the clause, when on, is sent after it. */
  get systemPrompt(): string | undefined {
    return this.#systemPrompt;
  }

  /** Each configured server: state, tool count, last error. */
  get servers(): readonly ServerStatus[] {
    return this.#pool.status();
  }

  /** The MCP pool, for listings (`/tools`) and status. */
  get pool(): McpPool {
    return this.#pool;
  }
}
