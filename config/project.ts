/**
 * Project configs: a `.mcp.json` or `.mcphost.json|yml|yaml` in the folder mcphost runs in. A
 * cloned repository may carry one, so it is a stranger's file until the user trusts it: until then
 * nothing in it is used and none of its commands is started (see load.ts for the flow).
 *
 * Once trusted, it is combined with the home config:
 *
 * - servers: the project's are added to the home ones; a project server with the name of a home
 *   server replaces it (`disabled: true` in the project turns a home server off);
 * - approval rules: both sets apply, and the stricter answer wins, so neither file loosens the other;
 *   a project's sampling rule may `ask` or `deny` but not `allow` (a repository must not have the
 *   user's model called, on the user's account, for a server it ships): such a rule is dropped;
 * - hooks: both files' hooks run;
 * - other settings (model, maxSteps, sampling, timeouts, maxToolResultBytes): the project's win;
 * - except `providerUrl`, `providerApiKey`, `auditLog`, `elicitation`, `roots` and `sessionPersistence`, which a project file may
 *   not set: they would send the user's API key, write the user's files, or answer servers for the
 *   user, as the repository says. They are ignored with a warning.
 */
import type { ServerDefinition } from '../src/mcp/definition.js';
import type { ApprovalRuleSet } from '../src/safety/policy.js';
import type { ParsedConfig } from './parse.js';
import { hookCommands, mergeHooks } from './safety-settings.js';
import { definedProperties } from '../src/util/defined-properties.js';

/** A project file as the trust question shows it: what it would start. */
export interface ProjectConfigCandidate {
  /** Absolute path. */
  readonly path: string;
  /** SHA-256 of its content: trust is remembered for this exact content. */
  readonly sha256: string;
  /** The servers it would start (variables expanded). */
  readonly servers: Readonly<Record<string, ServerDefinition>>;
  /** The home servers it would turn off. */
  readonly disabledServers: readonly string[];
  /** The hook commands it would run. */
  readonly hooks: ReadonlyArray<{
    readonly event: string;
    readonly matcher?: string;
    readonly command: string;
  }>;
}

/** Settings a project file may not set (see the module comment). */
export const PROJECT_FORBIDDEN_SETTINGS = [
  'providerUrl',
  'providerApiKey',
  'auditLog',
  // A repository must not be able to loosen the defences against its own content.
  'auditLogMaxBytes',
  'untrustedContent',
  'budgets',
  // Where a worker's jobs (and their recorded results) go is the user's to say.
  'jobs',
  // Where the user's traces (and, if asked, prompts) are sent is the user's to say.
  'telemetry',
  // A repository must not make -p answer servers' questions on the user's behalf.
  'elicitation',
  // …nor widen the folders the user's servers may work in.
  'roots',
  // Whether the user's conversations are kept is the user's choice, not a repository's.
  'sessionPersistence',
  // A repository must not let its servers change their tools unnoticed.
  'toolChanges',
] as const;

/** What the trust question needs to know about a parsed project file. */
export function describeProjectConfig(
  path: string,
  sha256: string,
  config: ParsedConfig,
): ProjectConfigCandidate {
  return {
    path,
    sha256,
    servers: config.servers,
    disabledServers: config.disabledServers,
    hooks: hookCommands(config.hooks),
  };
}

/** The home config with a trusted project config combined into it (see the module comment). */
export function mergeProjectConfig(
  home: ParsedConfig,
  project: ParsedConfig,
  projectPath: string,
): ParsedConfig {
  const projectNames = new Set([...Object.keys(project.servers), ...project.disabledServers]);
  const homeServers = Object.entries(home.servers).filter(([name]) => !projectNames.has(name));
  const ignored = PROJECT_FORBIDDEN_SETTINGS.filter((key) => project[key] !== undefined).map(
    (key) =>
      `${projectPath}: "${key}" is ignored in a project config (set it in your home config or on the command line)`,
  );
  const projectRules = withoutSamplingAllows(project.approval ?? [], projectPath);
  const approval = [...(home.approval ?? []), ...projectRules.sets];
  const hooks = mergeHooks(home.hooks, project.hooks);
  const model = project.model ?? home.model;
  const systemPrompt = project.systemPrompt ?? home.systemPrompt;
  const maxSteps = project.maxSteps ?? home.maxSteps;
  const initTimeoutMs = project.initTimeoutMs ?? home.initTimeoutMs;
  const toolTimeoutMs = project.toolTimeoutMs ?? home.toolTimeoutMs;
  const maxToolResultBytes = project.maxToolResultBytes ?? home.maxToolResultBytes;
  const context =
    home.context === undefined && project.context === undefined
      ? undefined
      : { ...home.context, ...project.context };
  return {
    // fromEntries: a server named "__proto__" stays a server.
    servers: Object.fromEntries([...homeServers, ...Object.entries(project.servers)]),
    disabledServers: [
      ...home.disabledServers.filter((name) => !projectNames.has(name)),
      ...project.disabledServers,
    ],
    warnings: [...home.warnings, ...project.warnings, ...ignored, ...projectRules.warnings],
    generation: { ...home.generation, ...project.generation },
    ...definedProperties({
      model,
      systemPrompt,
      maxSteps,
      providerUrl: home.providerUrl,
      providerApiKey: home.providerApiKey,
      initTimeoutMs,
      toolTimeoutMs,
    }),
    ...(approval.length === 0 ? {} : { approval }),
    ...definedProperties({
      hooks,
      auditLog: home.auditLog,
      auditLogMaxBytes: home.auditLogMaxBytes,
      untrustedContent: home.untrustedContent,
      budgets: home.budgets,
      elicitation: home.elicitation,
      roots: home.roots,
      sessionPersistence: home.sessionPersistence,
      toolChanges: home.toolChanges,
      maxToolResultBytes,
      context,
      // A project's agent replaces the home config's of the same name.
      agents:
        home.agents === undefined && project.agents === undefined
          ? undefined
          : [
              ...(home.agents ?? []).filter(
                (agent) => !(project.agents ?? []).some((other) => other.name === agent.name),
              ),
              ...(project.agents ?? []),
            ],
      maxParallelAgents: project.maxParallelAgents ?? home.maxParallelAgents,
    }),
  };
}

/** A project's rule sets without their sampling `allow` rules, and a warning for each one dropped. */
function withoutSamplingAllows(
  sets: readonly ApprovalRuleSet[],
  projectPath: string,
): { sets: ApprovalRuleSet[]; warnings: string[] } {
  const warnings: string[] = [];
  const kept = sets.map((set) => {
    if (set.sampling === undefined) return set;
    const sampling = set.sampling.filter((rule) => {
      if (rule.decision !== 'allow') return true;
      warnings.push(
        `${projectPath}: the sampling rule for server "${rule.server}" is ignored: a project config may not allow sampling (allow it in your home config)`,
      );
      return false;
    });
    return { ...set, sampling };
  });
  return { sets: kept, warnings };
}
