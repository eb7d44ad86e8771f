/**
 * The `agent` tool: how the model hands a task to a named agent. One tool for every agent, taking
 * the agent's name and the task (docs/agents.md says why one and not one per agent): a call runs a
 * child {@link Runner} with a fresh history, the agent's model and only its tools, over the same
 * guard as the parent (child-run.ts). {@link AgentToolHost} adds the tool to a tool host and answers
 * it; every other call goes on to the host it wraps, so the agent tool itself sits outside the
 * guard: handing off a task is not asked about, what the agent then does is.
 *
 * The name has no `__`, so it can never be a server's tool (those are always `server__tool`).
 */
import { errorResult } from '../core/tool-execution.js';
import type { ToolCallBlock, ToolHost, ToolResultBlock, ToolSpec } from '../core/types.js';
import { runChild, Slots, type AgentRuntime } from './child-run.js';
import type { AgentDefinition } from './definition.js';
import type { ToolFilter } from './tool-filter.js';

/** The name of the host's agent tool. */
export const AGENT_TOOL_NAME = 'agent';

/**
 * How deep agents may nest, whatever their entries allow: the main run is depth 0, its children 1.
 * A child calls agents only when its entry says so (`agents`), and never past this depth.
 */
export const MAX_AGENT_DEPTH = 3;

/** An agent's description is cut to this many characters in the tool's description. */
const DESCRIPTION_PREVIEW = 400;

/** The agent tool's definition for these agents. */
export function agentToolSpec(agents: readonly AgentDefinition[]): ToolSpec {
  const listed = agents.map((agent) => {
    const description = agent.description.replace(/\s+/g, ' ').trim();
    const preview =
      description.length > DESCRIPTION_PREVIEW
        ? `${description.slice(0, DESCRIPTION_PREVIEW)}…`
        : description;
    return `- ${agent.name}: ${preview}`;
  });
  return {
    name: AGENT_TOOL_NAME,
    description: [
      'Hands a task to a named agent, which works on it alone (with its own model and tools, and none ' +
        'of this conversation) and answers with its result. Say everything the agent needs in "task". ' +
        'Several calls in one step run at the same time.',
      'Agents:',
      ...listed,
    ].join('\n'),
    inputSchema: {
      type: 'object',
      properties: {
        agent: {
          type: 'string',
          enum: agents.map((agent) => agent.name),
          description: 'The agent, as listed.',
        },
        task: { type: 'string', description: 'The task, complete in itself: the agent sees nothing else.' },
      },
      required: ['agent', 'task'],
    },
  };
}

/** The call's arguments, or what is wrong with them (for the model). */
export function readAgentInput(
  input: Readonly<Record<string, unknown>>,
): { readonly agent: string; readonly task: string } | string {
  const { agent, task } = input;
  if (typeof agent !== 'string' || agent.trim() === '') {
    return `${AGENT_TOOL_NAME} needs "agent": the name of a listed agent, as a string.`;
  }
  if (typeof task !== 'string' || task.trim() === '') {
    return `${AGENT_TOOL_NAME} needs "task": what the agent should do, as a string.`;
  }
  return { agent: agent.trim(), task };
}

/** Who is calling: the main run (depth 0) or an agent's run. */
export interface AgentLevel {
  /** 0 for the main run, 1 for its children… */
  readonly depth: number;
  /** The agents this level may call. */
  readonly mayCall: AgentDefinition['mayCall'];
  /** The agent whose run this is; absent for the main run. */
  readonly agent?: AgentDefinition;
}

/** A tool host with the agent tool added, and the tools of `inner` narrowed to `filter`. */
export class AgentToolHost implements ToolHost {
  readonly #inner: ToolHost;
  readonly #runtime: AgentRuntime;
  readonly #level: AgentLevel;
  readonly #filter: ToolFilter | undefined;
  /** This level's agent calls that run at once (`maxParallelAgents`); each level has its own. */
  readonly #slots: Slots;

  constructor(options: {
    readonly inner: ToolHost;
    readonly runtime: AgentRuntime;
    readonly level: AgentLevel;
    /** Only these tools of `inner` (an agent's `servers` and `tools`); absent: all. */
    readonly filter?: ToolFilter;
  }) {
    this.#inner = options.inner;
    this.#runtime = options.runtime;
    this.#level = options.level;
    this.#filter = options.filter;
    this.#slots = new Slots(options.runtime.maxParallel);
  }

  /** The agents this level may hand tasks to. */
  get callable(): readonly AgentDefinition[] {
    const { depth, mayCall } = this.#level;
    if (depth >= MAX_AGENT_DEPTH || mayCall === 'none') return [];
    const all = [...this.#runtime.agents.values()];
    return mayCall === 'all' ? all : all.filter((agent) => mayCall.includes(agent.name));
  }

  async tools(): Promise<readonly ToolSpec[]> {
    const tools = await this.#inner.tools();
    const filter = this.#filter;
    const allowed = filter === undefined ? tools : tools.filter((tool) => filter.allows(tool.name));
    const callable = this.callable;
    return callable.length === 0 ? allowed : [...allowed, agentToolSpec(callable)];
  }

  async call(call: ToolCallBlock, signal?: AbortSignal): Promise<ToolResultBlock> {
    if (call.name === AGENT_TOOL_NAME) return this.#delegate(call, signal);
    // The Runner offers only what tools() listed; this holds the line for any other caller.
    if (this.#filter !== undefined && !this.#filter.allows(call.name)) {
      const agent = this.#level.agent?.name ?? 'this agent';
      return errorResult(call, `The tool ${call.name} is not one ${agent} may use.`);
    }
    return this.#inner.call(call, signal);
  }

  async #delegate(call: ToolCallBlock, signal: AbortSignal | undefined): Promise<ToolResultBlock> {
    const callable = this.callable;
    if (callable.length === 0) {
      return errorResult(call, `Unknown tool "${AGENT_TOOL_NAME}": agents cannot be called from here.`);
    }
    const input = readAgentInput(call.input);
    if (typeof input === 'string') return errorResult(call, input);
    const definition = callable.find((agent) => agent.name === input.agent);
    if (definition === undefined) {
      const names = callable.map((agent) => agent.name).join(', ');
      return errorResult(call, `There is no agent "${input.agent}" to call here. Agents: ${names}.`);
    }
    return runChild({
      call,
      definition,
      task: input.task,
      depth: this.#level.depth + 1,
      runtime: this.#runtime,
      slots: this.#slots,
      ...(signal === undefined ? {} : { signal }),
      childHost: (inner, filter) =>
        new AgentToolHost({
          inner,
          runtime: this.#runtime,
          level: { depth: this.#level.depth + 1, mayCall: definition.mayCall, agent: definition },
          ...(filter === undefined ? {} : { filter }),
        }),
    });
  }
}
