/**
 * The pin file: `tool-pins.json` in the user's state folder, one pin per server and tool, each with
 * its hash, when it was pinned, and the pinned definition (to show what changed later).
 *
 * Several mcphost processes may share it (two chats, a chat and `-p` runs): every change is a
 * read-modify-write under a lock across processes (proper-lockfile's atomic `mkdir`, as the sign-in
 * store does), and the file is replaced atomically, so neither a reader nor a crash sees half a file
 * and no process loses another's pins.
 *
 * Keyed by the server's identity (its command line, or its URL: {@link pinIdentityOf}), not its
 * configured name: two projects' servers named `files` are two servers, and one must not be judged
 * by the other's pins. The name is kept beside the pins, for `mcphost mcp pins` and its `reset`.
 * Version 1 files were keyed by name: their pins are kept under `byName` until a server of that
 * name claims them (the first time it is checked), so users keep the pins they had.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import * as z from 'zod';
import { ConfigError, messageOf } from '../core/errors.js';
import { writeFileAtomic } from '../util/atomic-file.js';
import { mcphostFolder } from '../util/user-folders.js';
import { withFileLock } from '../util/file-lock.js';
import type { PinnedDefinition } from './tool-pins.js';

/** One tool's pin. */
export interface ToolPin {
  /** `sha256:…` of the definition's canonical JSON (tool-pins.ts). */
  readonly hash: string;
  /** When it was pinned, ISO 8601. */
  readonly pinnedAt: string;
  readonly definition: PinnedDefinition;
}

/** Which server and tool a pin is for. */
export interface PinnedTool {
  /** Who the server is ({@link pinIdentityOf}): its command line, or its URL. */
  readonly identity: string;
  /** The server's configured name when it was pinned (what listings show and `reset` takes). */
  readonly server: string;
  readonly tool: string;
}

/** A pin with the server and tool it belongs to. */
export interface ToolPinEntry extends PinnedTool {
  readonly pin: ToolPin;
}

/** A pin as listed: one an older mcphost kept by server name only has no identity yet. */
export type ListedToolPin = Omit<ToolPinEntry, 'identity'> & { readonly identity?: string };

/** The version of the pin file this mcphost writes. */
export const TOOL_PINS_FILE_VERSION = 2;

const jsonObject = z.record(z.string(), z.unknown());
const pinSchema = z.object({
  hash: z.string().regex(/^sha256:[0-9a-f]{64}$/),
  pinnedAt: z.string(),
  // exactOptional: a field the file leaves out is absent, never `undefined` (JSON has none).
  definition: z.object({
    name: z.string(),
    title: z.string().exactOptional(),
    description: z.string().exactOptional(),
    inputSchema: jsonObject,
    outputSchema: jsonObject.exactOptional(),
    annotations: jsonObject.exactOptional(),
  }),
});
const toolPinsSchema = z.record(z.string(), pinSchema);
const fileSchema = z.discriminatedUnion('version', [
  z.object({ version: z.literal(1), servers: z.record(z.string(), toolPinsSchema) }),
  z.object({
    version: z.literal(2),
    servers: z.record(z.string(), z.object({ name: z.string(), tools: toolPinsSchema })),
    byName: z.record(z.string(), toolPinsSchema).exactOptional(),
  }),
]);
type ToolPins = z.infer<typeof toolPinsSchema>;
/** The file as this version keeps it in memory (a version 1 file is read into this shape). */
interface PinFile {
  /** By identity: the server's name and its tools' pins. */
  servers: Record<string, { name: string; tools: ToolPins }>;
  /** Pins of a version 1 file not claimed yet, by server name. */
  byName: Record<string, ToolPins>;
}

/** The pin file of a user: `$XDG_STATE_HOME/mcphost/tool-pins.json` (else `~/.local/state/…`). */
export function defaultToolPinsPath(
  homeDir: string,
  env: Readonly<Record<string, string | undefined>>,
): string {
  return join(mcphostFolder('state', homeDir, env), 'tool-pins.json');
}

/**
 * The pins of every server: in one file shared by every mcphost process of the user, or (with no
 * file) in memory for the life of this object.
 */
export class ToolPinStore {
  /** The pin file; absent for a store kept in memory. */
  readonly file: string | undefined;
  /** Changes by this process, one at a time (the lock is per process: it cannot be taken twice). */
  #last: Promise<unknown> = Promise.resolve();
  /** The content of a store kept in memory, as the file would hold it. */
  #memory = '';

