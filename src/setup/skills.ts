/**
 * Skills for one runner: the folders they are read from (the user's, and a project's only once its
 * config is trusted), the servers' skills through the pool, and where the guard finds the host's
 * `skill` tool (read-only: it reads skills, it changes nothing).
 */
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { LoadedConfig } from '../../config/index.js';
import type { McpPool } from '../mcp/pool.js';
import { SkillLibrary } from '../mcp/skills/skill-library.js';
import { SKILL_TOOL_NAME } from '../mcp/skills/skill-tool.js';
import type { ToolLocation } from '../safety/guarded-tool-host.js';
import { mcphostFolder } from '../util/user-folders.js';
import { optional } from '../util/optional.js';

/** The user's skills folder: `$XDG_CONFIG_HOME/mcphost/skills`, else `~/.config/mcphost/skills`. */
export function userSkillsFolder(homeDir: string, env: Readonly<Record<string, string | undefined>>): string {
  return join(mcphostFolder('config', homeDir, env), 'skills');
}

/**
 * The library of a runner. A project's `.mcphost/skills` is read only when its config file was
 * trusted (`projectPath`): a cloned repository's skills are a stranger's instructions until then.
 */
export function skillLibraryFor(context: {
  readonly pool: McpPool;
  readonly config: Pick<LoadedConfig, 'projectPath'>;
  readonly homeDir: string | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly onWarning: ((message: string) => void) | undefined;
}): SkillLibrary {
  const { projectPath } = context.config;
  return new SkillLibrary({
    servers: context.pool,
    userFolder: userSkillsFolder(context.homeDir ?? homedir(), context.env),
    ...optional(
      'projectFolder',
      projectPath === undefined ? undefined : join(dirname(projectPath), '.mcphost', 'skills'),
    ),
    ...optional('onWarning', context.onWarning),
  });
}

/** What the guard's rules and the audit log see for a call of the `skill` tool. */
const SKILL_TOOL_LOCATION: ToolLocation = {
  server: 'mcphost',
  tool: SKILL_TOOL_NAME,
  hints: { readOnly: true, destructive: false, openWorld: false },
};

/** The pool's `locate`, knowing the host's `skill` tool too. */
export function locateWithSkills(pool: McpPool, exposedName: string): ToolLocation | undefined {
  return exposedName === SKILL_TOOL_NAME ? SKILL_TOOL_LOCATION : pool.locate(exposedName);
}
