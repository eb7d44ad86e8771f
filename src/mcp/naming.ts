/**
 * Exposed tool names: `server__tool`, made safe for the strictest vendor rule
 * (`^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`) and unique across every server.
 *
 * Why a lookup table instead of splitting on `__`: server and tool names may themselves contain `__`
 * (or characters we replace), so an exposed name cannot be parsed back. The table built here is the
 * only way back from an exposed name to the real server and tool.
 *
 * Names are a pure function of the *set* of tools: the order in which servers answer does not
 * change any name, so a conversation saved yesterday still routes today.
 */
import { createHash } from 'node:crypto';

/** The longest name every vendor accepts. */
export const MAX_TOOL_NAME_LENGTH = 64;

/** Hex digits of the disambiguating hash appended to shortened or colliding names. */
const SHORT_HASH_LENGTH = 8;
/** Used when two names still collide with the short hash (only possible with crafted names). */
const LONG_HASH_LENGTH = 16;
/** The shortest part of the server name kept when both names are long. */
const MIN_SERVER_PART_LENGTH = 16;
const SEPARATOR = '__';

/** Where a tool really lives. */
export interface ToolAddress {
  /** The server's name as configured. */
  readonly server: string;
  /** The tool's name as the server reports it. */
  readonly tool: string;
}

/** A tool with the name the model sees. */
export interface ExposedToolName extends ToolAddress {
  /** Matches `^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`; unique within one {@link ToolNameTable}. */
  readonly exposedName: string;
}

/** The result of naming a set of tools. */
export interface ToolNameTable {
  /** One entry per distinct input address, in input order. */
  readonly tools: readonly ExposedToolName[];
  /** Exposed name → real server and tool. */
  readonly lookup: ReadonlyMap<string, ToolAddress>;
}

/**
 * Names every tool. Duplicate addresses (a server listing a tool twice) are kept once.
 *
 * A name is `server__tool` with every character outside `[A-Za-z0-9_-]` replaced by `_` (and a
 * leading `_` when the server name does not start with a letter or `_`). When that is longer than
 * 64 characters, or equal to another tool's name, it is shortened and suffixed with a short hash
 * of the original server and tool, so it is still unique and still the same tomorrow. A tool whose
 * name needed no cleaning keeps its plain name when it collides with a cleaned one.
 */
export function buildToolNameTable(addresses: Iterable<ToolAddress>): ToolNameTable {
  const unique = uniqueAddresses(addresses);
  const plain = unique.map((address) => plainName(address));
  const exact = unique.map(
    (address, index) => `${address.server}${SEPARATOR}${address.tool}` === plain[index],
  );

  const holders = new Map<string, number[]>();
  plain.forEach((name, index) => {
    const list = holders.get(name) ?? [];
    list.push(index);
    holders.set(name, list);
  });

  const names = unique.map((address, index) => {
    const name = plain[index] ?? '';
    const group = holders.get(name) ?? [];
    const exactHolders = group.filter((member) => exact[member] === true);
    const keepsPlain =
      name.length <= MAX_TOOL_NAME_LENGTH &&
      (group.length === 1 || (exact[index] === true && exactHolders.length === 1));
    return keepsPlain ? name : hashedName(address, SHORT_HASH_LENGTH);
  });

  resolveRemainingCollisions(unique, names, plain);

  const tools = unique.map((address, index) => ({ ...address, exposedName: names[index] ?? '' }));
  const lookup = new Map<string, ToolAddress>();
  for (const tool of tools) lookup.set(tool.exposedName, { server: tool.server, tool: tool.tool });
  return { tools, lookup };
}

/** True when `name` is acceptable to every vendor. */
export function isValidToolName(name: string): boolean {
  return /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/.test(name);
}

function uniqueAddresses(addresses: Iterable<ToolAddress>): ToolAddress[] {
  const seen = new Set<string>();
  const result: ToolAddress[] = [];
  for (const address of addresses) {
    const key = JSON.stringify([address.server, address.tool]);
    if (seen.has(key)) continue;
    seen.add(key);
    result.push({ server: address.server, tool: address.tool });
  }
  return result;
}

function clean(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]/g, '_');
}

/** The cleaned server part, starting with a letter or `_` as the vendor rule wants. */
function serverPart(server: string): string {
  const cleaned = clean(server);
  return /^[A-Za-z_]/.test(cleaned) ? cleaned : `_${cleaned}`;
}

function plainName(address: ToolAddress): string {
  return `${serverPart(address.server)}${SEPARATOR}${clean(address.tool)}`;
}

function hashOf(address: ToolAddress, length: number): string {
  // A NUL cannot appear in a configured server name, so the pair is encoded unambiguously.
  return createHash('sha256').update(`${address.server}\u0000${address.tool}`).digest('hex').slice(0, length);
}

/**
 * `server__tool_<hash>`, cut to fit. The tool part is what the model reads to choose a tool, so the
 * server part gives way first (down to {@link MIN_SERVER_PART_LENGTH} characters).
 */
function hashedName(address: ToolAddress, hashLength: number): string {
  const server = serverPart(address.server);
  const tool = clean(address.tool);
  const budget = MAX_TOOL_NAME_LENGTH - SEPARATOR.length - 1 - hashLength;
  let serverKeep = server.length;
  let toolKeep = tool.length;
  if (server.length + tool.length > budget) {
    serverKeep = Math.min(server.length, Math.max(MIN_SERVER_PART_LENGTH, budget - tool.length));
    toolKeep = budget - serverKeep;
  }
  return `${server.slice(0, serverKeep)}${SEPARATOR}${tool.slice(0, toolKeep)}_${hashOf(address, hashLength)}`;
}

/**
 * A hashed name can, in theory, equal another tool's plain name (a server can name a tool anything).
 * Such collisions get the longer hash; every name that kept its plain form keeps it.
 */
function resolveRemainingCollisions(
  addresses: readonly ToolAddress[],
  names: string[],
  plain: readonly string[],
): void {
  const counts = new Map<string, number>();
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  names.forEach((name, index) => {
    const address = addresses[index];
    if (address === undefined || (counts.get(name) ?? 0) < 2 || name === plain[index]) return;
    names[index] = hashedName(address, LONG_HASH_LENGTH);
  });
  if (new Set(names).size !== names.length) {
    // Unreachable short of a 64-bit hash collision between distinct addresses.
    throw new Error('internal error: tool names are not unique');
  }
}
