/**
 * A tool host with the resource tools added ({@link resourceToolSpecs}), offered only while some
 * server has resources or templates to list: with none, the model is not sent two tools it could
 * never use. Which servers have some is asked once per server and kept until the server announces
 * that its list changed, or is connected again (a restart may bring a different list).
 *
 * The guard wraps this host, so a call of either tool is approved, hooked, budgeted, screened for
 * injection and audited like any other call; what a server wrote comes back with the server as its
 * origin (screened and marked as data), the host's own refusals as the host's.
 */
import { messageOf } from '../core/errors.js';
import type { ToolCallBlock, ToolHost, ToolResultBlock, ToolSpec } from '../core/types.js';
import type { OfferingsChanges } from './offerings-changes.js';
import {
  LIST_RESOURCES_TOOL_NAME,
  READ_RESOURCE_TOOL_NAME,
  listServerPage,
  readListInput,
  readReadInput,
  resourceToolSpecs,
  type PageCursor,
  type ServerPage,
} from './resource-tools.js';
import { offersResources, readResource, resourceBlocks, type ServerClients } from './resources.js';

/** How to build a {@link ResourceToolHost}. */
export interface ResourceToolHostOptions {
  readonly inner: ToolHost;
  /** The servers (the pool). */
  readonly servers: ServerClients;
  /** Where the servers' list changes are announced; absent, a server's answer is kept for the session. */
  readonly changes?: OfferingsChanges;
  /**
   * Whether a server is up now (the pool's status). Only such a server is asked: asking one that
   * is down would restart it, after its backoff, at every listing of the tools. Default: all are.
   */
  readonly isReady?: (server: string) => boolean;
}

export class ResourceToolHost implements ToolHost {
  readonly #inner: ToolHost;
  readonly #servers: ServerClients;
  /** Per server: whether it has resources or templates (false when it cannot be asked). */
  readonly #offers = new Map<string, Promise<boolean>>();
  readonly #isReady: (server: string) => boolean;

  constructor(options: ResourceToolHostOptions) {
    this.#inner = options.inner;
    this.#servers = options.servers;
    this.#isReady = options.isReady ?? (() => true);
    options.changes?.listen((change) => {
      if (change.type === 'list-changed' && change.list === 'resources') this.#offers.delete(change.server);
    });
    options.servers.onReconnected?.(({ server }) => this.#offers.delete(server));
  }

  async tools(): Promise<readonly ToolSpec[]> {
    const [tools, servers] = await Promise.all([this.#inner.tools(), this.resourceServers()]);
    return servers.length === 0 ? tools : [...tools, ...resourceToolSpecs(servers)];
  }

  /** The servers that have resources or templates now, in configuration order. */
  async resourceServers(signal?: AbortSignal): Promise<readonly string[]> {
    const names = this.#servers.serverNames();
    const offers = await Promise.all(names.map((name) => this.#offersOf(name, signal)));
    return names.filter((_name, index) => offers[index]);
  }

  async call(call: ToolCallBlock, signal?: AbortSignal): Promise<ToolResultBlock> {
    switch (call.name) {
      case LIST_RESOURCES_TOOL_NAME:
        return this.#list(call, signal);
      case READ_RESOURCE_TOOL_NAME:
        return this.#read(call, signal);
      default:
        return this.#inner.call(call, signal);
    }
  }

  async #list(call: ToolCallBlock, signal: AbortSignal | undefined): Promise<ToolResultBlock> {
    const input = readListInput(call.input);
    if (typeof input === 'string') return hostAnswer(call, input, true);
    const servers = await this.resourceServers(signal);
    if (input.server !== undefined && !servers.includes(input.server)) {
      return hostAnswer(call, noSuchServer(input.server, servers), true);
    }
    const listed = input.server === undefined ? servers : [input.server];
    const pages = await Promise.all(
      listed.map(async (server) => ({ server, page: await this.#page(server, input.cursor, signal) })),
    );
    const failures = pages.flatMap(({ server, page }) =>
      typeof page === 'string' ? [{ server, reason: page }] : [],
    );
    if (failures.length === pages.length && failures.length > 0) {
      return { ...hostAnswer(call, failures.map(({ reason }) => reason).join('\n'), true), origin: 'server' };
    }
    // JSON: the model reads each entry's fields without guessing where a description ends.
    const answer = {
      servers: pages.flatMap(({ server, page }) => (typeof page === 'string' ? [] : [{ server, ...page }])),
      ...(failures.length === 0 ? {} : { failures }),
    };
    return { ...hostAnswer(call, JSON.stringify(answer, undefined, 1), false), origin: 'server' };
  }

  async #page(
    server: string,
    cursor: PageCursor | undefined,
    signal: AbortSignal | undefined,
  ): Promise<ServerPage | string> {
    try {
      return await listServerPage(await this.#servers.client(server, signal), cursor, signal);
    } catch (error) {
      return `server "${server}" could not list its resources: ${messageOf(error)}`;
    }
  }

  async #read(call: ToolCallBlock, signal: AbortSignal | undefined): Promise<ToolResultBlock> {
    const input = readReadInput(call.input);
    if (typeof input === 'string') return hostAnswer(call, input, true);
    const servers = await this.resourceServers(signal);
    if (!servers.includes(input.server)) return hostAnswer(call, noSuchServer(input.server, servers), true);
    try {
      const result = await readResource(this.#servers, input.server, input.uri, signal);
      // The same blocks as an `@server:uri` attachment: text as text, images as images, other
      // binary as a note of what was left out. The guard marks the whole result as data.
      const content = resourceBlocks(input.server, result);
      if (content.length === 0) {
        return hostAnswer(call, `resource "${input.uri}" of server "${input.server}" is empty`, false);
      }
      return { type: 'tool-result', toolCallId: call.id, toolName: call.name, content, isError: false };
    } catch (error) {
      // The reason is the server's text: screened like its content.
      return { ...hostAnswer(call, messageOf(error), true), origin: 'server' };
    }
  }

  #offersOf(server: string, signal: AbortSignal | undefined): Promise<boolean> {
    const known = this.#offers.get(server);
    if (known !== undefined) return known;
    // Not kept: once it is up again (a reconnection), it is asked.
    if (!this.#isReady(server)) return Promise.resolve(false);
    const asked = this.#ask(server, signal).then(
      (offers) => offers,
      () => {
        // Not kept: a server that could not answer is asked again next time.
        if (this.#offers.get(server) === asked) this.#offers.delete(server);
        return false;
      },
    );
    this.#offers.set(server, asked);
    return asked;
  }

  async #ask(server: string, signal: AbortSignal | undefined): Promise<boolean> {
    const client = await this.#servers.client(server, signal);
    if (!offersResources(client)) return false;
    const page = await listServerPage(client, undefined, signal);
    return page.resources.length > 0 || page.templates.length > 0;
  }
}

function noSuchServer(server: string, servers: readonly string[]): string {
  const known = servers.length === 0 ? 'none' : servers.map((name) => JSON.stringify(name)).join(', ');
  return `no server "${server}" with resources (servers with resources: ${known})`;
}

function hostAnswer(call: ToolCallBlock, text: string, isError: boolean): ToolResultBlock {
  return {
    type: 'tool-result',
    toolCallId: call.id,
    toolName: call.name,
    content: [{ type: 'text', text }],
    isError,
    origin: 'host',
  };
}
