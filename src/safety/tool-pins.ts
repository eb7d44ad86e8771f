/**
 * Pinned tool definitions: what a tool's definition is, for a pin, and its hash.
 *
 * A server may change a tool's description or schema after the user approved it (a "rug pull" in
 * the MCP security guidance): the new description can carry instructions, a new parameter can
 * carry data out. So the first time a tool is approved (or seen, when it needs no approval) its
 * definition is hashed and kept per server (tool-pin-store.ts), and a later, different definition
 * under the same name is flagged with what changed (tool-pin-diff.ts) and handled by the
 * `toolChanges` policy (tool-pin-check.ts).
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../util/canonical-json.js';
import { definedProperties } from '../util/defined-properties.js';
import type { ServerIdentity } from './audit-log.js';

/**
 * What a server says changed tools are met with. `warn`: an audit line and a warning, and the new
 * definition is used (and pinned); `ask`: the user decides (where no one can be asked, as
 * `block`); `block`: the tool is withheld from the model until its pin is reset.
 */
export type ToolChangePolicy = 'warn' | 'ask' | 'block';

export const TOOL_CHANGE_POLICIES: readonly ToolChangePolicy[] = ['warn', 'ask', 'block'];

/** The policy where neither the server's entry nor the config says. */
export const DEFAULT_TOOL_CHANGE_POLICY: ToolChangePolicy = 'warn';

/** The `toolChanges` settings: a policy for every server, and one per server name. */
export interface ToolChangeSettings {
  readonly default?: ToolChangePolicy;
  readonly servers?: Readonly<Record<string, ToolChangePolicy>>;
}

/** The policy for one server: its own, else the config-wide one, else {@link DEFAULT_TOOL_CHANGE_POLICY}. */
export function toolChangePolicyFor(
  settings: ToolChangeSettings | undefined,
  server: string,
): ToolChangePolicy {
  const own = settings?.servers === undefined ? undefined : Object.hasOwn(settings.servers, server);
  return (
    (own === true ? settings?.servers?.[server] : undefined) ??
    settings?.default ??
    DEFAULT_TOOL_CHANGE_POLICY
  );
}

/**
 * A tool as a server lists it (`tools/list`): the fields that make up its definition. The SDK's
 * `Tool` fits this shape; other fields (`_meta`, `icons`, `execution`) are not pinned: they
 * change what a client shows or how it calls, not what the model is told or may send.
 */
export interface ListedTool {
  readonly name: string;
  readonly title?: string | undefined;
  readonly description?: string | undefined;
  readonly inputSchema: object;
  readonly outputSchema?: object | undefined;
  readonly annotations?: object | undefined;
}

/** The pinned part of a definition, as kept in the pin file (so that a later change can be shown). */
export interface PinnedDefinition {
  readonly name: string;
  /** Pinned too: a tool without a description is shown to the model by its title. */
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  readonly annotations?: Readonly<Record<string, unknown>>;
}

/** The fields of a listed tool that are pinned, absent ones left out (so absent and unset hash alike). */
export function pinnedDefinitionOf(tool: ListedTool): PinnedDefinition {
  return {
    name: tool.name,
    ...definedProperties({ title: tool.title, description: tool.description }),
    inputSchema: asRecord(tool.inputSchema),
    ...(tool.outputSchema === undefined ? {} : { outputSchema: asRecord(tool.outputSchema) }),
    ...(tool.annotations === undefined ? {} : { annotations: asRecord(tool.annotations) }),
  };
}

/** `sha256:` and the hex SHA-256 of the definition's canonical JSON. */
export function definitionHash(definition: PinnedDefinition): string {
  return `sha256:${createHash('sha256').update(canonicalJson(definition)).digest('hex')}`;
}

/** The first 12 hex digits of a hash, for listings. */
export function shortHash(hash: string): string {
  return hash.replace(/^sha256:/, '').slice(0, 12);
}

function asRecord(value: object): Readonly<Record<string, unknown>> {
  return value as Readonly<Record<string, unknown>>;
}

/**
 * Who a server is, for its pins: the command line of a stdio server, the URL of a remote one, the
 * implementation of a built-in one; its configured name only when nothing else is known. Two
 * projects' servers of one name are then two servers, and one server configured under two names
 * in two projects is one.
 */
export function pinIdentityOf(identity: ServerIdentity | undefined, server: string): string {
  if (identity?.command !== undefined) return identity.command;
  if (identity?.url !== undefined) return identity.url;
  if (identity?.name !== undefined) return `server ${identity.name}`;
  return `named ${server}`;
}
