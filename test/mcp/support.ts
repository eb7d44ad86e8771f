/** Helpers for the MCP pool tests: server definitions, process checks, log capture. */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StdioServerDefinition } from '../../src/mcp/definition.js';
import { afterEach, expect } from 'vitest';
import { McpPool, type McpPoolOptions, type PoolLogEntry } from '../../src/mcp/pool.js';
import type { ToolResultBlock } from '../../src/core/types.js';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

/** Absolute path of a fixture server in test/fixtures/servers. */
export function fixturePath(file: string): string {
  return join(here, '..', 'fixtures', 'servers', file);
}

/** The entry point (`dist/index.js`) of an installed npm MCP server package. */
export function packageEntry(name: string): string {
  return join(dirname(require.resolve(`${name}/package.json`)), 'dist', 'index.js');
}

/** A stdio definition with the defaults the config layer would fill in. */
export function stdio(
  command: string,
  args: readonly string[],
  extra: Partial<StdioServerDefinition> = {},
): StdioServerDefinition {
  return { transport: 'stdio', command, args, env: {}, inheritEnv: false, ...extra };
}

/** A stdio definition running a fixture server with this Node. */
export function fixture(file: string, extra: Partial<StdioServerDefinition> = {}): StdioServerDefinition {
  return stdio(process.execPath, [fixturePath(file)], extra);
}

/** A stdio definition running an npm server package with this Node. */
export function npmServer(
  name: string,
  args: readonly string[] = [],
  extra: Partial<StdioServerDefinition> = {},
): StdioServerDefinition {
  return stdio(process.execPath, [packageEntry(name), ...args], extra);
}

/** Our environment as the pool should see it in tests (the real one, plus a secret to keep out). */
export function testEnvironment(extra: Record<string, string> = {}): Record<string, string | undefined> {
  return { ...process.env, ...extra };
}

/** Collects the pool's log entries. */
export function logCollector(): {
  log: (entry: PoolLogEntry) => void;
  entries: PoolLogEntry[];
  warnings: () => string[];
} {
  const entries: PoolLogEntry[] = [];
  return {
    log: (entry) => entries.push(entry),
    entries,
    warnings: () => entries.filter((entry) => entry.level === 'warn').map((entry) => entry.message),
  };
}

import { liveChildren } from '../support/processes.js';

export { isAlive, liveChildren, liveGroupMembers } from '../support/processes.js';

/** Parses the first text block of a tool result. */
export function firstText(result: ToolResultBlock): string {
  const block = result.content[0];
  return block?.type === 'text' ? block.text : '';
}

/** A tool call block. */
export function toolCall(name: string, input: Record<string, unknown> = {}, id = `call-${name}`) {
  return { type: 'tool-call' as const, id, name, input };
}

const pools: McpPool[] = [];

/** Starts a pool that {@link closePoolsAfterEach} closes after the test. */
export async function startPool(options: McpPoolOptions): Promise<McpPool> {
  const pool = await McpPool.start(options);
  pools.push(pool);
  return pool;
}

/**
 * After each test: close the pools it started, then check that no server process is left
 * (`keep` lists processes the test started on purpose, such as a remote server it talks to).
 */
export function closePoolsAfterEach(keep: () => readonly number[] = () => []): void {
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((pool) => pool.close()));
    const kept = new Set(keep());
    expect(liveChildren().filter((pid) => !kept.has(pid))).toEqual([]);
  });
}
