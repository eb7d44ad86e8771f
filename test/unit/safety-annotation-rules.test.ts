/**
 * Approval rules by tool annotations (`readOnly`, `destructive`, `openWorld`), sampling rules, and
 * how the approval question shows the hints.
 */
import { describe, expect, it } from 'vitest';
import { ApprovalPolicy, toolHintsOf, type ApprovalRuleSet } from '../../src/safety/policy.js';
import { describeApprovalRequest } from '../../src/cli/prompts/approval-prompt.js';

const readOnly = toolHintsOf({ readOnlyHint: true });
const silent = toolHintsOf(undefined);
const gentle = toolHintsOf({ destructiveHint: false, openWorldHint: false });

describe('tool hints', () => {
  it('take the spec defaults: a tool that says nothing is destructive and open-world', () => {
    expect(silent).toEqual({ readOnly: false, destructive: true, openWorld: true });
    expect(readOnly).toEqual({ readOnly: true, destructive: false, openWorld: true });
    expect(gentle).toEqual({ readOnly: false, destructive: false, openWorld: false });
    // Junk from a server is read as saying nothing.
    expect(toolHintsOf({ readOnlyHint: 'yes', destructiveHint: 0 })).toEqual(silent);
  });
});

describe('annotation rules', () => {
  const set: ApprovalRuleSet = {
    source: 'home',
    rules: [
      { tool: '*__wipe', decision: 'deny' },
      { readOnly: true, decision: 'allow' },
      { destructive: true, decision: 'ask', reason: 'may destroy things' },
    ],
    default: 'ask',
  };
  const policy = new ApprovalPolicy([set]);

  it('allow every read-only tool, ask about destructive ones, in rule order', () => {
    expect(policy.decide({ exposedName: 'fs__read', server: 'fs', hints: readOnly }).decision).toBe('allow');
    const destructive = policy.decide({ exposedName: 'fs__write', server: 'fs', hints: silent });
    expect(destructive.decision).toBe('ask');
    expect(destructive.because).toContain('destructive: true');
    // A name rule above wins over the hint, whatever the server claims.
    expect(policy.decide({ exposedName: 'fs__wipe', server: 'fs', hints: readOnly }).decision).toBe('deny');
    // Neither hint rule matches a non-destructive, non-read-only tool: the default applies.
    expect(policy.decide({ exposedName: 'fs__touch', server: 'fs', hints: gentle }).because).toContain(
      'default',
    );
  });

  it('never match a tool whose hints are unknown', () => {
    expect(policy.decide({ exposedName: 'fs__read', server: 'fs' }).decision).toBe('ask');
    expect(policy.decide({ exposedName: 'fs__read', server: 'fs' }).because).toContain('default');
  });

  it('combine with a server glob: both must match', () => {
    const scoped = new ApprovalPolicy([
      { source: 'home', rules: [{ server: 'fs', readOnly: true, decision: 'allow' }], default: 'deny' },
    ]);
    expect(scoped.decide({ exposedName: 'fs__read', server: 'fs', hints: readOnly }).decision).toBe('allow');
    expect(scoped.decide({ exposedName: 'web__get', server: 'web', hints: readOnly }).decision).toBe('deny');
  });
});

describe('sampling rules', () => {
  it('first match within a set, strictest across sets, "ask" when no rule matches', () => {
    const policy = new ApprovalPolicy([
      {
        source: 'home',
        rules: [{ tool: '*', decision: 'allow' }],
        sampling: [
          { server: 'everything', decision: 'allow' },
          { server: '*', decision: 'deny' },
        ],
      },
      { source: 'project', rules: [], sampling: [{ server: 'every*', decision: 'ask' }] },
    ]);
    expect(policy.decideSampling('everything')).toEqual({
      decision: 'ask',
      because: 'the sampling rule server "every*" → ask in project',
    });
    expect(policy.decideSampling('other').decision).toBe('deny');
    // Tool rules never answer a sampling question, and a set's default neither.
    expect(new ApprovalPolicy([{ source: 'home', rules: [], default: 'allow' }]).decideSampling('x')).toEqual(
      {
        decision: 'ask',
        because: 'no sampling rule allows it for this server',
      },
    );
  });
});

describe('the approval question', () => {
  it('shows the hints, said to come from the server', () => {
    const text = describeApprovalRequest({
      call: { type: 'tool-call', id: '1', name: 'fs__write', input: {} },
      server: 'fs',
      tool: 'write',
      reason: 'may destroy things',
      hints: silent,
    });
    expect(text).toContain('hints:     destructive, open world (as the server says)');
    const quiet = describeApprovalRequest({
      call: { type: 'tool-call', id: '1', name: 'fs__read', input: {} },
      tool: 'read',
      reason: 'r',
      hints: toolHintsOf({ readOnlyHint: true, openWorldHint: false }),
    });
    expect(quiet).toContain('read-only, closed world');
  });
});