  constructor(file: string | undefined) {
    this.file = file;
  }

  /** Every pin, by server name, then tool. Throws a ConfigError for a file it cannot read. */
  async list(): Promise<ListedToolPin[]> {
    const { servers, byName } = await this.#read();
    const listed: ListedToolPin[] = [
      ...Object.entries(servers).flatMap(([identity, { name, tools }]) =>
        Object.entries(tools).map(([tool, pin]) => ({ identity, server: name, tool, pin })),
      ),
      ...Object.entries(byName).flatMap(([server, tools]) =>
        Object.entries(tools).map(([tool, pin]) => ({ server, tool, pin })),
      ),
    ];
    return listed.sort(
      (one, other) =>
        compare(one.server, other.server) ||
        compare(one.identity ?? '', other.identity ?? '') ||
        compare(one.tool, other.tool),
    );
  }

  /** One tool's pin, if it has one (an unclaimed pin kept by name is not looked at). */
  async get(which: Omit<PinnedTool, 'server'>): Promise<ToolPin | undefined> {
    const { servers } = await this.#read();
    return pinOf(servers, which);
  }

  /**
   * The pins of these tools, by `identity` and tool ({@link pinKey}). A tool without a pin of its
   * server's identity takes over the pin a version 1 file kept under its server's name (once: the
   * file then keeps it by identity), so that an upgrade loses no pin.
   */
  async pinsOf(tools: readonly PinnedTool[]): Promise<ReadonlyMap<string, ToolPin>> {
    const claimable = (content: PinFile) =>
      tools.filter((which) => pinOf(content.servers, which) === undefined && legacyPinOf(content, which));
    const found = (content: PinFile) =>
      new Map(
        tools.flatMap((which) => {
          const pin = pinOf(content.servers, which);
          return pin === undefined ? [] : [[pinKey(which), pin] as const];
        }),
      );
    const content = await this.#read();
    if (claimable(content).length === 0) return found(content);
    return this.#update((latest) => {
      for (const which of claimable(latest)) {
        const pin = legacyPinOf(latest, which);
        if (pin === undefined) continue;
        setPin(latest, which, pin);
        removePin(latest.byName, which.server, ownValue(latest.byName, which.server), which.tool);
      }
      return found(latest);
    });
  }

  /**
   * Pins each tool that has no pin yet, and resolves to the pin each one has afterwards: its own,
   * or the one another process wrote first (which the caller must compare with).
   */
  pinIfAbsent(entries: readonly ToolPinEntry[]): Promise<ToolPinEntry[]> {
    return this.#update((content) =>
      entries.map((entry) => {
        const existing = pinOf(content.servers, entry);
        if (existing === undefined) setPin(content, entry, entry.pin);
        return { ...entry, pin: existing ?? entry.pin };
      }),
    );
  }

  /** Pins a tool's new definition in place of its old one (a change the user accepted, or `warn`). */
  async replace(entry: ToolPinEntry): Promise<void> {
    await this.#update((content) => {
      setPin(content, entry, entry.pin);
      // A pin still kept by name from an older file is the old one this replaces.
      removePin(content.byName, entry.server, ownValue(content.byName, entry.server), entry.tool);
    });
  }

  /**
   * Removes pins: every pin, those of the servers of a name, or one tool's. Resolves to those
   * removed (none when there was nothing to remove; the caller says what was not found).
   */
  reset(which: { readonly server?: string; readonly tool?: string } = {}): Promise<ListedToolPin[]> {
    const goes = (server: string, tool: string) =>
      (which.server === undefined || server === which.server) &&
      (which.tool === undefined || tool === which.tool);
    return this.#update((content) => {
      const removed: ListedToolPin[] = [];
      for (const [identity, { name, tools }] of Object.entries(content.servers)) {
        for (const [tool, pin] of Object.entries(tools)) {
          if (!goes(name, tool)) continue;
          removed.push({ identity, server: name, tool, pin });
          removePin(content.servers, identity, tools, tool);
        }
      }
      for (const [server, tools] of Object.entries(content.byName)) {
        for (const [tool, pin] of Object.entries(tools)) {
          if (!goes(server, tool)) continue;
          removed.push({ server, tool, pin });
          removePin(content.byName, server, tools, tool);
        }
      }
      return removed;
    });
  }

  /** Reads the file under the lock, lets `change` edit it, and writes it back. */
  #update<T>(change: (content: PinFile) => T): Promise<T> {
    const next = this.#last.then(() =>
      this.#locked(async () => {
        const content = await this.#read();
        const result = change(content);
        await this.#write(content);
        return result;
      }),
    );
    this.#last = next.catch(() => undefined);
    return next;
  }

  async #locked<T>(work: () => Promise<T>): Promise<T> {
    const { file } = this;
    if (file === undefined) return await work();
    try {
      await mkdir(dirname(file), { recursive: true, mode: 0o700 });
    } catch (error) {
      throw new ConfigError(file, `cannot create the folder of the tool pins: ${messageOf(error)}`, {
        cause: error,
      });
    }
    return await withFileLock(file, work);
  }

  async #read(): Promise<PinFile> {
    const { file } = this;
    let text: string;
    try {
      text = file === undefined ? this.#memory : await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return emptyPinFile();
      throw new ConfigError(file ?? '', `cannot read the tool pins: ${messageOf(error)}`, { cause: error });
    }
    // A store in memory starts empty; an empty file is not a pin file (it is reported).
    return file === undefined && text === '' ? emptyPinFile() : parsePinFile(text, file ?? 'tool pins');
  }

  async #write(content: PinFile): Promise<void> {
    const text = `${JSON.stringify(
      {
        version: TOOL_PINS_FILE_VERSION,
        servers: content.servers,
        ...(Object.keys(content.byName).length === 0 ? {} : { byName: content.byName }),
      },
      null,
      2,
    )}\n`;
    if (this.file === undefined) {
      this.#memory = text;
      return;
    }
    try {
      await writeFileAtomic(this.file, text);
    } catch (error) {
      throw new ConfigError(this.file, `cannot save the tool pins: ${messageOf(error)}`, { cause: error });
    }
  }
}

