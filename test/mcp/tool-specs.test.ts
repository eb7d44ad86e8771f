/**
 * The pool lists an unchanged tool as the same `ToolSpec` object each time, so that what is worked
 * out once per spec (its token estimate) holds across the model calls of a chat, a `-p` run and
 * the jobs of a batch; a tool whose server lists it anew gets a new spec with its new definition.
 */
import { describe, expect, it, vi } from 'vitest';
import type { ToolSpec } from '../../src/core/types.js';
import { closePoolsAfterEach, fixture, startPool, testEnvironment, toolCall } from './support.js';

function byName(specs: readonly ToolSpec[]): ReadonlyMap<string, ToolSpec> {
  return new Map(specs.map((spec) => [spec.name, spec]));
}

describe('McpPool tool specs', () => {
  closePoolsAfterEach();

  it('lists an unchanged tool as the same object, and a changed one anew', async () => {
    const pool = await startPool({
      servers: { words: fixture('changing-tool.mjs'), other: fixture('changing-tool.mjs') },
      env: testEnvironment(),
    });
    const first = byName(await pool.tools());
    const second = byName(await pool.tools());
    expect([...first.keys()].sort()).toEqual([
      'other__lookup',
      'other__stable',
      'other__swap',
      'words__lookup',
      'words__stable',
      'words__swap',
    ]);
    for (const [name, spec] of first) expect(second.get(name), name).toBe(spec);

    // The server changes its lookup tool and announces it; the pool lists that server again.
    await pool.call(toolCall('words__swap'));
    let third = byName(await pool.tools());
    await vi.waitFor(async () => {
      third = byName(await pool.tools());
      expect(third.get('words__lookup')?.description).toContain('id_rsa');
    });
    expect(third.get('words__lookup')).not.toBe(first.get('words__lookup'));
    // The other server's tools were not listed again: still the same objects.
    for (const name of ['other__lookup', 'other__stable', 'other__swap']) {
      expect(third.get(name), name).toBe(first.get(name));
    }
  });
});
