/**
 * The host's resource tools, as Claude Code offers them (ListMcpResourcesTool, ReadMcpResourceTool):
 * the model lists what the servers offer to read — resources and resource templates, one page at a
 * time — and reads one resource by its URI. This file holds their definitions, the reading of the
 * model's arguments, and one page of a server's listing; {@link ResourceToolHost} offers them.
 *
 * The names have no `__`, so they can never be a server's tool (those are always `server__tool`).
 */
import type { Client } from '@modelcontextprotocol/client';
import type { ToolSpec } from '../core/types.js';
import { definedProperties } from '../util/defined-properties.js';

/** Lists resources and templates. */
export const LIST_RESOURCES_TOOL_NAME = 'list_mcp_resources';
/** Reads one resource. */
export const READ_RESOURCE_TOOL_NAME = 'read_mcp_resource';

/** The two tools' definitions; `servers` are those that offer resources (named in the descriptions). */
export function resourceToolSpecs(servers: readonly string[]): readonly ToolSpec[] {
  const named = servers.map((server) => JSON.stringify(server)).join(', ');
  return [
    {
      name: LIST_RESOURCES_TOOL_NAME,
      description:
        `Lists the resources (files, documents, records…) that MCP servers offer to read, and their ` +
        `resource templates (URI patterns with {placeholders}). Servers with resources: ${named}. ` +
        'Give "server" to list one server; a long list comes in pages: call again with the same ' +
        '"server" and the "cursor" the last page gave. Read a resource with ' +
        `${READ_RESOURCE_TOOL_NAME}; for a template, fill in its placeholders to make the URI.`,
      inputSchema: {
        type: 'object',
        properties: {
          server: { type: 'string', description: 'One server to list. Omit to list every server.' },
          cursor: {
            type: 'string',
            description: 'The "nextCursor" of the page before, to get the next page (needs "server").',
          },
        },
      },
    },
    {
      name: READ_RESOURCE_TOOL_NAME,
      description:
        'Reads one resource of an MCP server by its URI (as listed by ' +
        `${LIST_RESOURCES_TOOL_NAME}, or made from a resource template). Servers with resources: ${named}.`,
      inputSchema: {
        type: 'object',
        properties: {
          server: { type: 'string', description: 'The server that offers the resource.' },
          uri: { type: 'string', description: 'The resource URI.' },
        },
        required: ['server', 'uri'],
      },
    },
  ];
}

/** The list tool's arguments, or what is wrong with them. */
export function readListInput(
  input: Readonly<Record<string, unknown>>,
): { readonly server?: string; readonly cursor?: PageCursor } | string {
  const { server, cursor } = input;
  if (server !== undefined && server !== null && (typeof server !== 'string' || server.trim() === '')) {
    return `${LIST_RESOURCES_TOOL_NAME}: "server" must be a server's name, as a string.`;
  }
  const serverName = typeof server === 'string' ? server.trim() : undefined;
  if (cursor === undefined || cursor === null || cursor === '')
    return definedProperties({ server: serverName });
  if (typeof cursor !== 'string') return `${LIST_RESOURCES_TOOL_NAME}: "cursor" must be a string.`;
  if (serverName === undefined) {
    return `${LIST_RESOURCES_TOOL_NAME}: a "cursor" needs the "server" whose page gave it.`;
  }
  const decoded = decodeCursor(cursor);
  if (decoded === undefined) {
    return `${LIST_RESOURCES_TOOL_NAME}: "cursor" is not one this tool gave; call without it for the first page.`;
  }
  return { server: serverName, cursor: decoded };
}

/** The read tool's arguments, or what is wrong with them. */
export function readReadInput(
  input: Readonly<Record<string, unknown>>,
): { readonly server: string; readonly uri: string } | string {
  const { server, uri } = input;
  if (typeof server !== 'string' || server.trim() === '') {
    return `${READ_RESOURCE_TOOL_NAME} needs "server": the name of a server with resources, as a string.`;
  }
  if (typeof uri !== 'string' || uri.trim() === '') {
    return `${READ_RESOURCE_TOOL_NAME} needs "uri": the resource's URI, as a string.`;
  }
  return { server: server.trim(), uri: uri.trim() };
}

/**
 * Where the next page of a server's listing starts: the server's own cursors for its resources and
 * its templates (two lists, each paged on its own). A list without one is finished.
 */
export interface PageCursor {
  readonly resources?: string;
  readonly templates?: string;
}

/** The model gets one opaque string for both of the server's cursors. */
export function encodeCursor(cursor: PageCursor): string {
  return Buffer.from(JSON.stringify(cursor), 'utf8').toString('base64url');
}

function decodeCursor(text: string): PageCursor | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (typeof value !== 'object' || value === null) return undefined;
    const { resources, templates } = value as Record<string, unknown>;
    if (resources !== undefined && typeof resources !== 'string') return undefined;
    if (templates !== undefined && typeof templates !== 'string') return undefined;
    if (resources === undefined && templates === undefined) return undefined;
    return definedProperties({ resources, templates });
  } catch {
    return undefined;
  }
}

/** One resource or template as the model reads it. */
export interface ListedEntry {
  readonly uri?: string;
  readonly uriTemplate?: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
}

/** One page of one server's listing. */
export interface ServerPage {
  readonly resources: readonly ListedEntry[];
  readonly templates: readonly ListedEntry[];
  /** Where the next page starts; absent on the last page. */
  readonly nextCursor?: string;
}

/**
 * One page of a server's resources and templates: the first page of each list without a cursor,
 * else the next page of each list the cursor names (a finished list adds nothing). Asked one page
 * at a time (the SDK's `listResources()` without a cursor would walk every page at once).
 */
export async function listServerPage(
  client: Client,
  cursor: PageCursor | undefined,
  signal?: AbortSignal,
): Promise<ServerPage> {
  const options = signal === undefined ? {} : { signal };
  const page = (value: string | undefined): Record<string, unknown> =>
    value === undefined ? {} : { cursor: value };
  const [resources, templates] = await Promise.all([
    cursor === undefined || cursor.resources !== undefined
      ? client.request({ method: 'resources/list', params: page(cursor?.resources) }, options)
      : undefined,
    cursor === undefined || cursor.templates !== undefined
      ? client.request({ method: 'resources/templates/list', params: page(cursor?.templates) }, options)
      : undefined,
  ]);
  const next: PageCursor = definedProperties({
    resources: resources?.nextCursor,
    templates: templates?.nextCursor,
  });
  return {
    resources: (resources?.resources ?? []).map((resource) => ({
      uri: resource.uri,
      ...entryOf(resource),
    })),
    templates: (templates?.resourceTemplates ?? []).map((template) => ({
      uriTemplate: template.uriTemplate,
      ...entryOf(template),
    })),
    ...(next.resources === undefined && next.templates === undefined
      ? {}
      : { nextCursor: encodeCursor(next) }),
  };
}

function entryOf(entry: {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  mimeType?: string | undefined;
}): ListedEntry {
  return {
    name: entry.name,
    ...definedProperties({ title: entry.title, description: entry.description, mimeType: entry.mimeType }),
  };
}
