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
import { SKILL_TOOL_NAME, SkillToolHost } from '../mcp/skills/skill-tool.js';
import type { ToolHost } from '../core/types.js';
import type { ToolLocation } from '../safety/guarded-tool-host.js';
import { mcphostFolder } from '../util/user-folders.js';
import { definedProperties } from '../util/defined-properties.js';

/** The user's skills folder: `$XDG_CONFIG_HOME/mcphost/skills`, else `~/.config/mcphost/skills`. */
export function userSkillsFolder(homeDir: string, env: Readonly<Record<string, string | undefined>>): string {
  return join(mcphostFolder('config', homeDir, env), 'skills');
}

/** What the guard's rules and the audit log see for a call of the `skill` tool. */
const SKILL_TOOL_LOCATION: ToolLocation = {
  server: 'mcphost',
  tool: SKILL_TOOL_NAME,
  hints: { readOnly: true, destructive: false, openWorld: false },
};

/** A runner's skills: the library, the pool with the `skill` tool added, and where the guard finds it. */
export interface RunnerSkills {
  readonly library: SkillLibrary;
  readonly host: ToolHost;
  locate(exposedName: string): ToolLocation | undefined;
}

/**
 * The skills of a runner. A project's `.mcphost/skills` is read only when its config file was
 * trusted (`projectPath`): a cloned repository's skills are a stranger's instructions until then.
 */
export function skillsFor(context: {
  readonly pool: McpPool;
  readonly config: Pick<LoadedConfig, 'projectPath'>;
  readonly homeDir: string | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly onWarning: ((message: string) => void) | undefined;
}): RunnerSkills {
  const { pool } = context;
  const { projectPath } = context.config;
  const library = new SkillLibrary({
    servers: context.pool,
    userFolder: userSkillsFolder(context.homeDir ?? homedir(), context.env),
    ...definedProperties({
      projectFolder: projectPath === undefined ? undefined : join(dirname(projectPath), '.mcphost', 'skills'),
      onWarning: context.onWarning,
    }),
  });
  return { library, ...withSkillTool(pool, library) };
}

/**
 * `host` with the `skill` tool of `library` added, and where the guard finds each tool (the jobs
 * of a batch or a worker share one library over the shared servers' pool).
 */
export function withSkillTool(
  host: ToolHost & { locate(exposedName: string): ToolLocation | undefined },
  library: SkillLibrary,
): Omit<RunnerSkills, 'library'> {
  return {
    host: new SkillToolHost({ inner: host, library }),
    locate: (name) => (name === SKILL_TOOL_NAME ? SKILL_TOOL_LOCATION : host.locate(name)),
  };
}
