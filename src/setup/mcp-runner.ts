/** The Runner createRunner makes: its tools are the MCP servers of a config. */
import type { McpPool, ServerStatus } from '../mcp/pool.js';
import { ServerLogBook } from '../mcp/server-logs.js';
import type { OfferingsChanges } from '../mcp/offerings-changes.js';
import { ServerOfferings } from '../mcp/server-offerings.js';
import { Runner } from '../runner.js';

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

  constructor(
    options: ConstructorParameters<typeof Runner>[0] & {
      readonly pool: McpPool;
      readonly serverLogs?: ServerLogBook;
      /** Where the pool's handlers announce list changes and resource updates. */
      readonly offeringsChanges?: OfferingsChanges;
    },
  ) {
    // `tools` may wrap the pool (the safety guard); without it the pool is the tool host.
    super({
      ...options,
      tools: options.tools ?? options.pool,
      onClose: options.onClose ?? (() => options.pool.close()),
    });
    this.#pool = options.pool;
    this.#systemPrompt = options.systemPrompt;
    this.mcp = new ServerOfferings(options.pool, options.offeringsChanges);
    this.serverLogs = options.serverLogs ?? new ServerLogBook();
  }

  /** The system prompt sent with every model call (a saved session records it). */
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
