/**
 * Confinement of the `fs` server to its allowed directories, by real paths.
 *
 * A path is checked after symbolic links are followed (`realpath`), so that neither `..` nor a
 * link that points elsewhere leads out. A path that does not exist yet (a file to write) is judged
 * by its nearest existing ancestor's real path plus the rest of the path. What remains possible is
 * a race: a link swapped in between the check and the use; the model cannot do that through these
 * tools alone.
 */
import { realpath } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';

/** The allowed directories, by real path. */
export class AllowedPaths {
  readonly directories: readonly string[];

  private constructor(directories: readonly string[]) {
    this.directories = directories;
  }

  /** Resolves each directory (relative ones from `baseDir`) to its real path; each must exist. */
  static async of(directories: readonly string[], baseDir: string): Promise<AllowedPaths> {
    const real = await Promise.all(
      directories.map(async (directory) => {
        const absolute = resolve(baseDir, directory);
        try {
          return await realpath(absolute);
        } catch (error) {
          throw new Error(`allowed directory ${absolute} cannot be used: ${(error as Error).message}`, {
            cause: error,
          });
        }
      }),
    );
    return new AllowedPaths([...new Set(real)]);
  }

  /**
   * The real path `path` names, when it is inside an allowed directory; otherwise an error message
   * for the model. Relative paths are from the first allowed directory.
   */
  async resolve(path: string): Promise<{ readonly path: string } | { readonly error: string }> {
    if (path.includes('\0')) return { error: 'the path contains a NUL character' };
    const [first = '/'] = this.directories;
    const absolute = isAbsolute(path) ? resolve(path) : resolve(first, path);
    const real = await realPathOfPossiblyMissing(absolute);
    if (this.contains(real)) return { path: real };
    const shown = real === absolute ? absolute : `${absolute} (really ${real})`;
    return {
      error: `access denied: ${shown} is outside the allowed directories (${this.directories.join(', ')})`,
    };
  }

  /** True when `realPath` is an allowed directory or inside one. */
  contains(realPath: string): boolean {
    return this.directories.some((directory) => {
      const inside = relative(directory, realPath);
      return inside === '' || (!inside.startsWith(`..${sep}`) && inside !== '..' && !isAbsolute(inside));
    });
  }
}

/** `realpath` of the longest existing prefix, with the missing rest appended. */
async function realPathOfPossiblyMissing(absolute: string): Promise<string> {
  const missing: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      const real = await realpath(current);
      return missing.length === 0 ? real : join(real, ...missing.reverse());
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
      const parent = resolve(current, '..');
      if (parent === current) return absolute;
      missing.push(current.slice(parent.length).replace(/^[/\\]/, ''));
      current = parent;
    }
  }
}
