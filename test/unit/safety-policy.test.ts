import { describe, expect, it } from 'vitest';
import { globToRegExp } from '../../src/safety/glob.js';
import { ApprovalPolicy, type ApprovalRuleSet } from '../../src/safety/policy.js';

describe('tool-name globs', () => {
  it.each([
    ['filesystem__write_*', 'filesystem__write_file', true],
    ['filesystem__write_*', 'filesystem__write_', true],
    ['filesystem__write_*', 'filesystem__read_file', false],
    ['filesystem__write_*', 'xfilesystem__write_file', false],
    ['*__delete*', 'memory__delete_entities', true],
    ['*__delete*', 'files__delete', true],
    ['*__delete*', 'memory__create_entities', false],
    ['memory__?ead', 'memory__read', true],
    ['memory__?ead', 'memory__thread', false],
    ['*', 'anything__at_all', true],
    // Regular-expression characters are literal.
    ['a.b__c', 'a.b__c', true],
    ['a.b__c', 'aXb__c', false],
    ['a+b', 'aab', false],
    // Case-sensitive, as names are shown.
    ['Files__*', 'files__read', false],
  ])('%s against %s → %s', (glob, name, expected) => {
    expect(globToRegExp(glob).test(name)).toBe(expected);
  });
});

const home: ApprovalRuleSet = {
  source: '/home/ada/.mcp.json',
  rules: [
    { tool: 'filesystem__read_*', decision: 'allow' },
    { tool: 'filesystem__*', decision: 'ask', reason: 'writes files' },
    { tool: '*__delete*', decision: 'deny', reason: 'deleting is never allowed' },
    { server: 'memory', decision: 'ask' },
  ],
};

