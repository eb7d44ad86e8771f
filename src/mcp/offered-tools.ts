/**
 * The tools one connection offers the model, kept out of server-connection.ts: filtered by its
 * config, kept while the server restarts, and fetched again after the server says they changed.
 */
import type { Tool } from '@modelcontextprotocol/client';
import { appOnlyTools, offeredTools } from './connection-options.js';
import type { ServerDefinition } from './definition.js';
import type { ServerSession } from './server-session.js';
import { messageOf } from '../core/errors.js';

export interface OfferedToolsOptions {
  readonly serverName: string;
  readonly definition: ServerDefinition;
  /** How long a `tools/list` may take. */
  readonly listTimeoutMs: number;
  /** The list changed (or may have): the host asks for it again. */
  readonly onChanged: () => void;
  readonly debug: (message: string) => void;
  readonly warn: (message: string) => void;
}

/** A connection's tools, by their real names. */
export class OfferedTools {
  readonly #options: OfferedToolsOptions;
  #tools: readonly Tool[] = [];
  /** The tools only an MCP App may call (`visibility: ["app"]`): never offered to the model. */
  #appOnly: readonly Tool[] = [];
  #stale = false;
  #refreshing: Promise<void> | undefined;

  constructor(options: OfferedToolsOptions) {
    this.#options = options;
  }

  get tools(): readonly Tool[] {
    return this.#tools;
  }

  get appOnlyTools(): readonly Tool[] {
    return this.#appOnly;
  }

  /** A new session's tools; returns how many are offered. */
  adopt(tools: readonly Tool[]): number {
    this.#tools = offeredTools(tools, this.#options.definition);
    this.#appOnly = appOnlyTools(tools, this.#options.definition);
    this.#stale = false;
    return this.#tools.length;
  }

  /** The server is given up: it offers nothing. */
  clear(): void {
    this.#tools = [];
    this.#appOnly = [];
  }

  /** The server announced a change: fetched again before the next use. */
  markStale(): void {
    this.#stale = true;
    this.#options.debug('tool list changed');
    this.#options.onChanged();
  }

  /**
   * Fetches the tool list again if the server announced a change since the last fetch.
   * `isCurrent` says whether `session` is still the connection's (an answer from an old one is dropped).
   */
  async refreshIfStale(
    session: ServerSession,
    isCurrent: (session: ServerSession) => boolean,
  ): Promise<void> {
    if (!this.#stale) return;
    this.#refreshing ??= this.#refresh(session, isCurrent).finally(() => {
      this.#refreshing = undefined;
    });
    await this.#refreshing;
  }

  async #refresh(session: ServerSession, isCurrent: (session: ServerSession) => boolean): Promise<void> {
    this.#stale = false;
    try {
      const { tools } = await session.client.listTools(undefined, {
        timeout: this.#options.listTimeoutMs,
        cacheMode: 'refresh',
      });
      if (!isCurrent(session)) return;
      this.#tools = offeredTools(tools, this.#options.definition);
      this.#appOnly = appOnlyTools(tools, this.#options.definition);
      this.#options.debug(`tool list refreshed (${this.#tools.length} tools)`);
      this.#options.onChanged();
    } catch (error) {
      this.#options.warn(
        `server "${this.#options.serverName}": could not refresh its tool list (${messageOf(error)}); keeping the previous one`,
      );
    }
  }
}
