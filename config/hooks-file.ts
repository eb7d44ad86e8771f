/**
 * The Go mcphost's own hooks files, `$XDG_CONFIG_HOME/mcphost/hooks.json` and `hooks.yml`
 * (`~/.config/mcphost/…` by default): `{ "hooks": { … } }` in the same format as the `hooks` key of
 * the config file. Read so that hooks written for the Go mcphost keep working; both files are the
 * user's own, like the home config. (The Go mcphost's per-project `.mcphost/hooks.yml` is not
 * read: a repository's file would run commands without the user having trusted it.)
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import * as z from 'zod';
import type { HooksConfig } from '../src/safety/hooks.js';
import { ConfigError, messageOf } from '../src/core/errors.js';
import type { ConfigEnvironment } from './parse.js';
import { parseConfigText, syntaxOfPath } from './parse-text.js';
import { problemsFromError, throwIfProblems } from './problems.js';
import { hooksSchema } from './safety-schema.js';
import { hooksConfig, mergeHooks } from './safety-settings.js';

/** The names looked for, all of them read (in this order) when present. */
export const HOOKS_FILE_NAMES = ['hooks.json', 'hooks.yml', 'hooks.yaml'] as const;

const hooksFileSchema = z.looseObject({ hooks: hooksSchema.nullish() });

/** The folder of the Go mcphost's hooks files. */
export function hooksFileFolder(homeDir: string, env: ConfigEnvironment): string {
  const configHome = env.XDG_CONFIG_HOME?.trim();
  const base = configHome !== undefined && configHome !== '' ? configHome : join(homeDir, '.config');
  return join(resolve(base), 'mcphost');
}

/** The hooks of every hooks file present, merged; `undefined` when there are none. */
export async function loadHooksFiles(
  homeDir: string,
  env: ConfigEnvironment,
): Promise<HooksConfig | undefined> {
  const folder = hooksFileFolder(homeDir, env);
  let merged: HooksConfig | undefined;
  for (const name of HOOKS_FILE_NAMES) {
    const path = join(folder, name);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') continue;
      throw new ConfigError(path, `cannot read it: ${messageOf(error)}`);
    }
    const parsed = parseConfigText(text, path, syntaxOfPath(path));
    if (parsed.empty) continue;
    const checked = hooksFileSchema.safeParse(parsed.value, { reportInput: true });
    if (!checked.success) throwIfProblems(path, problemsFromError(checked.error));
    else merged = mergeHooks(merged, hooksConfig(checked.data.hooks ?? undefined));
  }
  return merged;
}
