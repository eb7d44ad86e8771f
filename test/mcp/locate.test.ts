/**
 * `McpPool.locate`: the guard's rules, hooks and audit log must judge the tool a call is really
 * routed to, which is the one in the table the model was last given, not a freshly refreshed one.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { McpPool } from '../../src/mcp/pool.js';
import type { AuditEntry } from '../../src/safety/audit-log.js';
import { GuardedToolHost } from '../../src/safety/guarded-tool-host.js';
import { firstText, fixture, liveChildren, testEnvironment, toolCall } from './support.js';

const pools: McpPool[] = [];

async function pagedPool(): Promise<McpPool> {
  const pool = await McpPool.start({ servers: { paged: fixture('paginated.mjs') }, env: testEnvironment() });
  pools.push(pool);
  return pool;
}

afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
  expect(liveChildren()).toEqual([]);
});

describe('McpPool.locate', () => {
  it('finds a tool before any list was published, from the current table', async () => {
    const pool = await pagedPool();
    expect(pool.locate('paged__two')).toEqual({
      exposedName: 'paged__two',
      server: 'paged',
      tool: 'two',
      description: 'two',
      // The fixture's tools carry no annotations: the spec's defaults.
      hints: { readOnly: false, destructive: true, openWorld: true },
      // The definition as the server gave it, for the tool pins (docs/safety.md).
      definition: { name: 'two', description: 'two', inputSchema: { type: 'object', properties: {} } },
    });
    expect(pool.locate('paged__nothing')).toBeUndefined();
  });

  it('reads the published table after a list change, as calls do, without refreshing', async () => {
    const pool = await pagedPool();
    await pool.tools();
    expect(firstText(await pool.call(toolCall('paged__add_tool')))).toBe('added');
    // The server now has "four", but the model was not told: calls do not reach it, and locate agrees.
    expect(pool.locate('paged__four')).toBeUndefined();
    expect(firstText(await pool.call(toolCall('paged__four')))).toContain('unknown tool "paged__four"');
    expect(pool.locate('paged__one')).toMatchObject({ server: 'paged', tool: 'one' });
    // No refresh happened: the server's tool count is still the one listed before the change.
    expect(pool.status()[0]?.toolCount).toBe(4);
    // Once the new list is published, both see the new tool.
    await pool.tools();
    expect(pool.locate('paged__four')).toMatchObject({ server: 'paged', tool: 'four' });
    expect(firstText(await pool.call(toolCall('paged__four')))).toBe('called four');
  });

  it('lets the guard audit and judge the tool the call was routed to', async () => {
    const pool = await pagedPool();
    const entries: AuditEntry[] = [];
    const guard = new GuardedToolHost({
      host: pool,
      locate: (name) => pool.locate(name),
      audit: { record: (entry) => entries.push(entry), flush: () => Promise.resolve() },
    });
    await guard.tools();
    await guard.call(toolCall('paged__add_tool'));
    const result = await guard.call(toolCall('paged__four'));
    expect(firstText(result)).toContain('unknown tool');
    expect(entries[1]).toMatchObject({ exposedName: 'paged__four', server: null, tool: 'paged__four' });
    expect(pool.status()[0]?.toolCount).toBe(4);
    await guard.close();
  });
});
