/**
 * GuardedToolHost: approval rules and every approval answer, through an injected `questions.approveToolCall`, with
 * a fake tool host that records what really ran.
 */
import { describe, expect, it } from 'vitest';
import type { ToolHost } from '../../src/core/types.js';
import type { ApprovalDecision, ApprovalRequest } from '../../src/safety/approval.js';
import { GuardedToolHost } from '../../src/safety/guarded-tool-host.js';
import type { ApprovalRule } from '../../src/safety/policy.js';
import {
  askWrites,
  call,
  fakeHost,
  guarded,
  MemoryAudit,
  scriptedApprover,
  text,
} from '../support/guard-fixtures.js';

describe('GuardedToolHost: rules', () => {
  it('runs an allowed call and audits it', async () => {
    const { guard, host, audit } = guarded([]);
    const result = await guard.call(call('files__read', { path: '/a' }));
    expect(text(result)).toBe('file content');
    expect(host.calls.map((c) => c.name)).toEqual(['files__read']);
    expect(audit.entries).toEqual([
      expect.objectContaining({
        server: 'files',
        tool: 'read',
        exposedName: 'files__read',
        arguments: { path: '/a' },
        decision: 'allowed',
        decidedBy: 'policy',
        outcome: 'ok',
        isError: false,
        resultBytes: 12,
      }),
    ]);
  });

  it('never runs a denied call and tells the model why', async () => {
    const { guard, host, audit } = guarded([
      { tool: '*__delete*', decision: 'deny', reason: 'deleting is off limits' },
    ]);
    const result = await guard.call(call('files__delete', { path: '/a' }));
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      "The user's approval policy does not allow files__delete: deleting is off limits " +
        '(the rule tool "*__delete*" → deny in /home/ada/.mcp.json). It was not run.',
    );
    expect(host.calls).toEqual([]);
    expect(audit.entries[0]).toMatchObject({
      decision: 'denied',
      decidedBy: 'policy',
      outcome: 'not-run',
      durationMs: 0,
    });
  });

  it('denies an ask call when no one can be asked', async () => {
    const { guard, host, audit } = guarded(askWrites);
    const result = await guard.call(call('files__write', { path: '/a' }));
    expect(text(result)).toContain("needs the user's approval (it changes files");
    expect(text(result)).toContain('--approve-all');
    expect(host.calls).toEqual([]);
    expect(audit.entries[0]).toMatchObject({ decision: 'denied', decidedBy: 'no-one-to-ask' });
  });

  it('runs an ask call with approveAll, but still refuses a deny rule', async () => {
    const { guard, host, audit } = guarded([...askWrites, { tool: 'files__delete', decision: 'deny' }], {
      safety: { approveAll: true },
    });
    expect(text(await guard.call(call('files__write', { path: '/a' })))).toBe('wrote /a');
    expect((await guard.call(call('files__delete'))).isError).toBe(true);
    expect(host.calls.map((c) => c.name)).toEqual(['files__write']);
    expect(audit.entries.map((entry) => entry.decidedBy)).toEqual(['approve-all', 'policy']);
  });
});