describe('ApprovalPolicy', () => {
  it('allows everything when nothing is configured', () => {
    const policy = new ApprovalPolicy();
    expect(policy.isEmpty).toBe(true);
    expect(policy.decide({ exposedName: 'files__delete_all', server: 'files' }).decision).toBe('allow');
  });

  it('with the ask-unless-read-only fallback, runs what says read-only and asks about the rest', () => {
    const policy = new ApprovalPolicy([], 'ask-unless-read-only');
    const readOnly = { readOnly: true, destructive: false, openWorld: false };
    const writes = { readOnly: false, destructive: true, openWorld: false };
    expect(policy.decide({ exposedName: 'fs__read', server: 'fs', hints: readOnly })).toEqual({
      decision: 'allow',
      because: 'no approval rule applies, and the tool says it is read-only',
    });
    expect(policy.decide({ exposedName: 'fs__write', server: 'fs', hints: writes })).toEqual({
      decision: 'ask',
      because: 'no approval rule applies, and the tool does not say it is read-only',
    });
    // Unknown hints (an unknown server) are not read-only.
    expect(policy.decide({ exposedName: 'fs__read' }).decision).toBe('ask');
  });

  it('lets a rule or a default of any set speak before the fallback', () => {
    const writes = { readOnly: false, destructive: true, openWorld: false };
    const allowAll = new ApprovalPolicy(
      [{ source: 'home', rules: [], default: 'allow' }],
      'ask-unless-read-only',
    );
    expect(allowAll.decide({ exposedName: 'fs__write', server: 'fs', hints: writes }).decision).toBe('allow');
    const byRule = new ApprovalPolicy(
      [{ source: 'home', rules: [{ tool: 'fs__write', decision: 'allow' }] }],
      'ask-unless-read-only',
    );
    expect(byRule.decide({ exposedName: 'fs__write', server: 'fs', hints: writes }).decision).toBe('allow');
    expect(byRule.decide({ exposedName: 'fs__edit', server: 'fs', hints: writes }).decision).toBe('ask');
    const denyReadOnly = new ApprovalPolicy(
      [{ source: 'home', rules: [{ readOnly: true, decision: 'deny' }] }],
      'ask-unless-read-only',
    );
    const readOnly = { readOnly: true, destructive: false, openWorld: false };
    expect(denyReadOnly.decide({ exposedName: 'fs__read', server: 'fs', hints: readOnly }).decision).toBe(
      'deny',
    );
  });

  it('takes the first matching rule, in the order written', () => {
    const policy = new ApprovalPolicy([home]);
    expect(policy.decide({ exposedName: 'filesystem__read_file', server: 'filesystem' }).decision).toBe(
      'allow',
    );
    const write = policy.decide({ exposedName: 'filesystem__write_file', server: 'filesystem' });
    expect(write.decision).toBe('ask');
    expect(write.rule?.reason).toBe('writes files');
    expect(write.because).toBe('the rule tool "filesystem__*" → ask in /home/ada/.mcp.json');
    // The ask rule above the delete rule matches first: order is the author's tool.
    expect(policy.decide({ exposedName: 'filesystem__delete_file', server: 'filesystem' }).decision).toBe(
      'ask',
    );
    expect(policy.decide({ exposedName: 'other__delete_thing', server: 'other' }).decision).toBe('deny');
  });

  it('matches server rules on the configured server name, and never when the server is unknown', () => {
    const policy = new ApprovalPolicy([home]);
    expect(policy.decide({ exposedName: 'memory__create_entities', server: 'memory' }).decision).toBe('ask');
    expect(policy.decide({ exposedName: 'memory__create_entities' }).decision).toBe('allow');
    const both = new ApprovalPolicy([
      { source: 'x', rules: [{ tool: '*__write*', server: 'files', decision: 'deny' }] },
    ]);
    expect(both.decide({ exposedName: 'files__write', server: 'files' }).decision).toBe('deny');
    expect(both.decide({ exposedName: 'files__write', server: 'other' }).decision).toBe('allow');
    expect(both.decide({ exposedName: 'files__read', server: 'files' }).decision).toBe('allow');
  });

  it("in a rule naming a server, matches the tool by the server's own name too", () => {
    const policy = new ApprovalPolicy([
      { source: 'x', rules: [{ server: 'everything', tool: 'get-env', decision: 'deny' }] },
    ]);
    const call = { exposedName: 'everything__get-env', server: 'everything', tool: 'get-env' };
    expect(policy.decide(call).decision).toBe('deny');
    expect(policy.decide({ ...call, exposedName: 'everything__echo', tool: 'echo' }).decision).toBe('allow');
    // Without a server in the rule, the tool glob is on the exposed name only.
    const nameOnly = new ApprovalPolicy([{ source: 'x', rules: [{ tool: 'get-env', decision: 'deny' }] }]);
    expect(nameOnly.decide(call).decision).toBe('allow');
  });

  it('uses the default when no rule matches, and says so', () => {
    const policy = new ApprovalPolicy([{ source: '/p/.mcp.json', rules: [], default: 'ask' }]);
    const verdict = policy.decide({ exposedName: 'everything__echo', server: 'everything' });
    expect(verdict).toEqual({ decision: 'ask', because: 'the default "ask" of /p/.mcp.json' });
    expect(policy.isEmpty).toBe(false);
  });

  it('takes the strictest answer across files: neither loosens the other', () => {
    const project: ApprovalRuleSet = {
      source: '/work/.mcp.json',
      rules: [
        { tool: 'filesystem__*', decision: 'allow' },
        { tool: 'everything__*', decision: 'deny' },
      ],
    };
    const policy = new ApprovalPolicy([home, project]);
    // Home says ask, project says allow: ask.
    expect(policy.decide({ exposedName: 'filesystem__write_file', server: 'filesystem' }).decision).toBe(
      'ask',
    );
    // Home has no rule (allowed by default), project says deny: deny.
    const echo = policy.decide({ exposedName: 'everything__echo', server: 'everything' });
    expect(echo.decision).toBe('deny');
    expect(echo.because).toContain('/work/.mcp.json');
    // A file with no opinion does not count as "allow".
    const strictDefault = new ApprovalPolicy([
      { source: 'a', rules: [] },
      { source: 'b', rules: [], default: 'deny' },
    ]);
    expect(strictDefault.decide({ exposedName: 'x__y' }).decision).toBe('deny');
  });
});
