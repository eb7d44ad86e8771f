/**
 * Editing the servers of a JSON config file in place, for `mcphost mcp add|add-json|remove`: its
 * `mcpServers`, or its `servers` when the file is in VS Code's form (`.vscode/mcp.json`, the user's
 * VS Code `mcp.json`, or any file that has `servers` and no `mcpServers`).
 *
 * jsonc-parser computes the smallest text edits for a change, so the rest of the file (its
 * indentation, key order, other tools' keys) stays exactly as the user wrote it. A file that does not
 * parse is never touched: rewriting it would lose whatever the user meant. Writes are atomic.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { applyEdits, modify, parse, type FormattingOptions } from 'jsonc-parser';
import { writeFileAtomic } from '../src/util/atomic-file.js';
import { ConfigError, messageOf } from '../src/core/errors.js';
import { findJsonSyntaxProblem } from './json-syntax.js';
import { CONFIG_FILE_NAMES, findConfigFile } from './load.js';
import { parseConfig, type ConfigEnvironment } from './parse.js';
import { isPlainObject } from './server-form.js';
import { VSCODE_PROJECT_FILE, vsCodeUserFile } from './vscode-files.js';
import { fromVsCodeForm, isVsCodeForm, usedInputs } from './vscode-form.js';

/** `user`: the config file in the home folder; `project`: `.mcp.json` in the project folder. */
export type ConfigScope = 'user' | 'project';

/** Where a server is added to or removed from. */
export interface ServerFileTarget {
  /** `--config FILE`, when given: it wins over the scope. */
  readonly configPath?: string;
  readonly scope: ConfigScope;
  readonly homeDir: string;
  readonly projectDir: string;
  /** Where the user's VS Code `mcp.json` is looked for (`XDG_CONFIG_HOME`, `APPDATA`). */
  readonly env: ConfigEnvironment;
  /** `--vscode`: VS Code's file of the scope (`.vscode/mcp.json`, or the user's `mcp.json`). */
  readonly vscode?: boolean;
}

/**
 * The file `mcp add|remove` edits: `--config`; else with `vscode`, VS Code's file of the scope;
 * else the config file of the scope that mcphost reads (ours first, then VS Code's), or a new
 * `.mcp.json` when there is none.
 */
export async function serverFilePath(target: ServerFileTarget): Promise<string> {
  if (target.configPath !== undefined) return resolve(target.projectDir, target.configPath);
  const folder = resolve(target.scope === 'user' ? target.homeDir : target.projectDir);
  const vsCodeFile =
    target.scope === 'user' ? vsCodeUserFile(target.homeDir, target.env) : join(folder, VSCODE_PROJECT_FILE);
  if (target.vscode === true) return vsCodeFile;
  const found = await findConfigFile(folder, [vsCodeFile]);
  return found?.path ?? join(folder, CONFIG_FILE_NAMES[0]);
}

/** Whether a file's servers are under `servers` (VS Code's form): by its content, else by its place. */
function serversKeyOf(
  path: string,
  text: string,
  env: ConfigEnvironment,
  homeDir: string | undefined,
): string {
  if (text.trim() !== '') {
    return isVsCodeForm(parse(text)) ? 'servers' : 'mcpServers';
  }
  const atVsCodePlace =
    resolve(path).endsWith(`${sep}${VSCODE_PROJECT_FILE}`) ||
    (homeDir !== undefined && resolve(path) === resolve(vsCodeUserFile(homeDir, env)));
  return atVsCodePlace ? 'servers' : 'mcpServers';
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

function serversOf(text: string, key: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  const value = parse(text) as Record<string, unknown>;
  const servers = value[key];
  return isPlainObject(servers) ? servers : {};
}

/**
 * Checks an entry with the config's own rules, as it would be read from the file (in VS Code's
 * form: its `${input:id}` declared in the file's `inputs`, its other variables VS Code's).
 */
function checkEntry(
  name: string,
  entry: Readonly<Record<string, unknown>>,
  text: string,
  path: string,
  key: string,
  env: ConfigEnvironment,
): void {
  if (key === 'mcpServers') {
    parseConfig({ mcpServers: { [name]: entry } }, `server "${name}"`, env);
    return;
  }
  const file = text.trim() === '' ? {} : (parse(text) as Record<string, unknown>);
  const raw = { inputs: file.inputs, servers: { [name]: entry } };
  usedInputs(raw, path);
  const variables = { inputs: new Map<string, string>(), workspaceFolder: '.', userHome: '~' };
  parseConfig(fromVsCodeForm(raw, variables), `server "${name}"`, env, { serversKey: 'servers' });
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
  homeDir?: string,
): Promise<void> {
  const text = await editableText(path);
  const key = serversKeyOf(path, text, env, homeDir);
  // VS Code reads `type` to know the transport; it is written out rather than left to be guessed.
  const written =
    key === 'servers' && entry.type === undefined && typeof entry.command === 'string'
      ? { type: 'stdio', ...entry }
      : entry;
  // The same checks as at start-up, so `mcp add` cannot write a server mcphost would then refuse.
  checkEntry(name, written, text, path, key, env);
  if (Object.hasOwn(serversOf(text, key), name)) {
    throw new ConfigError(
      path,
      `a server named "${name}" is already there (mcphost mcp remove ${name} first)`,
    );
  }
  const base = text.trim() === '' ? '{}\n' : text;
  // A new `.vscode/mcp.json` (or VS Code's user folder) may need its folder made.
  if (text === '') await mkdir(dirname(path), { recursive: true });
  const edits = modify(base, [key, name], written, { formattingOptions: formattingOf(base) });
  await writeFileAtomic(path, applyEdits(base, edits));
}

/** Removes server `name` from the file at `path`. Throws a ConfigError when it is not there. */
export async function removeServerFromFile(path: string, name: string): Promise<void> {
  const text = await editableText(path);
  const key = text.trim() !== '' && isVsCodeForm(parse(text)) ? 'servers' : 'mcpServers';
  if (!Object.hasOwn(serversOf(text, key), name)) {
    throw new ConfigError(path, `no server named "${name}" there`);
  }
  const edits = modify(text, [key, name], undefined, { formattingOptions: formattingOf(text) });
  await writeFileAtomic(path, applyEdits(text, edits));
}
