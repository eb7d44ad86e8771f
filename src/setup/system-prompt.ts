import { readFile, stat } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { ConfigError, messageOf } from '../core/errors.js';

/** Extensions that say "this is a file name", so a missing file is a mistake rather than a prompt. */
const PROMPT_FILE_EXTENSIONS = new Set(['.md', '.txt', '.prompt', '.markdown']);

/**
 * A system prompt is text, or the path of a file holding it when such a file exists (relative
 * paths from `base`: the working directory for the flag, the config file's folder for the config).
 * A value that can only be a file name (one word ending in `.md`, `.txt`…, or starting with `./`,
 * `../` or `/`) must exist: a typo must not silently become the prompt. `source` names the flag or
 * file for that error.
 */
export async function readSystemPrompt(
  value: string | undefined,
  base: string,
  source = '--system-prompt',
): Promise<string | undefined> {
  if (value === undefined) return undefined;
  const path = resolve(base, value);
  const kind = await stat(path).then(
    (info) => (info.isFile() ? 'file' : info.isDirectory() ? 'directory' : 'other'),
    () => 'missing' as const,
  );
  if (kind === 'directory') throw new ConfigError(source, `${path} is a directory, not a file`);
  if (kind !== 'file') {
    if (looksLikeAPath(value)) throw new ConfigError(source, `no such file: ${path}`);
    return value;
  }
  const bytes = await readFile(path).catch((error: unknown) => {
    throw new ConfigError(path, `cannot read the system prompt file: ${messageOf(error)}`);
  });
  try {
    // Fatal decoding: a binary or Latin-1 file must not reach the model as replacement characters.
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, '');
  } catch {
    throw new ConfigError(source, `${path} is not UTF-8 text`);
  }
}

function looksLikeAPath(value: string): boolean {
  if (/\s/.test(value)) return false;
  return /^(\.{1,2}\/|\/|~\/)/.test(value) || PROMPT_FILE_EXTENSIONS.has(extname(value).toLowerCase());
}
