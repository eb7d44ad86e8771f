/**
 * Editing the `mcpServers` of a JSON config file in place, for `mcphost mcp add|add-json|remove`.
 *
 * jsonc-parser computes the smallest text edits for a change, so the rest of the file (its
 * indentation, key order, other tools' keys) stays exactly as the user wrote it. A file that does not
 * parse is never touched: rewriting it would lose whatever the user meant. Writes are atomic.
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { applyEdits, modify, parse, type FormattingOptions } from 'jsonc-parser';
import { writeFileAtomic } from '../src/util/atomic-file.js';
import { ConfigError, messageOf } from '../src/core/errors.js';
import { findJsonSyntaxProblem } from './json-syntax.js';
import { CONFIG_FILE_NAMES, findConfigFile } from './load.js';
import { parseConfig, type ConfigEnvironment } from './parse.js';
import { isPlainObject } from './server-form.js';

/** `user`: the config file in the home folder; `project`: `.mcp.json` in the project folder. */
export type ConfigScope = 'user' | 'project';

/** Where a server is added to or removed from. */
export interface ServerFileTarget {
  /** `--config FILE`, when given: it wins over the scope. */
  readonly configPath?: string;
  readonly scope: ConfigScope;
  readonly homeDir: string;
  readonly projectDir: string;
}

/** The file `mcp add|remove` edits: `--config`, else the first existing config file of the scope. */
export async function serverFilePath(target: ServerFileTarget): Promise<string> {
  if (target.configPath !== undefined) return resolve(target.projectDir, target.configPath);
  const folder = target.scope === 'user' ? target.homeDir : target.projectDir;
  const found = await findConfigFile(folder);
  return found?.path ?? join(resolve(folder), CONFIG_FILE_NAMES[0]);
}

/** The text of a config file we may edit ('' when it does not exist yet), checked to be JSON. */
async function editableText(path: string): Promise<string> {
  if (!/\.json$/i.test(path)) {
    throw new ConfigError(
      path,
      'only JSON config files can be edited by mcphost mcp (edit this one by hand)',
    );
  }
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw new ConfigError(path, `cannot read it: ${messageOf(error)}`, { cause: error });
  }
  if (text.trim() === '') return '';
  const problem = findJsonSyntaxProblem(text.replace(/^\uFEFF/, ''));
  if (problem !== undefined) {
    throw new ConfigError(
      path,
      `invalid JSON at line ${problem.line}, column ${problem.column}: ${problem.reason}; not changing it`,
    );
  }
  if (!isPlainObject(JSON.parse(text.replace(/^\uFEFF/, '')))) {
    throw new ConfigError(path, 'expected a JSON object at the top; not changing it');
  }
  return text;
}

/** The file's own indentation (two spaces when it has none yet), so an edit looks like the rest. */
function formattingOf(text: string): FormattingOptions {
  const indent = /^([ \t]+)"/m.exec(text)?.[1] ?? '  ';
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  return indent.startsWith('\t')
    ? { insertSpaces: false, tabSize: 1, eol }
    : { insertSpaces: true, tabSize: indent.length, eol };
}

function serversOf(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  const value = parse(text) as Record<string, unknown>;
  return isPlainObject(value.mcpServers) ? value.mcpServers : {};
}

/**
 * Adds server `name` with `entry` to the file at `path` (made when missing). The entry is checked
 * with the config's own rules first. Throws a ConfigError when the name is taken, the entry is
 * invalid or the file cannot be parsed or written.
 */
export async function addServerToFile(
  path: string,
  name: string,
  entry: Readonly<Record<string, unknown>>,
  env: ConfigEnvironment,
): Promise<void> {
  // The same checks as at start-up, so `mcp add` cannot write a server mcphost would then refuse.
  parseConfig({ mcpServers: { [name]: entry } }, `server "${name}"`, env);
  const text = await editableText(path);
  if (Object.hasOwn(serversOf(text), name)) {
    throw new ConfigError(
      path,
      `a server named "${name}" is already there (mcphost mcp remove ${name} first)`,
    );
  }
  const base = text.trim() === '' ? '{}\n' : text;
  const edits = modify(base, ['mcpServers', name], entry, { formattingOptions: formattingOf(base) });
  await writeFileAtomic(path, applyEdits(base, edits));
}

/** Removes server `name` from the file at `path`. Throws a ConfigError when it is not there. */
export async function removeServerFromFile(path: string, name: string): Promise<void> {
  const text = await editableText(path);
  if (!Object.hasOwn(serversOf(text), name)) {
    throw new ConfigError(path, `no server named "${name}" there`);
  }
  const edits = modify(text, ['mcpServers', name], undefined, { formattingOptions: formattingOf(text) });
  await writeFileAtomic(path, applyEdits(text, edits));
}
