/**
 * The built-in servers' names, without their option schemas: the command line checks `--builtin`
 * with this alone, so `mcphost --help` does not load zod.
 */
import { ConfigError } from '../core/errors.js';

/** The built-in servers, by the name a config entry gives in `"name"`. */
export const BUILTIN_SERVER_NAMES = ['fs', 'bash', 'todo', 'fetch'] as const;

/** One built-in server's name. */
export type BuiltinServerName = (typeof BUILTIN_SERVER_NAMES)[number];

/** Other spellings of the same servers: the Go mcphost calls its fetch server `http`. */
const BUILTIN_SERVER_ALIASES: Readonly<Record<string, BuiltinServerName>> = {
  http: 'fetch',
  filesystem: 'fs',
  shell: 'bash',
};

/** The built-in server a name stands for, or undefined for a name that is none. */
export function builtinServerNamed(name: string): BuiltinServerName | undefined {
  const known = BUILTIN_SERVER_NAMES.find((candidate) => candidate === name);
  return known ?? (Object.hasOwn(BUILTIN_SERVER_ALIASES, name) ? BUILTIN_SERVER_ALIASES[name] : undefined);
}

/** `["fs,todo", "bash"]` → the built-in servers named, each once; throws naming `source` for an unknown name. */
export function parseBuiltinNames(values: readonly string[], source = '--builtin'): BuiltinServerName[] {
  const names = values.flatMap((value) => value.split(',')).map((name) => name.trim());
  const parsed = names.map((name) => {
    const known = builtinServerNamed(name);
    if (known === undefined) {
      const shown = name === '' ? 'an empty name' : `"${name}"`;
      throw new ConfigError(source, `${shown} is not a built-in server (${BUILTIN_SERVER_NAMES.join(', ')})`);
    }
    return known;
  });
  return [...new Set(parsed)];
}