describe('GuardedToolHost: every approval answer', () => {
  it('shows the tool, its server, the arguments and the reason', async () => {
    const approver = scriptedApprover({ kind: 'allow-once' });
    const { guard } = guarded(askWrites, { questions: { approveToolCall: approver.approveToolCall } });
    await guard.call(call('files__write', { path: '/a' }));
    expect(approver.asked).toHaveLength(1);
    expect(approver.asked[0]).toMatchObject({
      tool: 'write',
      server: 'files',
      call: { name: 'files__write', input: { path: '/a' } },
      reason: 'it changes files (the rule tool "files__write" → ask in /home/ada/.mcp.json)',
    });
  });

  it('allow once: runs this call and asks again next time', async () => {
    const approver = scriptedApprover({ kind: 'allow-once' }, { kind: 'allow-once' });
    const { guard, host, audit } = guarded(askWrites, {
      questions: { approveToolCall: approver.approveToolCall },
    });
    expect(text(await guard.call(call('files__write', { path: '/a' })))).toBe('wrote /a');
    expect(text(await guard.call(call('files__write', { path: '/b' })))).toBe('wrote /b');
    expect(approver.asked).toHaveLength(2);
    expect(host.calls).toHaveLength(2);
    expect(audit.entries.map((entry) => entry.decidedBy)).toEqual(['user', 'user']);
  });

  it('always allow this tool: later calls of the tool run without asking, other tools still ask', async () => {
    const approver = scriptedApprover({ kind: 'allow-tool' }, { kind: 'deny' });
    const rules: ApprovalRule[] = [{ server: 'files', decision: 'ask' }];
    const { guard, host, audit } = guarded(rules, {
      questions: { approveToolCall: approver.approveToolCall },
    });
    await guard.call(call('files__write', { path: '/a' }));
    await guard.call(call('files__write', { path: '/b' }));
    expect((await guard.call(call('files__read'))).isError).toBe(true);
    expect(approver.asked.map((request) => request.call.name)).toEqual(['files__write', 'files__read']);
    expect(host.calls.map((c) => c.name)).toEqual(['files__write', 'files__write']);
    expect(audit.entries.map((entry) => entry.decidedBy)).toEqual(['user', 'session', 'user']);
  });

  it('always allow this server: every tool of the server runs without asking, other servers still ask', async () => {
    const approver = scriptedApprover({ kind: 'allow-server' }, { kind: 'allow-once' }, { kind: 'deny' });
    const rules: ApprovalRule[] = [{ tool: '*', decision: 'ask' }];
    const { guard, host } = guarded(rules, { questions: { approveToolCall: approver.approveToolCall } });
    await guard.call(call('files__write', { path: '/a' }));
    await guard.call(call('files__read'));
    await guard.call(call('files__delete'));
    await guard.call(call('memory__store'));
    expect(approver.asked.map((request) => request.call.name)).toEqual(['files__write', 'memory__store']);
    expect(host.calls.map((c) => c.name)).toEqual([
      'files__write',
      'files__read',
      'files__delete',
      'memory__store',
    ]);
    // The grant lasts for the session only: once forgotten, the user is asked again.
    guard.grants.clear();
    expect((await guard.call(call('files__read'))).isError).toBe(true);
    expect(approver.asked).toHaveLength(3);
  });

  it('always deny this tool: later calls of the tool are refused without asking, other tools still ask', async () => {
    const approver = scriptedApprover({ kind: 'deny', always: true }, { kind: 'allow-once' });
    const rules: ApprovalRule[] = [{ server: 'files', decision: 'ask' }];
    const { guard, host, audit } = guarded(rules, {
      questions: { approveToolCall: approver.approveToolCall },
    });
    expect((await guard.call(call('files__write', { path: '/a' }))).isError).toBe(true);
    const second = await guard.call(call('files__write', { path: '/b' }));
    expect(text(second)).toBe('The user denied every call to files__write for this session. It was not run.');
    expect(text(await guard.call(call('files__read')))).not.toContain('denied');
    expect(approver.asked.map((request) => request.call.name)).toEqual(['files__write', 'files__read']);
    expect(host.calls.map((c) => c.name)).toEqual(['files__read']);
    expect(audit.entries.map((entry) => entry.decidedBy)).toEqual(['user', 'session', 'user']);
  });

  it('deny with a reason: not run, and the model reads the reason', async () => {
    const approver = scriptedApprover({ kind: 'deny', reason: 'not in my home folder' });
    const { guard, host, audit } = guarded(askWrites, {
      questions: { approveToolCall: approver.approveToolCall },
    });
    const result = await guard.call(call('files__write', { path: '/home/ada/x' }));
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      'The user denied the call to files__write: not in my home folder. It was not run.',
    );
    expect(host.calls).toEqual([]);
    expect(audit.entries[0]).toMatchObject({
      decision: 'denied',
      decidedBy: 'user',
      reason: 'not in my home folder',
      outcome: 'not-run',
    });
  });

  it('deny without a reason says none was given; a failing prompt denies too', async () => {
    const approver = scriptedApprover({ kind: 'deny' });
    const { guard, host } = guarded(askWrites, { questions: { approveToolCall: approver.approveToolCall } });
    expect(text(await guard.call(call('files__write')))).toBe(
      'The user denied the call to files__write (no reason given). It was not run.',
    );
    const broken = guarded(askWrites, {
      questions: { approveToolCall: () => Promise.reject(new Error('terminal closed')) },
    });
    expect((await broken.guard.call(call('files__write'))).isError).toBe(true);
    expect(host.calls).toEqual([]);
    expect(broken.host.calls).toEqual([]);
  });

  it('asks one question at a time, and an "always" answer spares the calls waiting behind it', async () => {
    let open = 0;
    let mostOpen = 0;
    const asked: string[] = [];
    const { guard, host } = guarded([{ server: 'files', decision: 'ask' }], {
      questions: {
        approveToolCall: async (request) => {
          asked.push(request.call.name);
          open += 1;
          mostOpen = Math.max(mostOpen, open);
          await new Promise((resolve) => setImmediate(resolve));
          open -= 1;
          return { kind: 'allow-server' };
        },
      },
    });
    const results = await Promise.all([
      guard.call(call('files__write', { path: '/1' })),
      guard.call(call('files__read')),
      guard.call(call('files__delete')),
    ]);
    expect(results.map((result) => result.isError)).toEqual([false, false, false]);
    expect(asked).toEqual(['files__write']);
    expect(mostOpen).toBe(1);
    expect(host.calls).toHaveLength(3);
  });

  it('does not ask about a call whose run was cancelled', async () => {
    const approver = scriptedApprover();
    const { guard, host } = guarded(askWrites, { questions: { approveToolCall: approver.approveToolCall } });
    const controller = new AbortController();
    controller.abort();
    const result = await guard.call(call('files__write'), controller.signal);
    expect(result.isError).toBe(true);
    expect(approver.asked).toEqual([]);
    expect(host.calls).toEqual([]);
  });
});

