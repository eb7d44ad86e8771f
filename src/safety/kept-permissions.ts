/**
 * "Always allow" answers kept for a project folder across runs. They live in the user's state
 * folder (`permissions.json`), keyed by the folder's real path — never in the project itself, so a
 * repository cannot grant itself anything. The file is written atomically with mode 0600.
 *
 * A kept answer only stands in for the user's answer to an `ask`: a deny rule is decided before
 * any question, and a rule set marked `alwaysAsk` (the built-in bash server's) is never lifted by
 * it (see guarded-tool-host.ts).
 */
import { mkdir, readFile, realpath } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import * as z from 'zod';
import { writeFileAtomic } from '../util/atomic-file.js';
import { ConfigError, messageOf } from '../core/errors.js';

/** One kept answer: every tool of a server, or one tool of it (by its name on the server). */
export type KeptPermission =
  | { readonly kind: 'server'; readonly server: string; readonly keptAt: string }
  | { readonly kind: 'tool'; readonly server: string; readonly tool: string; readonly keptAt: string };

const keptSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('server'), server: z.string().min(1), keptAt: z.string() }),
  z.object({
    kind: z.literal('tool'),
    server: z.string().min(1),
    tool: z.string().min(1),
    keptAt: z.string(),
  }),
]);
const fileSchema = z.object({
  version: z.literal(1),
  projects: z.record(z.string(), z.array(keptSchema)),
});
type PermissionsFile = z.infer<typeof fileSchema>;

/** Options of {@link KeptPermissions.open}. */
export interface KeptPermissionsOptions {
  /** The store, e.g. `~/.local/state/mcphost/permissions.json`. */
  readonly file: string;
  /** The project folder; its real path (symbolic links resolved) is the key. */
  readonly projectDir: string;
  /** The clock, for `keptAt`. Default `Date.now`. */
  readonly now?: () => number;
}

/** The kept answers of one project folder. */
export class KeptPermissions {
  readonly file: string;
  /** The project folder's real path. */
  readonly project: string;
  readonly #now: () => number;
  #kept: readonly KeptPermission[];

  private constructor(file: string, project: string, now: () => number, kept: readonly KeptPermission[]) {
    this.file = file;
    this.project = project;
    this.#now = now;
    this.#kept = kept;
  }

  /** Reads the store; a missing file keeps nothing. Throws a ConfigError for a file it cannot read. */
  static async open(options: KeptPermissionsOptions): Promise<KeptPermissions> {
    const project = await realpath(options.projectDir).catch(() => resolve(options.projectDir));
    const stored = await readStore(options.file);
    return new KeptPermissions(
      options.file,
      project,
      options.now ?? Date.now,
      stored.projects[project] ?? [],
    );
  }

  /** This folder's kept answers, oldest first. */
  list(): readonly KeptPermission[] {
    return this.#kept;
  }

  /** True when a kept answer allows `tool` of `server`. */
  covers(server: string, tool: string): boolean {
    return this.#kept.some(
      (kept) => kept.server === server && (kept.kind === 'server' || kept.tool === tool),
    );
  }

  /** Keeps an answer for this folder (once: an answer already covered is not added again). */
  async keep(permission: { readonly server: string; readonly tool?: string }): Promise<void> {
    const { server, tool } = permission;
    if (
      tool === undefined
        ? this.#kept.some((kept) => kept.kind === 'server' && kept.server === server)
        : this.covers(server, tool)
    ) {
      return;
    }
    const keptAt = new Date(this.#now()).toISOString();
    const entry: KeptPermission =
      tool === undefined ? { kind: 'server', server, keptAt } : { kind: 'tool', server, tool, keptAt };
    await this.#update((kept) => [...kept, entry]);
  }

  /** Removes the `index`-th kept answer (from 0, as {@link list} gives them), or all. Resolves to how many went. */
  async remove(which: { readonly index: number } | 'all'): Promise<number> {
    const before = this.#kept.length;
    if (which !== 'all' && (which.index < 0 || which.index >= before)) {
      throw new RangeError(`there is no kept permission ${which.index + 1}: give 1-${before}`);
    }
    const target = which === 'all' ? undefined : this.#kept[which.index];
    await this.#update((kept) => (target === undefined ? [] : kept.filter((entry) => !same(entry, target))));
    return before - this.#kept.length;
  }

  /** Reads the store again right before writing (another mcphost may have changed it), then writes it. */
  async #update(change: (kept: readonly KeptPermission[]) => readonly KeptPermission[]): Promise<void> {
    const stored = await readStore(this.file);
    const next = change(stored.projects[this.project] ?? []);
    const projects: PermissionsFile['projects'] = Object.fromEntries(
      Object.entries(stored.projects).filter(([project]) => project !== this.project),
    );
    if (next.length > 0) projects[this.project] = [...next];
    const content: PermissionsFile = { version: 1, projects };
    try {
      await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
      // A new file is created 0600 (atomic-file.ts): it says what may run on this machine.
      await writeFileAtomic(this.file, `${JSON.stringify(content, null, 2)}\n`);
    } catch (error) {
      throw new ConfigError(this.file, `cannot save the kept permissions: ${messageOf(error)}`, {
        cause: error,
      });
    }
    this.#kept = next;
  }
}

function same(a: KeptPermission, b: KeptPermission): boolean {
  return (
    a.kind === b.kind &&
    a.server === b.server &&
    (a.kind === 'server' || (b.kind === 'tool' && a.tool === b.tool))
  );
}

async function readStore(file: string): Promise<PermissionsFile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, projects: {} };
    throw new ConfigError(file, `cannot read the kept permissions: ${messageOf(error)}`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(file, `not JSON (${messageOf(error)}); fix or delete it`, { cause: error });
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined ? '' : ` at ${issue.path.join('.') || 'the top'}`;
    throw new ConfigError(
      file,
      `not a kept-permissions file${where}: ${issue?.message ?? 'invalid'}; fix or delete it`,
    );
  }
  return parsed.data;
}
