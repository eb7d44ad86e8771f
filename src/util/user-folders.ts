/**
 * mcphost's folders in the user's XDG base directories: state (`$XDG_STATE_HOME/mcphost`, else
 * `~/.local/state/mcphost`: conversations, history, sign-ins, trust, kept permissions, tool output)
 * and cache (`$XDG_CACHE_HOME/mcphost`, else `~/.cache/mcphost`: the executable's code cache).
 * As the XDG spec says, a variable that is unset, empty or a relative path is ignored.
 */
import { isAbsolute, join } from 'node:path';

const BASES = {
  state: { variable: 'XDG_STATE_HOME', underHome: ['.local', 'state'] },
  cache: { variable: 'XDG_CACHE_HOME', underHome: ['.cache'] },
  // Config: the user's local skills (`skills/<name>/SKILL.md`).
  config: { variable: 'XDG_CONFIG_HOME', underHome: ['.config'] },
} as const;

export function mcphostFolder(
  kind: keyof typeof BASES,
  homeDir: string,
  env: Readonly<Record<string, string | undefined>>,
): string {
  const { variable, underHome } = BASES[kind];
  const base = env[variable]?.trim();
  return join(base !== undefined && isAbsolute(base) ? base : join(homeDir, ...underHome), 'mcphost');
}

/** Where `local:` models are downloaded: `<cache>/models` (see providers/local/model-cache.ts). */
export function localModelsFolder(
  homeDir: string,
  env: Readonly<Record<string, string | undefined>>,
): string {
  return join(mcphostFolder('cache', homeDir, env), 'models');
}
