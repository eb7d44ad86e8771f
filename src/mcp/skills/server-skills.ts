/**
 * Server skills (SEP-2640, `io.modelcontextprotocol/skills`) through the SDK's SkillsClient, which
 * lists, reads and verifies them: every file against its entry's size and SHA-256 digest, and a
 * SKILL.md's front matter against the entry's. This file only asks it at the right moments —
 * `skills/list` when the skills are first listed, `resources/read` when the model loads a skill or
 * asks for one of its files, never before (the extension forbids prefetching) — and turns its
 * answers into what the host's `skill` tool says.
 *
 * The SDK's module is imported on first use: a run whose servers do not declare the extension
 * never loads it.
 */
import type { Client } from '@modelcontextprotocol/client';
import type * as SkillsExtension from '@modelcontextprotocol/client/ext/skills';
import type { Skill } from '@modelcontextprotocol/client/ext/skills';
import { messageOf } from '../../core/errors.js';
import type { ServerStatus } from '../status.js';
import { SKILLS_EXTENSION } from './extension-id.js';
import { decodeText } from './local-skills.js';
import { definedProperties } from '../../util/defined-properties.js';

/** What this needs of the pool: which servers run, and their live clients. */
export interface SkillServers {
  status(): readonly ServerStatus[];
  client(serverName: string, signal?: AbortSignal): Promise<Client>;
}

/** One skill a server lists, with the entry its files are verified against. */
export interface ServerSkill {
  readonly server: string;
  readonly name: string;
  readonly description: string;
  /** The entry from `skills/list`: the URI of its SKILL.md, its front matter, its files. */
  readonly entry: Skill;
}

/** A server's SKILL.md or file as read and verified, or which check failed. */
export type ServerSkillRead =
  | {
      readonly kind: 'read';
      readonly text: string;
      /** For SKILL.md: the body after the front matter. */
      readonly body?: string;
    }
  | { readonly kind: 'failed'; readonly problem: string };

type SkillsModule = typeof SkillsExtension;
let skillsModule: Promise<SkillsModule> | undefined;
function loadSkillsModule(): Promise<SkillsModule> {
  skillsModule ??= import('@modelcontextprotocol/client/ext/skills');
  return skillsModule;
}

/**
 * The skills of every running server that declared the extension (`skills/list`, every page). A
 * server whose listing fails, and each entry the SDK refuses, is reported through `warn`.
 */
export async function listServerSkills(
  servers: SkillServers,
  warn: (message: string) => void,
  signal?: AbortSignal,
): Promise<ServerSkill[]> {
  const ready = servers.status().filter((status) => status.state === 'ready');
  const lists = await Promise.all(
    ready.map(async ({ name: server }): Promise<ServerSkill[]> => {
      try {
        const client = await servers.client(server, signal);
        // Checked before loading the SDK's module: most servers do not offer skills.
        if (client.getServerCapabilities()?.extensions?.[SKILLS_EXTENSION] === undefined) return [];
        const { SkillsClient } = await loadSkillsModule();
        const skills = new SkillsClient(client, { skipInvalid: true });
        if (!skills.supported) return [];
        const listing = await skills.list({}, signal === undefined ? {} : { signal });
        for (const refused of listing.invalid) {
          warn(`server "${server}": skill ${refused.uri ?? `#${refused.index}`} skipped: ${refused.reason}`);
        }
        return listing.skills.map((entry) => ({
          server,
          name: entry.frontmatter.name,
          description: entry.frontmatter.description,
          entry,
        }));
      } catch (error) {
        warn(`server "${server}": cannot list its skills: ${messageOf(error)}`);
        return [];
      }
    }),
  );
  return lists.flat();
}

/** The skill's files other than SKILL.md, relative to its folder; `dynamic` when the server does not list them. */
export function serverSkillFiles(skill: ServerSkill): readonly string[] | 'dynamic' {
  const { resources, uri } = skill.entry;
  if (resources === 'dynamic') return 'dynamic';
  const root = uri.slice(0, uri.length - 'SKILL.md'.length);
  return resources
    .map((resource) => resource.uri)
    .filter((file) => file !== uri)
    .map((file) => (file.startsWith(root) ? file.slice(root.length) : file));
}

/**
 * Reads the skill's SKILL.md (no `path`) or one of its files, verified against the entry. A
 * failed check names the check (`size`, `digest`, `frontmatter`, `unlisted`).
 */
export async function readServerSkill(
  servers: SkillServers,
  skill: ServerSkill,
  path?: string,
  signal?: AbortSignal,
): Promise<ServerSkillRead> {
  const { SkillsClient, SkillVerificationError } = await loadSkillsModule();
  let client: Client;
  try {
    client = await servers.client(skill.server, signal);
  } catch (error) {
    return { kind: 'failed', problem: messageOf(error) };
  }
  try {
    const file = await new SkillsClient(client).read(
      skill.entry,
      path,
      signal === undefined ? {} : { signal },
    );
    const text = file.text ?? decodeText(file.bytes);
    if (text === undefined) {
      const type = file.mimeType === undefined ? '' : `, ${file.mimeType}`;
      return { kind: 'failed', problem: `it is not text (${file.bytes.length} bytes${type})` };
    }
    return { kind: 'read', text, ...definedProperties({ body: file.body }) };
  } catch (error) {
    if (error instanceof SkillVerificationError) {
      const differences = error.differences.length === 0 ? '' : ` (${error.differences.join('; ')})`;
      return {
        kind: 'failed',
        problem: `verification failed: ${verificationCheck(error.reason)}: ${error.message}${differences}`,
      };
    }
    return { kind: 'failed', problem: messageOf(error) };
  }
}

/** The check, in words, that a SkillVerificationError names. */
function verificationCheck(reason: 'unlisted' | 'size' | 'digest' | 'frontmatter'): string {
  switch (reason) {
    case 'unlisted':
      return "the file is not in the skill's entry";
    case 'size':
      return 'size mismatch';
    case 'digest':
      return 'digest mismatch';
    case 'frontmatter':
      return 'front matter differs from the entry';
    default: {
      const unexpected: never = reason;
      return String(unexpected);
    }
  }
}
