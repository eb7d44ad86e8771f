/**
 * The pin file: `tool-pins.json` in the user's state folder, one pin per server and tool, each with
 * its hash, when it was pinned, and the pinned definition (to show what changed later).
 *
 * Several mcphost processes may share it (two chats, a chat and `-p` runs): every change is a
 * read-modify-write under a lock across processes (proper-lockfile's atomic `mkdir`, as the sign-in
 * store does), and the file is replaced atomically, so neither a reader nor a crash sees half a file
 * and no process loses another's pins. Keyed by the configured server name, as `mcphost mcp pins`
 * shows it.
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

/** A pin with the server and tool it belongs to. */
export interface ToolPinEntry {
  readonly server: string;
  readonly tool: string;
  readonly pin: ToolPin;
}

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
const fileSchema = z.object({
  version: z.literal(1),
  servers: z.record(z.string(), z.record(z.string(), pinSchema)),
});
type PinFile = z.infer<typeof fileSchema>;

/** The pin file of a user: `$XDG_STATE_HOME/mcphost/tool-pins.json` (else `~/.local/state/…`). */
export function defaultToolPinsPath(
  homeDir: string,
  env: Readonly<Record<string, string | undefined>>,
): string {
  return join(mcphostFolder('state', homeDir, env), 'tool-pins.json');
}

/** The pins of every server, in one file shared by every mcphost process of the user. */
export class ToolPinStore {
  readonly file: string;
  /** Changes by this process, one at a time (the lock is per process: it cannot be taken twice). */
  #last: Promise<unknown> = Promise.resolve();

  constructor(file: string) {
    this.file = file;
  }

  /** Every pin, by server, then tool (names sorted). Throws a ConfigError for a file it cannot read. */
  async list(): Promise<ToolPinEntry[]> {
    const { servers } = await this.#read();
    return Object.keys(servers)
      .sort()
      .flatMap((server) =>
        Object.keys(servers[server] ?? {})
          .sort()
          .map((tool) => ({ server, tool, pin: (servers[server] ?? {})[tool] as ToolPin })),
      );
  }

  /** One tool's pin, if it has one. */
  async get(server: string, tool: string): Promise<ToolPin | undefined> {
    const { servers } = await this.#read();
    return pinOf(servers, server, tool);
  }

  /**
   * Pins each tool that has no pin yet, and resolves to the pin each one has afterwards: its own,
   * or the one another process wrote first (which the caller must compare with).
   */
  pinIfAbsent(entries: readonly ToolPinEntry[]): Promise<ToolPinEntry[]> {
    return this.#update((servers) => {
      const after: ToolPinEntry[] = [];
      for (const { server, tool, pin } of entries) {
        const existing = pinOf(servers, server, tool);
        if (existing === undefined) setPin(servers, server, tool, pin);
        after.push({ server, tool, pin: existing ?? pin });
      }
      return after;
    });
  }

  /** Pins a tool's new definition in place of its old one (a change the user accepted, or `warn`). */
  async replace(entry: ToolPinEntry): Promise<void> {
    await this.#update((servers) => {
      setPin(servers, entry.server, entry.tool, entry.pin);
    });
  }

  /**
   * Removes pins: every pin, a server's, or one tool's. Resolves to those removed (none when there
   * was nothing to remove; the caller says what was not found).
   */
  reset(which: { readonly server?: string; readonly tool?: string } = {}): Promise<ToolPinEntry[]> {
    const goes = (server: string, tool: string) =>
      (which.server === undefined || server === which.server) &&
      (which.tool === undefined || tool === which.tool);
    return this.#update((servers) => {
      const removed: ToolPinEntry[] = [];
      for (const [server, tools] of Object.entries(servers)) {
        const kept: Array<[string, ToolPin]> = [];
        for (const [tool, pin] of Object.entries(tools)) {
          if (goes(server, tool)) removed.push({ server, tool, pin: pin });
          else kept.push([tool, pin]);
        }
        // Replaced whole: fromEntries makes own properties, so a tool named "__proto__" stays a tool.
        Reflect.deleteProperty(servers, server);
        if (kept.length > 0) setPins(servers, server, Object.fromEntries(kept));
      }
      return removed;
    });
  }

  /** Reads the file under the lock, lets `change` edit its servers, and writes it back. */
  #update<T>(change: (servers: PinFile['servers']) => T): Promise<T> {
    const next = this.#last.then(() =>
      this.#locked(async () => {
        const content = await this.#read();
        const result = change(content.servers);
        await this.#write(content);
        return result;
      }),
    );
    this.#last = next.catch(() => undefined);
    return next;
  }

  async #locked<T>(work: () => Promise<T>): Promise<T> {
    try {
      await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
    } catch (error) {
      throw new ConfigError(this.file, `cannot create the folder of the tool pins: ${messageOf(error)}`, {
        cause: error,
      });
    }
    return await withFileLock(this.file, work);
  }

  async #read(): Promise<PinFile> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, servers: {} };
      throw new ConfigError(this.file, `cannot read the tool pins: ${messageOf(error)}`, { cause: error });
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new ConfigError(
        this.file,
        `not JSON (${messageOf(error)}); fix it, or reset the pins with mcphost mcp pins reset`,
        { cause: error },
      );
    }
    const parsed = fileSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue === undefined ? '' : ` at ${issue.path.join('.') || 'the top'}`;
      throw new ConfigError(
        this.file,
        `not a tool pins file${where}: ${issue?.message ?? 'invalid'}; fix it, or reset the pins with mcphost mcp pins reset`,
      );
    }
    return parsed.data;
  }

  async #write(content: PinFile): Promise<void> {
    try {
      await writeFileAtomic(this.file, `${JSON.stringify(content, null, 2)}\n`);
    } catch (error) {
      throw new ConfigError(this.file, `cannot save the tool pins: ${messageOf(error)}`, { cause: error });
    }
  }
}

function pinOf(servers: PinFile['servers'], server: string, tool: string): ToolPin | undefined {
  const tools = Object.hasOwn(servers, server) ? servers[server] : undefined;
  return tools !== undefined && Object.hasOwn(tools, tool) ? tools[tool] : undefined;
}

function setPin(servers: PinFile['servers'], server: string, tool: string, pin: ToolPin): void {
  const tools = Object.hasOwn(servers, server) ? (servers[server] ?? {}) : {};
  // Own properties only: a server or tool named "__proto__" stays a name.
  Object.defineProperty(tools, tool, { value: pin, enumerable: true, writable: true, configurable: true });
  setPins(servers, server, tools);
}

function setPins(servers: PinFile['servers'], server: string, tools: PinFile['servers'][string]): void {
  Object.defineProperty(servers, server, {
    value: tools,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}
