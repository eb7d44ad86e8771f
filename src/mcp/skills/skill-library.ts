/**
 * Every skill the host can offer the model: local ones (the user's folder, a trusted project's) and
 * servers' (SEP-2640). Listed once, at the first {@link SkillLibrary.list} — names and descriptions
 * only — and loaded one at a time when the model asks (the `skill` tool) or the user does.
 *
 * Names: a local skill is named by its folder (`pdf-processing`); a project's skill hides a user's
 * skill of the same name (the project is more specific; a warning says so). A server's skill is
 * `server:name`, so two servers (or a server and a folder) can never claim the same name.
 */
import type { ToolResultOrigin } from '../../core/types.js';
import { findLocalSkills, loadLocalSkill, readLocalSkillFile, type LocalSkill } from './local-skills.js';
import {
  listServerSkills,
  readServerSkill,
  serverSkillFiles,
  type ServerSkill,
  type SkillServers,
} from './server-skills.js';

/** Where a skill comes from. */
export type SkillSource =
  | { readonly kind: 'user'; readonly folder: string }
  | { readonly kind: 'project'; readonly folder: string }
  | { readonly kind: 'server'; readonly server: string; readonly uri: string };

/** A skill as listed: what the model sees up front, and `/skills` shows. */
export interface SkillSummary {
  /** The name the model loads it by: `name` for a local skill, `server:name` for a server's. */
  readonly name: string;
  readonly description: string;
  readonly source: SkillSource;
}

/** What the `skill` tool answers: text for the model, whose words it is, and whether it failed. */
export interface SkillAnswer {
  readonly text: string;
  readonly isError: boolean;
  /** `server` for a server's content (screened and marked as data); `host` for local files and refusals. */
  readonly origin: ToolResultOrigin;
}

/** How to build a {@link SkillLibrary}. */
export interface SkillLibraryOptions {
  /** The running servers (the pool). Absent: local skills only. */
  readonly servers?: SkillServers;
  /** The user's skills folder (`$XDG_CONFIG_HOME/mcphost/skills`). */
  readonly userFolder?: string;
  /** A trusted project's skills folder (`.mcphost/skills`); absent when the project is not trusted. */
  readonly projectFolder?: string;
  /** A skipped skill or a server whose listing failed. Default: ignored. */
  readonly onWarning?: (message: string) => void;
}

type Found =
  | { readonly kind: 'local'; readonly summary: SkillSummary; readonly skill: LocalSkill }
  | { readonly kind: 'server'; readonly summary: SkillSummary; readonly skill: ServerSkill };

/** A server skill's state in this session: its files are read only once its SKILL.md passed. */
type LoadState = 'verified' | 'failed';

export class SkillLibrary {
  readonly #options: SkillLibraryOptions;
  #listing: Promise<ReadonlyMap<string, Found>> | undefined;
  readonly #loaded = new Map<string, LoadState>();

  constructor(options: SkillLibraryOptions) {
    this.#options = options;
  }

