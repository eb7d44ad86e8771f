/**
 * Local skills: folders holding a `SKILL.md`, in the user's `$XDG_CONFIG_HOME/mcphost/skills/`
 * (else `~/.config/mcphost/skills/`) and in a trusted project's `.mcphost/skills/`. Found at the
 * first listing; a body or file is read when the model asks for it, and the SKILL.md read then is
 * checked again (it may have changed since).
 */
import { lstat, readdir, readFile, realpath } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { messageOf } from '../../core/errors.js';
import { parseSkillFile } from './skill-file.js';

/** Where a local skill was found: the user's own folder, or a trusted project's. */
export type LocalSkillScope = 'user' | 'project';

/** A local skill as listed: its front matter's name and description, and its folder. */
export interface LocalSkill {
  readonly scope: LocalSkillScope;
  readonly name: string;
  readonly description: string;
  /** The skill's folder (absolute). */
  readonly folder: string;
}

/** The files of one skill listed to the model at most; a skill is a few files, not a tree. */
const MAX_LISTED_FILES = 100;
/** A file of a local skill larger than this is not read (the model gets a note instead). */
export const MAX_LOCAL_SKILL_FILE_BYTES = 1024 * 1024;

/**
 * The skills in `root`, one per sub-folder with a `SKILL.md`. A missing `root` has none; a
 * SKILL.md with bad front matter is skipped, with one warning naming the file.
 */
export async function findLocalSkills(
  root: string,
  scope: LocalSkillScope,
  warn: (message: string) => void,
): Promise<LocalSkill[]> {
  let entries;
  try {
    entries = await readdir(root, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      warn(`${root}: cannot read the skills folder: ${messageOf(error)}`);
    }
    return [];
  }
  const skills: LocalSkill[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (!entry.isDirectory()) continue;
    const folder = join(root, entry.name);
    const file = join(folder, 'SKILL.md');
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        warn(`${file}: skill skipped: cannot read it (${messageOf(error)})`);
      }
      continue;
    }
    const parsed = await parseSkillFile(text, entry.name);
    if (parsed.kind === 'invalid') {
      warn(`${file}: skill skipped: ${parsed.problem}`);
      continue;
    }
    skills.push({ scope, name: parsed.name, description: parsed.description, folder });
  }
  return skills;
}

/** A local skill's instructions as loaded now, or why they cannot be. */
export type LocalSkillBody =
  | { readonly kind: 'loaded'; readonly body: string; readonly files: readonly string[] }
  | { readonly kind: 'failed'; readonly problem: string };

/** Reads the skill's SKILL.md again (checked again) and lists its other files. */
export async function loadLocalSkill(skill: LocalSkill): Promise<LocalSkillBody> {
  const file = join(skill.folder, 'SKILL.md');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    return { kind: 'failed', problem: `cannot read ${file}: ${messageOf(error)}` };
  }
  const parsed = await parseSkillFile(text, skill.name);
  if (parsed.kind === 'invalid') return { kind: 'failed', problem: `${file}: ${parsed.problem}` };
  return { kind: 'loaded', body: parsed.body, files: await listFiles(skill.folder) };
}

/** The skill's files other than SKILL.md, as `/`-separated paths, sorted, at most MAX_LISTED_FILES. */
async function listFiles(folder: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (directory: string): Promise<void> => {
    const entries = await readdir(directory, { withFileTypes: true }).catch(() => []);
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (found.length >= MAX_LISTED_FILES) return;
      const path = join(directory, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile()) found.push(relative(folder, path).split(sep).join('/'));
    }
  };
  await walk(folder);
  return found.filter((path) => path !== 'SKILL.md');
}

/** A file of a local skill, or why it cannot be read. */
export type LocalSkillFile =
  { readonly kind: 'text'; readonly text: string } | { readonly kind: 'failed'; readonly problem: string };

/**
 * Reads `path` (relative to the skill's folder). Anything outside the folder — `..`, an absolute
 * path, a symbolic link that leads out — is refused: a skill's files are the folder's files.
 */
export async function readLocalSkillFile(skill: LocalSkill, path: string): Promise<LocalSkillFile> {
  const target = resolve(skill.folder, path);
  if (!isInside(skill.folder, target)) {
    return { kind: 'failed', problem: `"${path}" is outside the skill's folder` };
  }
  let real: string;
  try {
    const [realFolder, realTarget] = await Promise.all([realpath(skill.folder), realpath(target)]);
    if (!isInside(realFolder, realTarget)) {
      return { kind: 'failed', problem: `"${path}" leads outside the skill's folder` };
    }
    real = realTarget;
    const info = await lstat(real);
    if (!info.isFile()) return { kind: 'failed', problem: `"${path}" is not a file` };
    if (info.size > MAX_LOCAL_SKILL_FILE_BYTES) {
      return {
        kind: 'failed',
        problem: `"${path}" is ${info.size} bytes, over the ${MAX_LOCAL_SKILL_FILE_BYTES}-byte limit`,
      };
    }
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    return { kind: 'failed', problem: missing ? `the skill has no file "${path}"` : messageOf(error) };
  }
  const bytes = await readFile(real);
  const text = decodeText(bytes);
  return text === undefined
    ? { kind: 'failed', problem: `"${path}" is not UTF-8 text (${bytes.length} bytes)` }
    : { kind: 'text', text };
}

function isInside(folder: string, path: string): boolean {
  const relation = relative(folder, path);
  return relation !== '' && relation !== '..' && !relation.startsWith(`..${sep}`) && !isAbsolute(relation);
}

/** UTF-8 text, or undefined for bytes that are not (a binary file must not reach the model garbled). */
export function decodeText(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
