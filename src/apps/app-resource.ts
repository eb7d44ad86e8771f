/**
 * An MCP App's interface: the `ui://` resource a tool names in `_meta.ui.resourceUri`, read from
 * the tool's own server and checked before any browser sees it (its type, its size, its CSP).
 */
import type { Client, Tool } from '@modelcontextprotocol/client';
import { messageOf } from '../core/errors.js';
import { contentPolicyOf, type AppContentPolicy } from './content-policy.js';

/** The one type an app's resource may have (SEP-1865). */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';

/** The extension's id, as the `initialize` handshake advertises it. */
export const APPS_EXTENSION = 'io.modelcontextprotocol/ui';

/**
 * The largest app document served (UTF-8 bytes). Apps are single files with their scripts inlined
 * (the ext-apps SDK alone is ~540 KB), so the limit is well above that, and far below what would
 * make the page slow or the host's memory a target.
 */
export const DEFAULT_MAX_APP_BYTES = 4 * 1024 * 1024;

/** A checked app document. */
export interface AppResource {
  readonly uri: string;
  readonly html: string;
  readonly policy: AppContentPolicy;
}

export type AppResourceOutcome =
  | { readonly kind: 'ok'; readonly resource: AppResource }
  /** Not served: why, in one line. */
  | { readonly kind: 'refused'; readonly reason: string };

/** The `ui://` resource a tool's definition names, or undefined for a tool without an interface. */
export function uiResourceUriOf(tool: Tool | undefined): string | undefined {
  const meta = tool?._meta;
  if (meta === undefined) return undefined;
  const ui: unknown = meta.ui;
  const named =
    typeof ui === 'object' && ui !== null && 'resourceUri' in ui ? ui.resourceUri : meta['ui/resourceUri'];
  return typeof named === 'string' && named.startsWith('ui://') ? named : undefined;
}

/**
 * Reads an app's resource from its server and checks it. Never throws: a failure to read is a
 * refusal too, with the server's words.
 */
export async function readAppResource(
  client: Client,
  uri: string,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<AppResourceOutcome> {
  let contents;
  try {
    ({ contents } = await client.readResource({ uri }, signal === undefined ? {} : { signal }));
  } catch (error) {
    return { kind: 'refused', reason: `${uri} could not be read: ${messageOf(error)}` };
  }
  const content = contents.find((item) => item.uri === uri) ?? contents[0];
  if (content === undefined) return { kind: 'refused', reason: `${uri} came back empty` };
  if (content.mimeType !== APP_MIME_TYPE) {
    return {
      kind: 'refused',
      reason: `${uri} is ${content.mimeType ?? 'of no stated type'}, not ${APP_MIME_TYPE}`,
    };
  }
  const html = 'text' in content ? content.text : Buffer.from(content.blob, 'base64').toString('utf8');
  const bytes = Buffer.byteLength(html, 'utf8');
  if (bytes > maxBytes) {
    return { kind: 'refused', reason: `${uri} is ${bytes} bytes, over the ${maxBytes}-byte limit for apps` };
  }
  const policy = contentPolicyOf(content._meta?.ui);
  return { kind: 'ok', resource: { uri, html, policy } };
}
