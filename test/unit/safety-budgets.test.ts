/** Budgets and rate limits: each limit, each scope, with a fake clock. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_SESSION_LIMITS, ToolBudgets } from '../../src/safety/budgets.js';

const echo = { tool: 'files__read', server: 'files' };

describe('ToolBudgets', () => {
  it('maxCalls: counts admitted calls per scope', () => {
    const budgets = new ToolBudgets({ eachServer: { maxCalls: 2 } });
    expect(budgets.admit(echo)).toBeUndefined();
    expect(budgets.admit({ tool: 'files__write', server: 'files' })).toBeUndefined();
    expect(budgets.admit(echo)).toBe('the budget of server files: at most 2 tool calls (maxCalls), all used');
    // Another server has its own budget.
    expect(budgets.admit({ tool: 'web__get', server: 'web' })).toBeUndefined();
  });

  it('callsPerMinute: a sliding window on the injected clock', () => {
    let now = 0;
    const budgets = new ToolBudgets({ session: { callsPerMinute: 2 } }, () => now);
    expect(budgets.admit(echo)).toBeUndefined();
    now = 30_000;
    expect(budgets.admit(echo)).toBeUndefined();
    expect(budgets.admit(echo)).toMatch(/at most 2 calls per minute \(callsPerMinute\)/);
    now = 60_001;
    expect(budgets.admit(echo)).toBeUndefined();
  });

  it('maxToolTimeMs and maxResultBytes: refused once the total is reached', () => {
    const budgets = new ToolBudgets({ tools: { files__read: { maxToolTimeMs: 100, maxResultBytes: 1000 } } });
    expect(budgets.admit(echo)).toBeUndefined();
    budgets.charge(echo, { toolTimeMs: 100, resultBytes: 10 });
    expect(budgets.admit(echo)).toMatch(/^the budget of tool files__read: at most 100 ms of tool time/);
    const bytes = new ToolBudgets({ session: { maxResultBytes: 1000 } });
    bytes.admit(echo);
    bytes.charge(echo, { toolTimeMs: 1, resultBytes: 1000 });
    expect(bytes.admit(echo)).toMatch(/^the session budget: at most 1000 bytes of tool results/);
  });

  it('a refused call is not counted', () => {
    const budgets = new ToolBudgets({ session: { maxCalls: 1 }, eachTool: { maxCalls: 5 } });
    budgets.admit(echo);
    expect(budgets.admit(echo)).toBeDefined();
    expect(budgets.admit(echo)).toMatch(/^the session budget/);
  });

  it('the defaults let a long session through', () => {
    let now = 0;
    const budgets = new ToolBudgets({}, () => now);
    for (let call = 0; call < 1000; call++) {
      now += 1000; // one call a second for 1000 seconds
      expect(budgets.admit(echo)).toBeUndefined();
      budgets.charge(echo, { toolTimeMs: 500, resultBytes: 20_000 });
    }
    expect(DEFAULT_SESSION_LIMITS.maxCalls).toBeGreaterThan(1000);
  });

  it('rejects a limit that is not a whole number, naming it', () => {
    expect(() => new ToolBudgets({ eachServer: { maxCalls: -1 } })).toThrow('budgets.eachServer.maxCalls');
    expect(() => new ToolBudgets({ tools: { a__b: { callsPerMinute: 1.5 } } })).toThrow(
      'budgets.tools.a__b.callsPerMinute',
    );
  });
});
