/**
 * The named agents of a runner (src/agents): found in the config files' `agents`, the Markdown files
 * of the user's and a trusted project's agents folders, and the library's `agents` option; and the
 * runtime their children are built from (the session's guard, providers made as `-m` makes them).
 */
import { dirname, join } from 'node:path';
import type { LoadedConfig } from '../../config/index.js';
import { readAgentFolder, firstIssue } from '../agents/agent-files.js';
import { agentDefinition, agentsSchema, type AgentDefinition } from '../agents/definition.js';
import { ConfigError } from '../core/errors.js';
import { mcphostFolder } from '../util/user-folders.js';

/** The agents found, by name (a later place replaces an earlier one's), and what was wrong where. */
export interface AgentCatalog {
  readonly agents: ReadonlyMap<string, AgentDefinition>;
  /** One line each: the file (or option) and the key. */
  readonly problems: readonly string[];
}

/** Where the user's agent files are: `$XDG_CONFIG_HOME/mcphost/agents` (else `~/.config/…`). */
export function userAgentsFolder(homeDir: string, env: Readonly<Record<string, string | undefined>>): string {
  return join(mcphostFolder('config', homeDir, env), 'agents');
}

/**
 * Every agent, in order of precedence (later wins): the config files', the user's files, a trusted
 * project's files (`.mcphost/agents/` beside its config, read only once that config is trusted, as
 * its skills are), the `agents` option.
 */
export async function loadAgentCatalog(context: {
  readonly config: Pick<LoadedConfig, 'agents' | 'projectPath'>;
  readonly homeDir: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly agentsOption?: Readonly<Record<string, unknown>>;
}): Promise<AgentCatalog> {
  const { config } = context;
  const projectPath = config.projectPath;
  const [user, project] = await Promise.all([
    readAgentFolder(userAgentsFolder(context.homeDir, context.env), 'user'),
    projectPath === undefined
      ? { agents: [], problems: [] }
      : readAgentFolder(join(dirname(projectPath), '.mcphost', 'agents'), 'project'),
  ]);
  const problems = [...user.problems, ...project.problems];
  const fromOption: AgentDefinition[] = [];
  if (context.agentsOption !== undefined) {
    const checked = agentsSchema.safeParse(context.agentsOption);
    if (checked.success) {
      for (const [name, entry] of Object.entries(checked.data)) {
        fromOption.push(agentDefinition(name, entry, { kind: 'options' }));
      }
    } else {
      problems.push(`agents option: ${firstIssue(checked.error)}`);
    }
  }
  const agents = new Map<string, AgentDefinition>();
  for (const agent of [...(config.agents ?? []), ...user.agents, ...project.agents, ...fromOption]) {
    agents.set(agent.name, agent);
  }
  return { agents, problems };
}

/** The catalog, or the first of its problems as the one line a ConfigError prints. */
export function checkedAgents(catalog: AgentCatalog): ReadonlyMap<string, AgentDefinition> {
  const problem = catalog.problems[0];
  if (problem !== undefined) {
    const at = problem.indexOf(': ');
    throw new ConfigError(problem.slice(0, at), problem.slice(at + 2));
  }
  return catalog.agents;
}

/** The agent `--agent NAME` (or `agent` in the options) names, or a ConfigError listing the others. */
export function requireAgent(
  agents: ReadonlyMap<string, AgentDefinition>,
  name: string,
  source: string,
): AgentDefinition {
  const agent = agents.get(name);
  if (agent !== undefined) return agent;
  const known = [...agents.keys()];
  throw new ConfigError(
    source,
    `no agent named "${name}" (${known.length === 0 ? 'no agents are defined' : `agents: ${known.join(', ')}`})`,
  );
}
