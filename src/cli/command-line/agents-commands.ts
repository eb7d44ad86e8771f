/**
 * `mcphost agents list`: the named agents found (the config files' `agents`, the user's and a
 * trusted project's agent files), where each was defined, its model and what it may use. A file
 * or entry that is not an agent is one line on stderr naming the file and key (exit code 2).
 */
import { resolve } from 'node:path';
import { loadConfig } from '../../../config/index.js';
import { describeSource, type AgentDefinition } from '../../agents/definition.js';
import { loadAgentCatalog } from '../../setup/agents.js';
import { ExitCode, type ExitCodeValue } from '../exit-codes.js';
import { notice, type CliIO } from '../io.js';

export async function runAgentsList(context: {
  readonly io: CliIO;
  readonly configPath?: string;
}): Promise<ExitCodeValue> {
  const { io } = context;
  const config = await loadConfig({
    ...(context.configPath === undefined ? {} : { configPath: resolve(io.cwd, context.configPath) }),
    homeDir: io.homeDir,
    env: io.env,
    projectDir: io.cwd,
  });
  const catalog = await loadAgentCatalog({ config, homeDir: io.homeDir, env: io.env });
  // As every other line of mcphost's own on stderr (and as a run stopped by the same entry says it).
  for (const problem of catalog.problems) notice(io, problem);
  const agents = [...catalog.agents.values()];
  if (agents.length === 0) {
    io.stdout.write(
      'No agents defined (the config\'s "agents", or Markdown files in ~/.config/mcphost/agents/).\n',
    );
  }
  for (const agent of agents) io.stdout.write(`${describeAgent(agent)}\n`);
  return catalog.problems.length === 0 ? ExitCode.ok : ExitCode.usage;
}

/** One agent in a few lines: name and description, where, model, tools, what it may call. */
export function describeAgent(agent: AgentDefinition): string {
  const uses = [
    ...(agent.servers === undefined ? [] : [`servers ${agent.servers.join(', ')}`]),
    ...(agent.tools === undefined ? [] : [`tools ${agent.tools.join(', ')}`]),
  ];
  const calls =
    agent.mayCall === 'none'
      ? 'no agents'
      : agent.mayCall === 'all'
        ? 'every agent'
        : agent.mayCall.join(', ');
  const limits = [
    ...(agent.maxSteps === undefined ? [] : [`maxSteps ${agent.maxSteps}`]),
    ...(agent.budgets?.maxCalls === undefined ? [] : [`maxCalls ${agent.budgets.maxCalls}`]),
    ...(agent.budgets?.maxTokens === undefined ? [] : [`maxTokens ${agent.budgets.maxTokens}`]),
    ...(agent.outputSchema === undefined ? [] : ['structured output']),
  ];
  return [
    `${agent.name}: ${agent.description.replace(/\s+/g, ' ').trim()}`,
    `  defined in: ${describeSource(agent.source)}`,
    `  model:      ${agent.model ?? "the parent's"}`,
    `  may use:    ${uses.length === 0 ? 'every tool' : uses.join('; ')}`,
    `  may call:   ${calls}`,
    ...(limits.length === 0 ? [] : [`  limits:     ${limits.join(', ')}`]),
  ].join('\n');
}
