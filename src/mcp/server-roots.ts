/**
 * Which folders each server is offered as its roots. server-filesystem, for one, replaces the
 * folders of its arguments with the roots it is given: offering every server the working folder
 * took a configured `~/notes` away ("Access denied - path outside allowed directories", issue 26).
 * So a server that names its own folders keeps them, and the working folder goes only to servers
 * that have none. The rule, decided when mcphost starts, first match wins:
 *
 * 1. the server entry's own `roots`: `false` none (no capability), a list those folders, `true`
 *    the shared roots;
 * 2. when `--root DIR`, the config's top-level `roots` or the library's `roots` option is given: the
 *    shared roots, which are those folders;
 * 3. the folders the server's arguments name (an argument that is an existing directory, written as
 *    a path: absolute, `~`, `~/…`, `.`, `./…`, `..`, `../…`); the built-in `fs` server's own folders;
 * 4. the shared roots, which are the working folder.
 *
 * `/roots add|remove` and `runner.setRoots()` change the shared roots, and so the servers of 2 and 4.
 */
import { stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { Root } from './client-features.js';
import type { ServerDefinition } from './definition.js';
import { checkRootDirectories, RootList } from './roots.js';

/** Where one server's roots come from. A tagged union: switch on `kind`. */
export type ServerRootsSource =
  /** `"roots": false`: the server is not offered roots. */
  | { readonly kind: 'off' }
  /** The server entry's own `roots` list. */
  | { readonly kind: 'entry'; readonly directories: readonly string[] }
  /** Folders the server names itself: in its arguments, or the built-in fs server's options. */
  | { readonly kind: 'own'; readonly directories: readonly string[]; readonly where: string }
  /** The shared roots: the working folder, or the `--root` / `roots` given. */
  | { readonly kind: 'shared' };

/** The shared roots and where each server's roots come from. */
export class ServerRoots {
  /** The shared roots (`--root`, the config's `roots`, else the working folder). */
  readonly shared: RootList;
  readonly #sources: ReadonlyMap<string, ServerRootsSource>;
  /** True once the shared roots are not the working folder by default (given, or changed). */
  #sharedGiven: boolean;

  constructor(options: {
    readonly shared: RootList;
    readonly sharedGiven: boolean;
    readonly sources?: ReadonlyMap<string, ServerRootsSource>;
  }) {
    this.shared = options.shared;
    this.#sharedGiven = options.sharedGiven;
    this.#sources = options.sources ?? new Map();
  }

  /** Where `server`'s roots come from (the shared roots for a server not planned). */
  sourceOf(server: string): ServerRootsSource {
    return this.#sources.get(server) ?? { kind: 'shared' };
  }

  /** The folders `server` is offered; `undefined` when it is offered none. */
  directoriesOf(server: string): readonly string[] | undefined {
    const source = this.sourceOf(server);
    switch (source.kind) {
      case 'off':
        return undefined;
      case 'entry':
      case 'own':
        return source.directories;
      case 'shared':
        return this.shared.directories;
      default: {
        const unexpected: never = source;
        throw new TypeError(`unknown roots source ${JSON.stringify(unexpected)}`);
      }
    }
  }

  /** `server`'s roots as `roots/list` answers them. */
  toRoots(server: string): Root[] {
    return new RootList(this.directoriesOf(server) ?? []).toRoots();
  }

  /** True for the servers that follow the shared roots (they are told when these change). */
  followsShared(server: string): boolean {
    return this.sourceOf(server).kind === 'shared';
  }

  /** Replaces the shared roots; true when they changed. */
  setShared(directories: readonly string[]): boolean {
    const changed = this.shared.set(directories);
    if (changed) this.#sharedGiven = true;
    return changed;
  }

  /** `server`'s roots and where they come from, in one line (`/servers`, `mcp get`). */
  describe(server: string): string {
    const source = this.sourceOf(server);
    const folders = (directories: readonly string[]): string =>
      directories.length === 0 ? '(none)' : directories.join(', ');
    switch (source.kind) {
      case 'off':
        return 'none ("roots": false)';
      case 'entry':
        return `${folders(source.directories)} (its "roots")`;
      case 'own':
        return `${folders(source.directories)} (${source.where})`;
      case 'shared':
        return `${folders(this.shared.directories)} (${this.#sharedGiven ? 'the shared roots: --root, "roots" or /roots' : 'the working folder'})`;
      default: {
        const unexpected: never = source;
        throw new TypeError(`unknown roots source ${JSON.stringify(unexpected)}`);
      }
    }
  }
}

/** An argument written as a path (not a word such as `stdio`, which may happen to name a folder). */
function looksLikePath(argument: string): boolean {
  return (
    isAbsolute(argument) ||
    argument === '~' ||
    argument === '.' ||
    argument === '..' ||
    /^(~|\.|\.\.)\//.test(argument)
  );
}

/** The existing directories among `args`, absolute, in order, without duplicates. */
export async function directoriesInArguments(
  args: readonly string[],
  base: string,
  homeDir: string,
): Promise<string[]> {
  const candidates = args.filter(looksLikePath).map((argument) => {
    if (argument === '~') return resolve(homeDir);
    if (argument.startsWith('~/')) return resolve(homeDir, argument.slice(2));
    return resolve(base, argument);
  });
  const found = await Promise.all(
    candidates.map((path) =>
      stat(path).then(
        (info) => (info.isDirectory() ? path : undefined),
        () => undefined,
      ),
    ),
  );
  return [...new Set(found.filter((path): path is string => path !== undefined))];
}

/** Where one server's roots come from, by the rule of the module comment. */
async function sourceFor(
  name: string,
  definition: ServerDefinition,
  context: PlanContext,
): Promise<ServerRootsSource> {
  const { roots } = definition;
  if (roots === false) return { kind: 'off' };
  if (roots === true) return { kind: 'shared' };
  if (roots !== undefined) {
    const source = `${context.configLabel}: mcpServers.${name}.roots`;
    return { kind: 'entry', directories: await checkRootDirectories(roots, context.projectDir, source) };
  }
  if (context.sharedGiven) return { kind: 'shared' };
  switch (definition.transport) {
    case 'stdio': {
      const base =
        definition.cwd === undefined ? context.serverCwd : resolve(context.serverCwd, definition.cwd);
      const directories = await directoriesInArguments(definition.args, base, context.homeDir);
      return directories.length === 0
        ? { kind: 'shared' }
        : { kind: 'own', directories, where: 'named in its arguments' };
    }
    case 'builtin':
      if (definition.builtin.name !== 'fs') return { kind: 'shared' };
      // The built-in fs server works in its allowedDirectories, else in the folder mcphost runs in.
      return {
        kind: 'own',
        directories: (definition.builtin.options.allowedDirectories ?? ['.']).map((directory) =>
          resolve(context.serverCwd, directory),
        ),
        where: 'the built-in fs folders',
      };
    case 'http':
    case 'sse':
      return { kind: 'shared' };
    default: {
      const unexpected: never = definition;
      throw new TypeError(`unknown server ${JSON.stringify(unexpected)}`);
    }
  }
}

interface PlanContext {
  readonly sharedGiven: boolean;
  /** Relative `roots` of a server entry start here. */
  readonly projectDir: string;
  /** Where servers run (relative arguments start here, or from their `cwd`). */
  readonly serverCwd: string;
  readonly homeDir: string;
  /** Names the config in errors (`~/.mcp.json`). */
  readonly configLabel: string;
}

/**
 * The roots of a runner's servers. `shared` is the folders given (`--root`, `roots`), or
 * `undefined` for the working folder (`projectDir`). A server's `roots` folder that does not exist
 * is a ConfigError naming the server.
 */
export async function planServerRoots(options: {
  readonly servers: Readonly<Record<string, ServerDefinition>>;
  readonly shared: readonly string[] | undefined;
  readonly projectDir: string;
  readonly homeDir: string;
  readonly configLabel: string;
  /** Default `process.cwd()`, where the pool starts servers. */
  readonly serverCwd?: string;
}): Promise<ServerRoots> {
  const context: PlanContext = {
    sharedGiven: options.shared !== undefined,
    projectDir: options.projectDir,
    serverCwd: options.serverCwd ?? process.cwd(),
    homeDir: options.homeDir,
    configLabel: options.configLabel,
  };
  const entries = await Promise.all(
    Object.entries(options.servers).map(
      async ([name, definition]) => [name, await sourceFor(name, definition, context)] as const,
    ),
  );
  return new ServerRoots({
    shared: new RootList(options.shared ?? [options.projectDir]),
    sharedGiven: context.sharedGiven,
    sources: new Map(entries),
  });
}
