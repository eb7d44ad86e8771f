/**
 * Resources: what servers offer to read (`resources/list`, `resources/templates/list`,
 * `resources/read`), gathered over every page, and turned into blocks a model can take.
 */
import type { Client, ReadResourceResult } from '@modelcontextprotocol/client';
import { ServerError, messageOf } from '../core/errors.js';
import type { ImageBlock, TextBlock } from '../core/types.js';
import type { ServerReconnectionListener } from './reconnections.js';
import { definedProperties } from '../util/defined-properties.js';

/** The part of the pool these functions use (a fake in unit tests). */
export interface ServerClients {
  serverNames(): readonly string[];
  client(serverName: string, signal?: AbortSignal): Promise<Client>;
  /** Hears servers connected again (see McpPool.onReconnected); absent, none are announced. */
  onReconnected?(listener: ServerReconnectionListener): () => void;
}

/** One resource a server lists. */
export interface ResourceEntry {
  readonly server: string;
  readonly uri: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
}

/** One resource template (RFC 6570 URI template) a server lists. */
export interface ResourceTemplateEntry {
  readonly server: string;
  readonly uriTemplate: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
}

/** A listing over one or more servers; a server that failed is named with its reason. */
export interface ResourceListing {
  readonly resources: readonly ResourceEntry[];
  readonly templates: readonly ResourceTemplateEntry[];
  readonly failures: ReadonlyArray<{ readonly server: string; readonly reason: string }>;
}

/** Whether a connected client's server declared resources. */
export function offersResources(client: Client): boolean {
  return client.getServerCapabilities()?.resources !== undefined;
}

/**
 * Lists resources and templates of `server`, or of every server that offers resources. Naming a
 * server that is unknown or unusable throws ServerError; across all servers, failures are listed.
 */
export async function listResources(
  pool: ServerClients,
  server?: string,
  signal?: AbortSignal,
): Promise<ResourceListing> {
  const servers = server === undefined ? pool.serverNames() : [server];
  const results = await Promise.all(
    servers.map(async (name) => {
      try {
        return { name, listing: await listServerResources(await pool.client(name, signal), name, signal) };
      } catch (error) {
        if (server !== undefined) throw error;
        return { name, reason: messageOf(error) };
      }
    }),
  );
  return {
    resources: results.flatMap((result) => result.listing?.resources ?? []),
    templates: results.flatMap((result) => result.listing?.templates ?? []),
    failures: results.flatMap((result) =>
      result.reason === undefined ? [] : [{ server: result.name, reason: result.reason }],
    ),
  };
}

async function listServerResources(
  client: Client,
  server: string,
  signal: AbortSignal | undefined,
): Promise<{ resources: ResourceEntry[]; templates: ResourceTemplateEntry[] }> {
  if (!offersResources(client)) return { resources: [], templates: [] };
  const options = signal === undefined ? {} : { signal };
  try {
    // No cursor: the SDK walks every page (capped, against a server whose cursor never ends).
    const [{ resources }, { resourceTemplates }] = await Promise.all([
      client.listResources(undefined, options),
      client.listResourceTemplates(undefined, options),
    ]);
    return {
      resources: resources.map((resource) => ({
        server,
        uri: resource.uri,
        name: resource.name,
        ...pick(resource),
      })),
      templates: resourceTemplates.map((template) => ({
        server,
        uriTemplate: template.uriTemplate,
        name: template.name,
        ...pick(template),
      })),
    };
  } catch (error) {
    throw new ServerError(
      server,
      `server "${server}" could not list its resources: ${messageOf(error)}`,
      [],
      { cause: error },
    );
  }
}

function pick(entry: {
  title?: string | undefined;
  description?: string | undefined;
  mimeType?: string | undefined;
}): {
  title?: string;
  description?: string;
  mimeType?: string;
} {
  return definedProperties({ title: entry.title, description: entry.description, mimeType: entry.mimeType });
}

/** Reads one resource. Throws ServerError naming the server and URI when it cannot be read. */
export async function readResource(
  pool: ServerClients,
  server: string,
  uri: string,
  signal?: AbortSignal,
): Promise<ReadResourceResult> {
  const client = await pool.client(server, signal);
  try {
    return await client.readResource({ uri }, signal === undefined ? {} : { signal });
  } catch (error) {
    throw new ServerError(
      server,
      `server "${server}" could not read resource "${uri}": ${messageOf(error)}`,
      [],
      {
        cause: error,
      },
    );
  }
}

/**
 * A read resource as blocks for the model: text as text, images as images, and any other binary
 * as a note saying what was left out (no provider takes arbitrary bytes). Each is wrapped in
 * `<resource>` tags, or `<untrusted-resource>` tags with `markAsData` (the default system-prompt
 * clause names them): the server's text cannot close them (a closing tag in it is neutralised).
 */
export function resourceBlocks(
  server: string,
  result: ReadResourceResult,
  options: { readonly markAsData?: boolean } = {},
): Array<TextBlock | ImageBlock> {
  const tag = options.markAsData === true ? 'untrusted-resource' : 'resource';
  const blocks: Array<TextBlock | ImageBlock> = [];
  for (const contents of result.contents) {
    const mimeType = contents.mimeType === undefined ? '' : ` type="${attribute(contents.mimeType)}"`;
    const header = `<${tag} server="${attribute(server)}" uri="${attribute(contents.uri)}"${mimeType}>`;
    if ('text' in contents) {
      blocks.push({
        type: 'text',
        text: `${header}\n${neutraliseClosingTag(contents.text, tag)}\n</${tag}>`,
      });
    } else if (contents.mimeType?.startsWith('image/') === true) {
      blocks.push({ type: 'text', text: `${header} (image follows)` });
      blocks.push({ type: 'image', mimeType: contents.mimeType, data: contents.blob });
    } else {
      const bytes = Math.floor((contents.blob.replace(/=+$/, '').length * 3) / 4);
      blocks.push({
        type: 'text',
        text: `${header} [binary content, ${bytes} bytes, left out: the model cannot read it]</${tag}>`,
      });
    }
  }
  return blocks;
}

/** A value safe inside a double-quoted attribute. */
function attribute(value: string): string {
  return value.replace(/["<>\n\r]/g, (character) => encodeURIComponent(character));
}

/** `</tag>` inside the content would end the wrapper early: it is shown as quoted instead. */
export function neutraliseClosingTag(text: string, tag: string): string {
  return text.replace(new RegExp(`<\\/\\s*${tag}\\s*>`, 'giu'), `</${tag} (quoted)>`);
}
