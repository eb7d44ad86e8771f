/**
 * Named agents: what one is (a description the main model reads, a model, the tools it may use, a
 * system prompt, a step limit, an output schema, budgets), the zod schema of an entry (the config's
 * `agents` key and a Markdown file's front matter share it), and where it was defined.
 */
import * as z from 'zod';
import type { JsonSchemaObject } from '../core/types.js';

/** An agent's name: what the model passes to the `agent` tool and `--agent` takes. */
export const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export const agentNameSchema = z
  .string()
  .regex(AGENT_NAME, 'an agent name is 1-64 letters, digits, "_" or "-", starting with a letter or digit');

const names = z.array(z.string().min(1)).min(1);

/**
 * A list of names, or (as Claude Code's agent files write `tools: Read, Grep`) one string of them
 * separated by commas.
 */
const nameList = z.union([
  names,
  z
    .string()
    .min(1)
    .transform((text) => text.split(',').map((name) => name.trim()))
    .pipe(names),
]);

/** A model `provider:model`; `inherit` (Claude Code's word) is the parent's, as leaving it out is. */
const modelSchema = z
  .string()
  .min(1)
  .refine((text) => text === 'inherit' || /^[^:\s]+:\S/.test(text), {
    error: 'expected "provider:model" (e.g. "anthropic:claude-sonnet-4-5") or "inherit"',
  });

/** Limits on one run of the agent (the session's budgets count its calls as well). */
const agentBudgetsSchema = z.strictObject({
  /** Most tool calls in one run. */
  maxCalls: z.number().int().nonnegative().exactOptional(),
  /** Most tokens (input and output, summed over its model calls) in one run. */
  maxTokens: z.number().int().positive().exactOptional(),
});

/** One agent, as written in the config's `agents` or a Markdown file's front matter. */
export const agentEntrySchema = z.strictObject({
  /** What the agent is for: the main model reads it to choose. */
  description: z.string().trim().min(1),
  /** `provider:model`; default the parent's model. */
  model: modelSchema.exactOptional(),
  /** The servers whose tools it may use (default all). */
  servers: nameList.exactOptional(),
  /** Tool names or globs over `server__tool` it may use (default all the servers' tools). */
  tools: nameList.exactOptional(),
  /** Its system prompt (in a Markdown file: the body). */
  systemPrompt: z.string().exactOptional(),
  /** Most model calls in one run. */
  maxSteps: z.number().int().positive().exactOptional(),
  /** Its answer must be JSON valid against this schema; the parent gets the JSON. */
  outputSchema: z.record(z.string(), z.unknown()).exactOptional(),
  /** The agents it may hand tasks to in turn (`true`: all). Default none: a child does not delegate. */
  agents: z.union([z.boolean(), names]).exactOptional(),
  budgets: agentBudgetsSchema.exactOptional(),
});

export type AgentEntry = z.infer<typeof agentEntrySchema>;

/** The `agents` key of a config file: entries by name. */
export const agentsSchema = z.record(agentNameSchema, agentEntrySchema);

/** Where an agent was defined, for `mcphost agents list` and error lines. */
export type AgentSource =
  | { readonly kind: 'config'; readonly path: string }
  | { readonly kind: 'options' }
  | { readonly kind: 'file'; readonly path: string; readonly scope: 'user' | 'project' };

/** A named agent, checked. */
export interface AgentDefinition {
  readonly name: string;
  readonly description: string;
  /** `provider:model`; absent: the parent's. */
  readonly model?: string;
  readonly servers?: readonly string[];
  readonly tools?: readonly string[];
  readonly systemPrompt?: string;
  readonly maxSteps?: number;
  readonly outputSchema?: JsonSchemaObject;
  /** The agents it may call: none, all, or these. */
  readonly mayCall: 'none' | 'all' | readonly string[];
  readonly budgets?: { readonly maxCalls?: number; readonly maxTokens?: number };
  readonly source: AgentSource;
}

/** The definition of a checked entry. */
export function agentDefinition(name: string, entry: AgentEntry, source: AgentSource): AgentDefinition {
  const mayCall =
    entry.agents === undefined || entry.agents === false
      ? 'none'
      : entry.agents === true
        ? 'all'
        : entry.agents;
  const model = entry.model === 'inherit' ? undefined : entry.model;
  const systemPrompt = entry.systemPrompt?.trim();
  return {
    name,
    description: entry.description,
    ...(model === undefined ? {} : { model }),
    ...(entry.servers === undefined ? {} : { servers: entry.servers }),
    ...(entry.tools === undefined ? {} : { tools: entry.tools }),
    ...(systemPrompt === undefined || systemPrompt === '' ? {} : { systemPrompt }),
    ...(entry.maxSteps === undefined ? {} : { maxSteps: entry.maxSteps }),
    ...(entry.outputSchema === undefined ? {} : { outputSchema: entry.outputSchema }),
    mayCall,
    ...(entry.budgets === undefined ? {} : { budgets: entry.budgets }),
    source,
  };
}

/** Where a definition came from, in a few words (`agents list`). */
export function describeSource(source: AgentSource): string {
  switch (source.kind) {
    case 'config':
      return `${source.path}: agents`;
    case 'options':
      return 'the agents option';
    case 'file':
      return source.path;
    default: {
      const unexpected: never = source;
      throw new TypeError(`unknown agent source ${JSON.stringify(unexpected)}`);
    }
  }
}
