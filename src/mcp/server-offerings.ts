/**
 * What the servers offer besides tools — resources, templates, prompts — as one object for a
 * program (`runner.mcp`), the chat's commands and `-p`.
 */
import type { GetPromptResult, ReadResourceResult } from '@modelcontextprotocol/client';
import { getPrompt, listPrompts, type PromptEntry } from './prompts.js';
import { listResources, readResource, type ResourceListing, type ServerClients } from './resources.js';
import type { ContentScreen } from '../safety/untrusted-content.js';
import { expandUserTurn, type ExpandedUserTurn, type ExpandUserTurnOptions } from './user-turn.js';

/** How resources and prompts are treated on their way into a user turn. */
export interface OfferingsOptions {
  /**
   * Screens a resource's or prompt's content before it joins the turn (createRunner: the session's
   * untrusted-content policy, the same as for tool results). Default: not screened.
   */
  readonly screen?: ContentScreen;
  /** Wrap attached resources in `<untrusted-resource>` tags (createRunner: on by default). */
  readonly markAsData?: boolean;
}

export class ServerOfferings {
  readonly #pool: ServerClients;
  readonly #options: OfferingsOptions;

  constructor(pool: ServerClients, options: OfferingsOptions = {}) {
    this.#pool = pool;
    this.#options = options;
  }

  /** The configured server names. */
  serverNames(): readonly string[] {
    return this.#pool.serverNames();
  }

  /** Resources and templates of one server (throws ServerError), or of all (failures listed). */
  listResources(server?: string, signal?: AbortSignal): Promise<ResourceListing> {
    return listResources(this.#pool, server, signal);
  }

  /** One resource's contents. Throws ServerError naming the server and URI when it cannot be read. */
  readResource(server: string, uri: string, signal?: AbortSignal): Promise<ReadResourceResult> {
    return readResource(this.#pool, server, uri, signal);
  }

  /** Prompts of one server (throws ServerError), or of all that answer. */
  listPrompts(server?: string, signal?: AbortSignal): Promise<readonly PromptEntry[]> {
    return listPrompts(this.#pool, server, signal);
  }

  /** One prompt's messages for these argument values. */
  getPrompt(
    server: string,
    name: string,
    values: Readonly<Record<string, string>> = {},
    signal?: AbortSignal,
  ): Promise<GetPromptResult> {
    return getPrompt(this.#pool, server, name, values, signal);
  }

  /** `/server:prompt args` and `@server:uri` in a user's text, expanded into a user turn. */
  expandUserTurn(text: string, options?: ExpandUserTurnOptions): Promise<ExpandedUserTurn> {
    return expandUserTurn(this.#pool, text, { ...this.#options, ...options });
  }
}
