/**
 * The MCP server pool: every configured server, started in parallel, offered to the model as one
 * flat list of `server__tool` tools, and routed back through a name table.
 *
 * The pool is the `ToolHost` the Runner talks to. It never throws for a server's or a tool's
 * failure: a server that cannot start is reported through `log` and left out, and every failed
 * call is answered as an error result the model reads.
 */
import { CANCELLED, untilAborted } from '../util/abort.js';
import { AbortedError, ServerError } from '../core/errors.js';
import { errorResult } from '../core/tool-execution.js';
import type { Client, Tool } from '@modelcontextprotocol/client';
import type { ToolCallBlock, ToolHost, ToolResultBlock, ToolSpec } from '../core/types.js';
import type { ToolResultBody } from './content.js';
import { connectionOptionsFor, type McpPoolOptions } from './pool-options.js';
import { spawnStdioServers } from './early-spawn.js';
import { describeError } from './describe.js';
import type { ServerProcess } from './server-process.js';
import { buildToolNameTable, type ToolNameTable } from './naming.js';
import type { ServerConnection } from './server-connection.js';
import { RunningTasks } from './tasks/running-tasks.js';
import type { ResumableTask } from './tasks/connection-tasks.js';
import type { PoolLog, ServerStatus } from './status.js';
import type { serverAuthFor } from './auth/pool-sign-in.js';
import { toolHintsOf, type ToolHints } from '../safety/tool-hints.js';
import { ServerReconnections, type ServerReconnectionListener } from './reconnections.js';

export type { PoolLog, PoolLogEntry, ServerState, ServerStatus } from './status.js';
export { noServerStarted } from './status.js';
export type { ToolProgress } from './server-connection.js';
export type { ConfigureClient } from './server-session.js';
export type { ServerReconnection, ServerReconnectionListener } from './reconnections.js';
export {
  DEFAULT_CLIENT_INFO,
  DEFAULT_INIT_TIMEOUT_MS,
  DEFAULT_MAX_TOOL_TIMEOUT_MS,
  DEFAULT_TOOL_TIMEOUT_MS,
  type McpPoolOptions,
} from './pool-options.js';

export type { PoolSignIn } from './auth/pool-sign-in.js';

type ConnectionClass = typeof ServerConnection;

/** One line of a `/tools` listing. */
export interface ToolDescription {
  /** The name the model sees. */
  readonly exposedName: string;
  /** The configured server name. */
  readonly server: string;
  /** The tool's own name on its server. */
  readonly tool: string;
  readonly description: string;
  /** What the server says about the tool (`annotations`), the spec's defaults applied. */
  readonly hints?: ToolHints;
  /** The definition as the server lists it now (for pinning: src/safety/tool-pin-check.ts). */
  readonly definition?: Tool;
}

