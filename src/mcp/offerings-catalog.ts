/**
 * The servers' resources, templates and prompts, gathered once and kept until a server says its
 * list changed (or a restart may have changed it). Tab completion reads it on every key: asking
 * every server each time would make typing wait on the slowest one.
 */
import type { OfferingsChange } from './offerings-changes.js';
import { listPrompts, type PromptEntry } from './prompts.js';
import {
  listResources,
  type ResourceEntry,
  type ResourceTemplateEntry,
  type ServerClients,
} from './resources.js';

/** Everything the servers offer besides tools, as last listed. */
export interface OfferingsCatalog {
  readonly resources: readonly ResourceEntry[];
  readonly templates: readonly ResourceTemplateEntry[];
  readonly prompts: readonly PromptEntry[];
}

type Listing = Pick<OfferingsCatalog, 'resources' | 'templates'>;

/** Per server and list, the listing in flight or done. A failed listing is not kept. */
export class OfferingsCatalogCache {
  readonly #pool: ServerClients;
  readonly #resources = new Map<string, Promise<Listing>>();
  readonly #prompts = new Map<string, Promise<readonly PromptEntry[]>>();

  constructor(pool: ServerClients) {
    this.#pool = pool;
  }

  /** The catalog of every server, each list fetched only if not already known. Never rejects. */
  async get(): Promise<OfferingsCatalog> {
    const servers = this.#pool.serverNames();
    const [listings, prompts] = await Promise.all([
      Promise.all(servers.map((server) => this.#listing(server))),
      Promise.all(servers.map((server) => this.#promptsOf(server))),
    ]);
    return {
      resources: listings.flatMap((listing) => listing.resources),
      templates: listings.flatMap((listing) => listing.templates),
      prompts: prompts.flat(),
    };
  }

  /** Forgets what a change made stale. */
  apply(change: OfferingsChange): void {
    switch (change.type) {
      case 'list-changed':
        if (change.list === 'resources') this.#resources.delete(change.server);
        else this.#prompts.delete(change.server);
        return;
      case 'resource-updated':
        // The contents changed, not the list.
        return;
      default: {
        const unexpected: never = change;
        throw new TypeError(`unknown change ${JSON.stringify(unexpected)}`);
      }
    }
  }

  /** Forgets everything (the user asked for a fresh listing). */
  clear(): void {
    this.#resources.clear();
    this.#prompts.clear();
  }

  #listing(server: string): Promise<Listing> {
    const known = this.#resources.get(server);
    if (known !== undefined) return known;
    const listing: Promise<Listing> = listResources(this.#pool, server).catch(() => {
      if (this.#resources.get(server) === listing) this.#resources.delete(server);
      return { resources: [], templates: [] };
    });
    this.#resources.set(server, listing);
    return listing;
  }

  #promptsOf(server: string): Promise<readonly PromptEntry[]> {
    const known = this.#prompts.get(server);
    if (known !== undefined) return known;
    const prompts: Promise<readonly PromptEntry[]> = listPrompts(this.#pool, server).catch(() => {
      if (this.#prompts.get(server) === prompts) this.#prompts.delete(server);
      return [];
    });
    this.#prompts.set(server, prompts);
    return prompts;
  }
}