/** The key of a tool's pin in {@link ToolPinStore.pinsOf}'s answer. */
export function pinKey(which: Omit<PinnedTool, 'server'>): string {
  return `${which.identity}\0${which.tool}`;
}

function emptyPinFile(): PinFile {
  return { servers: {}, byName: {} };
}

function parsePinFile(text: string, file: string): PinFile {
  const fix = 'fix it, or reset the pins with mcphost mcp pins reset';
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(file, `not JSON (${messageOf(error)}); ${fix}`, { cause: error });
  }
  const version = (json as { version?: unknown } | null)?.version;
  if (typeof version === 'number' && version > TOOL_PINS_FILE_VERSION) {
    throw new ConfigError(
      file,
      `tool pins of version ${version}, written by a newer mcphost; this one reads versions up to ${TOOL_PINS_FILE_VERSION} (upgrade mcphost)`,
    );
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined ? '' : ` at ${issue.path.join('.') || 'the top'}`;
    throw new ConfigError(file, `not a tool pins file${where}: ${issue?.message ?? 'invalid'}; ${fix}`);
  }
  const content = parsed.data;
  return content.version === 1
    ? { servers: {}, byName: content.servers }
    : { servers: content.servers, byName: content.byName ?? {} };
}

function compare(one: string, other: string): number {
  return one < other ? -1 : one > other ? 1 : 0;
}

function ownValue<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

function pinOf(servers: PinFile['servers'], which: Omit<PinnedTool, 'server'>): ToolPin | undefined {
  const tools = ownValue(servers, which.identity)?.tools;
  return tools === undefined ? undefined : ownValue(tools, which.tool);
}

function legacyPinOf(content: PinFile, which: PinnedTool): ToolPin | undefined {
  const tools = ownValue(content.byName, which.server);
  return tools === undefined ? undefined : ownValue(tools, which.tool);
}

function setPin(content: PinFile, which: PinnedTool, pin: ToolPin): void {
  const known = ownValue(content.servers, which.identity);
  const tools = known?.tools ?? {};
  // Own properties only: a server or tool named "__proto__" stays a name.
  defineOwn(tools, which.tool, pin);
  // The name it has now: a server renamed in the config is listed under its new name.
  defineOwn(content.servers, which.identity, { name: which.server, tools });
}

/** Removes one tool's pin from a server's `tools`, and the server (`key` of `record`) once it has none. */
function removePin(
  record: Record<string, unknown>,
  key: string,
  tools: ToolPins | undefined,
  tool: string,
): void {
  if (tools === undefined) return;
  Reflect.deleteProperty(tools, tool);
  if (Object.keys(tools).length === 0) Reflect.deleteProperty(record, key);
}

function defineOwn<T>(record: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}
