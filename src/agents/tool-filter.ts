/**
 * Which tools an agent may use: those of the servers in its `servers`, and those whose exposed name
 * (`server__tool`) matches a name or glob in its `tools` (src/safety/glob.ts, the approval rules'
 * globs). With neither, every tool the session has.
 */
import { errorResult } from '../core/tool-execution.js';
import type { ToolHost } from '../core/types.js';
import { compileGlob } from '../safety/glob.js';
import type { AgentDefinition } from './definition.js';

export interface ToolFilter {
  allows(exposedName: string): boolean;
}

/**
 * The filter of an agent, or `undefined` when it may use every tool. `serverOf` finds the server
 * behind an exposed name (the pool's name table; never split on `__`).
 */
export function toolFilterOf(
  definition: Pick<AgentDefinition, 'servers' | 'tools'>,
  serverOf: (exposedName: string) => string | undefined,
): ToolFilter | undefined {
  const { servers, tools } = definition;
  if (servers === undefined && tools === undefined) return undefined;
  const globs = (tools ?? []).map(compileGlob);
  const serverSet = new Set(servers ?? []);
  return {
    allows: (exposedName) => {
      if (globs.some((glob) => glob.matches(exposedName))) return true;
      if (serverSet.size === 0) return false;
      const server = serverOf(exposedName);
      return server !== undefined && serverSet.has(server);
    },
  };
}

/**
 * `inner` as one agent sees it: only the tools its filter allows are listed, and a call of another
 * is refused as data (a batch job run as an agent; AgentToolHost does the same for a child).
 */
export function narrowedToolHost(inner: ToolHost, filter: ToolFilter | undefined, agent: string): ToolHost {
  if (filter === undefined) return inner;
  return {
    tools: async () => (await inner.tools()).filter((tool) => filter.allows(tool.name)),
    call: (call, signal) =>
      filter.allows(call.name)
        ? inner.call(call, signal)
        : Promise.resolve(errorResult(call, `The tool ${call.name} is not one ${agent} may use.`)),
  };
}