describe('GuardedToolHost: close', () => {
  it('ends questions still waiting for an answer: their calls are denied and close() resolves', async () => {
    const asked: ApprovalRequest[] = [];
    const { guard, host, audit } = guarded(askWrites, {
      // A prompt that never answers, and ignores its signal: close() must not wait for it.
      questions: {
        approveToolCall: (request) => {
          asked.push(request);
          return new Promise<ApprovalDecision>(() => undefined);
        },
      },
    });
    const run = new AbortController();
    const first = guard.call(call('files__write'), run.signal);
    const second = guard.call(call('files__write'));
    await expect.poll(() => asked.length).toBe(1);
    await guard.close();
    const results = await Promise.all([first, second]);
    expect(results.map((result) => result.isError)).toEqual([true, true]);
    expect(text(results[0])).toContain('was not run');
    expect(asked).toHaveLength(1);
    expect(asked[0]?.signal?.aborted).toBe(true);
    expect(run.signal.aborted).toBe(false);
    expect(host.calls).toEqual([]);
    expect(audit.entries.map((entry) => [entry.decision, entry.outcome])).toEqual([
      ['denied', 'not-run'],
      ['denied', 'not-run'],
    ]);
  });

  it('refuses calls made after close()', async () => {
    const { guard, host, audit } = guarded([]);
    await guard.close();
    const result = await guard.call(call('files__read'));
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('shutting down');
    expect(host.calls).toEqual([]);
    expect(audit.entries[0]).toMatchObject({ decision: 'allowed', outcome: 'cancelled' });
  });
});

describe('GuardedToolHost: results', () => {
  it('cuts an oversized result for the model and records the cut', async () => {
    const { guard, audit } = guarded([], { safety: { maxToolResultBytes: 1000 } });
    const result = await guard.call(call('big__dump'));
    // Head (600 bytes) and tail (400), with the note between (no folder given: nothing saved).
    expect(text(result)).toMatch(
      /^x{600}\n\n\[mcphost: this result is 5,000 bytes, over the budget of 1,000; 4,000 bytes from the middle are left out\. Ask the tool for a smaller part if you need the rest\.\]\n\nx{400}$/,
    );
    expect(audit.entries[0]).toMatchObject({ resultBytes: 5000, cutBytes: 4000 });
  });

  it('leaves out an image too big for the model API, says so, and records it', async () => {
    const huge = { type: 'image' as const, mimeType: 'image/png', data: 'A'.repeat(6 * 1024 * 1024) };
    const small = { type: 'image' as const, mimeType: 'image/png', data: 'AAAA' };
    const host: ToolHost = {
      tools: async () => [],
      call: async (toolCall) => ({
        type: 'tool-result',
        toolCallId: toolCall.id,
        toolName: toolCall.name,
        content: [{ type: 'text', text: 'two screenshots' }, huge, small],
        isError: false,
      }),
    };
    const audit = new MemoryAudit();
    const result = await new GuardedToolHost({ host, audit }).call(call('browser__screenshot'));
    expect(result.content.map((block) => block.type)).toEqual(['text', 'text', 'image']);
    expect(text(result)).toContain('an image (image/png, 6291456 bytes as base64) was left out');
    expect(result.content[2]).toEqual(small);
    expect(audit.entries[0]).toMatchObject({ outcome: 'ok', droppedImages: 1 });
  });

  it('strips terminal control sequences from results', async () => {
    const { guard } = guarded([]);
    expect(text(await guard.call(call('ansi__color')))).toBe('red');
  });

  it('rejects a nonsensical size limit', () => {
    expect(() => new GuardedToolHost({ host: fakeHost(), safety: { maxToolResultBytes: 0 } })).toThrow(
      TypeError,
    );
  });
});
