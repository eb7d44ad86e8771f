/**
 * Roots: the folders servers may work in (`roots/list`). The folder mcphost runs in is the default;
 * `--root DIR`, the config's `roots` and `runner.setRoots()` replace it. Servers that asked for the
 * list are told when it changes (`notifications/roots/list_changed`), and ask again.
 */
import { stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError } from '../core/errors.js';
import type { Root } from './client-features.js';

/** The session's roots: absolute folder paths, in the order given. */
export class RootList {
  #directories: readonly string[];

  constructor(directories: readonly string[]) {
    this.#directories = [...directories];
  }

  get directories(): readonly string[] {
    return this.#directories;
  }

  /** Replaces the list; true when it changed. */
  set(directories: readonly string[]): boolean {
    const changed =
      directories.length !== this.#directories.length ||
      directories.some((directory, index) => directory !== this.#directories[index]);
    this.#directories = [...directories];
    return changed;
  }

  /** The list as `roots/list` answers it: `file://` URIs named by their last segment. */
  toRoots(): Root[] {
    return this.#directories.map((directory) => ({
      uri: pathToFileURL(directory).href,
      name: basename(directory) || directory,
    }));
  }
}

/**
 * Each folder resolved against `base` and checked to be a directory, duplicates dropped. A missing
 * one is a ConfigError naming `source` (the flag, the config file's `roots`, the option).
 */
export async function checkRootDirectories(
  directories: readonly string[],
  base: string,
  source: string,
): Promise<string[]> {
  const checked: string[] = [];
  for (const directory of directories) {
    const absolute = resolve(base, directory);
    const isDirectory = await stat(absolute).then(
      (info) => info.isDirectory(),
      () => false,
    );
    if (!isDirectory) throw new ConfigError(source, `"${directory}" is not a directory`);
    if (!checked.includes(absolute)) checked.push(absolute);
  }
  return checked;
}