/** Every configured MCP server, as one {@link ToolHost}. */
export class McpPool implements ToolHost {
  readonly #connections: ReadonlyMap<string, ServerConnection>;
  #table: ToolNameTable | undefined;
  /** The table the model last saw: calls are routed through it even if a list changed since. */
  #published: ToolNameTable | undefined;
  #closing: Promise<void> | undefined;
  /**
   * The spec last listed for each exposed name, with the server's definition it was made from: an
   * unchanged tool is listed as the same object, so what is worked out once per spec (its token
   * estimate, src/context/tokens.ts) holds across listings. A server that lists its tools again
   * gives new definitions, so its tools get new specs; the map keeps only the last listing's.
   */
  #specs = new Map<string, { readonly source: Tool; readonly spec: ToolSpec }>();
  readonly #reconnections = new ServerReconnections();
  /** The tool calls running as tasks now (the tasks extension), for `/tasks`. */
  readonly runningTasks = new RunningTasks();
  readonly #exitHook = (): void => {
    this.killSync();
  };

  private constructor(
    options: McpPoolOptions,
    connectionClass: ConnectionClass | undefined,
    authFor: ReturnType<typeof serverAuthFor> | undefined,
    spawned: ReadonlyMap<string, ServerProcess>,
  ) {
    const log: PoolLog = options.log ?? (() => undefined);
    const now = options.now ?? Date.now;
    const connections = Object.entries(options.servers).map(([name, definition]) => {
      if (connectionClass === undefined) throw new Error(`McpPool: no connection class for "${name}"`);
      return new connectionClass(
        connectionOptionsFor(name, definition, options, {
          auth: authFor?.(name) ?? {},
          spawnedProcess: spawned.get(name),
          runningTasks: this.runningTasks,
          now,
          log,
          onReconnected: (client) => {
            this.#reconnections.announce({
              server: name,
              client,
              warn: (message) => {
                log({ server: name, level: 'warn', message });
              },
            });
          },
          onToolsChanged: () => {
            this.#table = undefined;
          },
        }),
      );
    });
    this.#connections = new Map(connections.map((connection) => [connection.name, connection]));
    // If our process exits without close() (process.exit on a signal, an uncaught error), the
    // servers' process groups must not outlive it. An exit handler can only do synchronous work.
    process.on('exit', this.#exitHook);
  }

  /**
   * Starts every server in parallel, each within its init timeout, and resolves when all have
   * started or failed. Never rejects because a server failed: see {@link status} and `log`.
   * Rejects with AbortedError when `options.signal` aborts first (after ending what was started).
   */
  static async start(options: McpPoolOptions): Promise<McpPool> {
    const { signal } = options;
    signal?.throwIfAborted();
    // The MCP SDK (and zod's and ajv's schemas it builds as it loads: ~80 ms and ~13 MB) is loaded
    // only when there is a server to talk to.
    const hasServers = Object.keys(options.servers).length > 0;
    // The stdio servers are spawned first, and boot while the SDK loads.
    const spawned = hasServers ? await spawnStdioServers(options) : new Map<string, ServerProcess>();
    // Until the pool's own exit hook is in place, this one keeps them from outliving us.
    const killSpawned = (): void => {
      for (const serverProcess of spawned.values()) serverProcess.killGroupSync();
    };
    process.on('exit', killSpawned);
    let pool: McpPool;
    try {
      const connectionClass = hasServers
        ? (await import('./server-connection.js')).ServerConnection
        : undefined;
      const authFor = hasServers
        ? (await import('./auth/pool-sign-in.js')).serverAuthFor(options)
        : undefined;
      pool = new McpPool(options, connectionClass, authFor, spawned);
    } catch (error) {
      killSpawned();
      throw error;
    } finally {
      process.removeListener('exit', killSpawned);
    }
    const started = Promise.all([...pool.#connections.values()].map((connection) => connection.start()));
    if ((await untilAborted(started, signal)) === CANCELLED) {
      await pool.close();
      throw new AbortedError('the servers were still starting when the start was cancelled');
    }
    return pool;
  }

  /**
   * The tools of every usable server (all pages), with exposed names. A server that announced a
   * tool list change since the last call is asked again first.
   */
  async tools(): Promise<readonly ToolSpec[]> {
    const table = await this.#currentTable();
    const listed = new Map<string, { readonly source: Tool; readonly spec: ToolSpec }>();
    for (const { exposedName, server, tool } of table.tools) {
      const source = this.#toolOf(server, tool);
      if (source === undefined || this.#isAppOnly(server, tool)) continue;
      const known = this.#specs.get(exposedName);
      const spec =
        known?.source === source
          ? known.spec
          : {
              name: exposedName,
              description: source.description ?? source.title ?? '',
              inputSchema: source.inputSchema,
            };
      listed.set(exposedName, { source, spec });
    }
    this.#specs = listed;
    this.#published = table;
    return [...listed.values()].map(({ spec }) => spec);
  }

  /** The tools for a `/tools` listing, refreshed like {@link tools}. */
  async describeTools(): Promise<readonly ToolDescription[]> {
    const table = await this.#currentTable();
    const offered = table.tools.filter(({ server, tool }) => !this.#isAppOnly(server, tool));
    return offered.map(({ exposedName, server, tool }) => ({
      exposedName,
      server,
      tool,
      description: this.#toolOf(server, tool)?.description ?? this.#toolOf(server, tool)?.title ?? '',
      hints: toolHintsOf(this.#toolOf(server, tool)?.annotations),
    }));
  }

  /**
   * Where an exposed name leads, read from the table the model was last given (the one
   * {@link call} routes through), so a policy or an audit line judges the tool that will really
   * run. Before any tools were published, the current table is read instead. Never refreshes.
   */
  locate(exposedName: string): ToolDescription | undefined {
    const table = this.#published ?? (this.#table ??= this.#buildTable());
    const address = table.lookup.get(exposedName);
    if (address === undefined) return undefined;
    const spec = this.#toolOf(address.server, address.tool);
    return {
      exposedName,
      ...address,
      description: spec?.description ?? spec?.title ?? '',
      hints: toolHintsOf(spec?.annotations),
      ...(spec === undefined ? {} : { definition: spec }),
    };
  }

  /**
   * Runs one tool call. Never throws: an unknown tool, an unusable server, a protocol error, a
   * timeout or a cancellation comes back as a result with `isError: true`.
   */
  async call(call: ToolCallBlock, signal?: AbortSignal): Promise<ToolResultBlock> {
    const failure = (text: string): ToolResultBlock => errorResult(call, text);
    if (this.#closing !== undefined) return failure('the MCP servers have been shut down');
    const table = this.#published ?? (await this.#currentTable());
    const address = table.lookup.get(call.name);
    const connection = address === undefined ? undefined : this.#connections.get(address.server);
    if (address === undefined || connection === undefined) {
      return failure(`unknown tool "${call.name}": no MCP server offers a tool by that name`);
    }
    // An app-only tool (MCP Apps, `visibility: ["app"]`) is named in the table so its app's calls
    // route and are judged like any other, but the model is never offered it nor may call it.
    if (call.fromApp === undefined && this.#isAppOnly(address.server, address.tool)) {
      return failure(`unknown tool "${call.name}": no MCP server offers a tool by that name`);
    }
    let body: ToolResultBody;
    try {
      body = await connection.call(address.tool, call.input, signal, call.id, call.meta);
    } catch (error) {
      // Unreachable by design (a connection answers every failure as data); kept so a bug here
      // costs one tool result, not the whole run.
      return failure(`the call to "${call.name}" failed: ${describeError(error)}`);
    }
    return resultOf(call, body);
  }

  /**
   * Follows a task a previous session left running (the journal's record of it) to its result,
   * for the tool call `call` it answers. Never throws: every failure is an error result.
   */
  async resumeTask(call: ToolCallBlock, task: ResumableTask, signal?: AbortSignal): Promise<ToolResultBlock> {
    const connection = this.#connections.get(task.server);
    if (this.#closing !== undefined || connection === undefined) {
      return errorResult(
        call,
        `task ${task.taskId} cannot be followed: no server "${task.server}" is configured now`,
      );
    }
    const body = await connection.resumeTask(task.tool, task.taskId, call.id, signal);
    return resultOf(call, body);
  }

  /** The configured server names, in configuration order. */
  serverNames(): readonly string[] {
    return [...this.#connections.keys()];
  }

  /**
   * A server's live SDK client, for requests other than tool calls (resources, prompts,
   * completion). A stopped server is started or restarted as for a tool call. Rejects with
   * ServerError saying why when there is no such server or it cannot be used.
   */
  async client(serverName: string, signal?: AbortSignal): Promise<Client> {
    const connection = this.#connections.get(serverName);
    if (connection === undefined || this.#closing !== undefined) {
      const known = this.serverNames().join(', ') || 'none';
      throw new ServerError(
        serverName,
        this.#closing === undefined
          ? `no MCP server is named "${serverName}" (configured: ${known})`
          : 'the MCP servers have been shut down',
      );
    }
    const client = await connection.client(signal);
    if (typeof client === 'string') throw new ServerError(serverName, client);
    return client;
  }

  /**
   * Hears each server's connection being made again (a restart, a reconnect), so that what the old
   * connection was asked (resource subscriptions) can be asked again. Returns how to stop.
   */
  onReconnected(listener: ServerReconnectionListener): () => void {
    return this.#reconnections.listen(listener);
  }

  /** Tells every running server (or those `which` names) that the roots changed. */
  async notifyRootsChanged(which: (server: string) => boolean = () => true): Promise<void> {
    await Promise.all(
      [...this.#connections]
        .filter(([server]) => which(server))
        .map(([, connection]) => connection.notifyRootsChanged()),
    );
  }

  /** Each server's state, tool count, last error and stderr tail, in configuration order. */
  status(): readonly ServerStatus[] {
    return [...this.#connections.values()].map((connection) => connection.status());
  }

  /** Ends every server and every process it started. Idempotent; resolves when all are gone. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await Promise.all([...this.#connections.values()].map((connection) => connection.close()));
      process.removeListener('exit', this.#exitHook);
    })();
    return this.#closing;
  }

  /**
   * Kills every server's process group at once, synchronously. For last-moment cleanup (a process
   * `exit` handler); prefer {@link close}, which lets servers shut down cleanly first.
   */
  killSync(): void {
    for (const connection of this.#connections.values()) connection.killSync();
  }

  async #currentTable(): Promise<ToolNameTable> {
    const connections = [...this.#connections.values()];
    await Promise.all(connections.map((connection) => connection.refreshIfChanged()));
    this.#table ??= this.#buildTable();
    return this.#table;
  }

  /** Names the tools every server has now (without asking any server again). */
  #buildTable(): ToolNameTable {
    return buildToolNameTable(
      [...this.#connections.values()].flatMap((connection) =>
        [...connection.tools(), ...connection.appOnlyTools()].map((tool) => ({
          server: connection.name,
          tool: tool.name,
        })),
      ),
    );
  }

  #toolOf(server: string, tool: string): Tool | undefined {
    const connection = this.#connections.get(server);
    return [...(connection?.tools() ?? []), ...(connection?.appOnlyTools() ?? [])].find(
      (candidate) => candidate.name === tool,
    );
  }

  #isAppOnly(server: string, tool: string): boolean {
    return (
      this.#connections
        .get(server)
        ?.appOnlyTools()
        .some((candidate) => candidate.name === tool) ?? false
    );
  }

  /**
   * The exposed name of a server's tool, app-only ones included, for an MCP App's call (src/apps):
   * `undefined` when the server has no such tool now.
   */
  async exposedNameOf(server: string, tool: string): Promise<string | undefined> {
    const table = this.#published ?? (await this.#currentTable());
    return table.tools.find((entry) => entry.server === server && entry.tool === tool)?.exposedName;
  }
}

/** A server's answer (or the connection's account of its failure) as the tool call's result. */
function resultOf(call: ToolCallBlock, body: ToolResultBody): ToolResultBlock {
  return {
    type: 'tool-result',
    toolCallId: call.id,
    toolName: call.name,
    content: body.content,
    isError: body.isError,
    ...(body.origin === undefined ? {} : { origin: body.origin }),
    // Only where asked for (MCP Apps' host): the model and the history never get it.
    ...(call.keepStructuredContent === true && body.structuredContent !== undefined
      ? { structuredContent: body.structuredContent }
      : {}),
  };
}