  /** Every skill, local ones first, each by name. Listed once; {@link refresh} lists again. */
  async list(): Promise<readonly SkillSummary[]> {
    return [...(await this.#found()).values()].map((found) => found.summary);
  }

  /** Forgets the listing (and which skills were loaded): the next use lists again. */
  refresh(): void {
    this.#listing = undefined;
    this.#loaded.clear();
  }

  /** The skill's instructions (its SKILL.md body) and the list of its other files. */
  async load(name: string, signal?: AbortSignal): Promise<SkillAnswer> {
    const found = (await this.#found()).get(name);
    if (found === undefined) return await this.#unknown(name);
    switch (found.kind) {
      case 'local': {
        const loaded = await loadLocalSkill(found.skill);
        if (loaded.kind === 'failed') return hostError(`skill "${name}" cannot be loaded: ${loaded.problem}`);
        return { text: loadedText(name, loaded.body, loaded.files), isError: false, origin: 'host' };
      }
      case 'server': {
        const read = await readServerSkill(this.#servers(), found.skill, undefined, signal);
        if (read.kind === 'failed') {
          this.#loaded.set(name, 'failed');
          return hostError(`skill "${name}" from server "${found.skill.server}" not loaded: ${read.problem}`);
        }
        this.#loaded.set(name, 'verified');
        const body = read.body ?? read.text;
        return {
          text: loadedText(name, body, serverSkillFiles(found.skill)),
          isError: false,
          origin: 'server',
        };
      }
      default: {
        const unexpected: never = found;
        return unexpected;
      }
    }
  }

  /**
   * One file of a skill, by its path in the skill's folder. A server's skill is loaded (verified)
   * first if it was not: a file of a skill whose SKILL.md failed is never read.
   */
  async readFile(name: string, path: string, signal?: AbortSignal): Promise<SkillAnswer> {
    const found = (await this.#found()).get(name);
    if (found === undefined) return await this.#unknown(name);
    switch (found.kind) {
      case 'local': {
        const file = await readLocalSkillFile(found.skill, path);
        return file.kind === 'failed'
          ? hostError(`skill "${name}": ${file.problem}`)
          : { text: file.text, isError: false, origin: 'host' };
      }
      case 'server': {
        if (this.#loaded.get(name) === undefined) {
          const loaded = await this.load(name, signal);
          if (loaded.isError) return loaded;
        }
        if (this.#loaded.get(name) === 'failed') {
          return hostError(
            `skill "${name}" failed verification when it was loaded, so its files are not read`,
          );
        }
        const read = await readServerSkill(this.#servers(), found.skill, path, signal);
        return read.kind === 'failed'
          ? hostError(`skill "${name}" file "${path}" not read: ${read.problem}`)
          : { text: read.text, isError: false, origin: 'server' };
      }
      default: {
        const unexpected: never = found;
        return unexpected;
      }
    }
  }

  #servers(): SkillServers {
    const { servers } = this.#options;
    // A server skill is only ever listed through `servers`, so it is set whenever one is loaded.
    if (servers === undefined) throw new Error('SkillLibrary: a server skill without servers');
    return servers;
  }

  async #unknown(name: string): Promise<SkillAnswer> {
    const names = [...(await this.#found()).keys()];
    return hostError(
      `no skill is named "${name}"${names.length === 0 ? '' : ` (skills: ${names.join(', ')})`}`,
    );
  }

  /**
   * The listing, made once and shared: no caller's signal is given to it, as one caller's cancel
   * must not leave every later one a cancelled listing.
   */
  #found(): Promise<ReadonlyMap<string, Found>> {
    this.#listing ??= this.#discover();
    return this.#listing;
  }

  async #discover(): Promise<ReadonlyMap<string, Found>> {
    const warn = this.#options.onWarning ?? (() => undefined);
    const { userFolder, projectFolder, servers } = this.#options;
    const [user, project, served] = await Promise.all([
      userFolder === undefined ? [] : findLocalSkills(userFolder, 'user', warn),
      projectFolder === undefined ? [] : findLocalSkills(projectFolder, 'project', warn),
      servers === undefined ? [] : listServerSkills(servers, warn),
    ]);
    const found = new Map<string, Found>();
    for (const skill of [...project, ...user]) {
      const earlier = found.get(skill.name);
      if (earlier !== undefined) {
        warn(`${skill.folder}: skill hidden by the project's skill of the same name`);
        continue;
      }
      const source: SkillSource = { kind: skill.scope, folder: skill.folder };
      found.set(skill.name, {
        kind: 'local',
        summary: { name: skill.name, description: skill.description, source },
        skill,
      });
    }
    for (const skill of served) {
      const name = `${skill.server}:${skill.name}`;
      if (found.has(name)) {
        warn(`server "${skill.server}": skill ${skill.entry.uri} skipped: it lists "${skill.name}" twice`);
        continue;
      }
      found.set(name, {
        kind: 'server',
        summary: {
          name,
          description: skill.description,
          source: { kind: 'server', server: skill.server, uri: skill.entry.uri },
        },
        skill,
      });
    }
    return found;
  }
}

function hostError(text: string): SkillAnswer {
  return { text, isError: true, origin: 'host' };
}

/** A loaded skill as the model reads it: the instructions, then how to read its files. */
function loadedText(name: string, body: string, files: readonly string[] | 'dynamic'): string {
  const lines = [`Skill "${name}" loaded. Its instructions follow.`, '', body.trim()];
  if (files === 'dynamic') {
    lines.push(
      '',
      `Its files are not listed; read one with the skill tool: {"name": "${name}", "file": "<path>"}.`,
    );
  } else if (files.length > 0) {
    lines.push(
      '',
      `Files of this skill (read one with the skill tool: {"name": "${name}", "file": "<path>"}):`,
      ...files.map((file) => `- ${file}`),
    );
  }
  return lines.join('\n');
}
