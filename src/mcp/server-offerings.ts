/**
 * What the servers offer besides tools — resources, templates, prompts, argument completion,
 * resource subscriptions — as one object for a program (`runner.mcp`), the chat's commands and `-p`.
 */
import type { GetPromptResult, ReadResourceResult } from '@modelcontextprotocol/client';
import {
  completeArgument,
  type CompleteOptions,
  type CompletionRequest,
  type CompletionResult,
} from './completion.js';
import { OfferingsCatalogCache, type OfferingsCatalog } from './offerings-catalog.js';
import { OfferingsChanges, type OfferingsChangeListener } from './offerings-changes.js';
import { getPrompt, listPrompts, type PromptEntry } from './prompts.js';
import { ResourceSubscriptions, type SubscribeOutcome } from './resource-subscriptions.js';
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
  readonly #changes: OfferingsChanges;
  readonly #catalog: OfferingsCatalogCache;
  readonly #subscriptions: ResourceSubscriptions;

  /**
   * `options`: how resources and prompts are screened and marked. `changes` carries the servers'
   * list and update notifications (the pool's handlers announce there).
   */
  constructor(
    pool: ServerClients,
    options: OfferingsOptions = {},
    changes: OfferingsChanges = new OfferingsChanges(),
  ) {
    this.#pool = pool;
    this.#options = options;
    this.#changes = changes;
    this.#catalog = new OfferingsCatalogCache(pool);
    this.#subscriptions = new ResourceSubscriptions(pool);
    changes.listen((change) => {
      this.#catalog.apply(change);
    });
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

  /**
   * Values a server suggests for a prompt's or a resource template's argument
   * (`completion/complete`). A server without the `completions` capability suggests nothing.
   * Throws ServerError for an unknown server, a refusal, or no answer within `timeoutMs`.
   */
  complete(request: CompletionRequest, options?: CompleteOptions): Promise<CompletionResult> {
    return completeArgument(this.#pool, request, options);
  }

  /**
   * Every server's resources, templates and prompts, as last listed: kept until a server announces
   * that a list changed. Never rejects (a server that cannot list adds nothing, and is asked again
   * next time).
   */
  catalog(): Promise<OfferingsCatalog> {
    return this.#catalog.get();
  }

  /**
   * Subscribes to a resource's updates when its server declares `resources.subscribe`; each update
   * is announced to {@link onChange} listeners as `resource-updated`. When the server is restarted
   * or reconnected, its subscriptions are made again on the new connection by themselves (a
   * refusal is a `warn` server log line naming the server and URI).
   */
  subscribe(server: string, uri: string, signal?: AbortSignal): Promise<SubscribeOutcome> {
    return this.#subscriptions.subscribe(server, uri, signal);
  }

  /** Ends a subscription; false when there was none on the server's current connection. */
  unsubscribe(server: string, uri: string, signal?: AbortSignal): Promise<boolean> {
    return this.#subscriptions.unsubscribe(server, uri, signal);
  }

  /** The resources subscribed to. */
  subscriptions(): ReadonlyArray<{ readonly server: string; readonly uri: string }> {
    return this.#subscriptions.list();
  }

  /** Hears every list change and resource update the servers announce; returns how to stop. */
  onChange(listener: OfferingsChangeListener): () => void {
    return this.#changes.listen(listener);
  }

  /**
   * `/server:prompt args` and `@server:uri` in a user's text, expanded into a user turn. With
   * `subscribe`, each attached resource is also subscribed to (see {@link subscribe}).
   */
  async expandUserTurn(
    text: string,
    options: ExpandUserTurnOptions & { readonly subscribe?: boolean } = {},
  ): Promise<ExpandedUserTurn> {
    const { subscribe, ...expandOptions } = options;
    const turn = await expandUserTurn(this.#pool, text, { ...this.#options, ...expandOptions });
    if (subscribe !== true || turn.attached.length === 0) return turn;
    const notes = [...turn.notes];
    await Promise.all(
      turn.attached.map(async ({ server, uri }) => {
        try {
          if ((await this.subscribe(server, uri, options.signal)) === 'subscribed') {
            notes.push(`subscribed to @${server}:${uri}: its updates will be shown`);
          }
        } catch (error) {
          // The resource is attached all the same; only its updates will not be heard.
          notes.push(error instanceof Error ? error.message : String(error));
        }
      }),
    );
    return { ...turn, notes };
  }
}
