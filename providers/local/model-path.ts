/**
 * Where the file of a `local:` model is. For now only paths to a `.gguf` file are taken; model
 * names (`qwen3-1.7b`, `hf:owner/repo:quant`) and their download come from model-names.ts and
 * model-files.ts (`ensureLocalModelFile`), which replace this function's name branch at the merge.
 */
import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { ConfigError } from '../../src/errors.js';

/**
 * The model used when neither `-m` nor the config names one.
 * TEMPORARY: replaced at the merge by `DEFAULT_LOCAL_MODEL` from model-names.ts (engineer B's
 * table of short names), which also makes the name resolvable (downloaded on first use).
 */
export const DEFAULT_LOCAL_MODEL = 'qwen3-1.7b';

/** Options of {@link resolveLocalModelPath}. */
export interface LocalModelPathOptions {
  /** Relative paths are taken from here (the process's working folder by default). */
  readonly cwd?: string;
  /** For `~/…` (the user's home by default). */
  readonly homeDir?: string;
  /** Where the error is blamed (`--model`, or `~/.mcp.json: model`). */
  readonly source?: string;
}

/** True for what is written as a path rather than a model name. */
export function isModelPath(name: string): boolean {
  return (
    isAbsolute(name) ||
    name.startsWith('./') ||
    name.startsWith('../') ||
    name.startsWith('~/') ||
    name.toLowerCase().endsWith('.gguf')
  );
}

/**
 * The absolute path of an existing model file named by `name` (what follows `local:`).
 * @throws ConfigError when `name` is not a path, or no file is there.
 */
export async function resolveLocalModelPath(
  name: string,
  options: LocalModelPathOptions = {},
): Promise<string> {
  const source = options.source ?? '--model';
  if (!isModelPath(name)) {
    throw new ConfigError(
      source,
      `local model "${name}" is not a path to a .gguf file; this build runs model files only (local:/path/to/model.gguf)`,
    );
  }
  const path = name.startsWith('~/')
    ? join(options.homeDir ?? homedir(), name.slice(2))
    : resolve(options.cwd ?? process.cwd(), name);
  const found = await stat(path).catch(() => undefined);
  if (found === undefined) throw new ConfigError(source, `no model file at ${path}`);
  if (!found.isFile()) throw new ConfigError(source, `${path} is not a file`);
  return path;
}
