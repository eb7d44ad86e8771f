import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ConfigError } from '../errors.js';

/**
 * A system prompt is text, or the path of a file holding it when such a file exists (relative
 * paths from `base`: the working directory for the flag, the config file's folder for the config).
 */
export async function readSystemPrompt(value: string | undefined, base: string): Promise<string | undefined> {
  if (value === undefined) return undefined;
  const path = resolve(base, value);
  const isFile = await stat(path).then(
    (info) => info.isFile(),
    () => false,
  );
  if (!isFile) return value;
  return readFile(path, 'utf8').catch((error: unknown) => {
    throw new ConfigError(path, `cannot read the system prompt file: ${String(error)}`);
  });
}
