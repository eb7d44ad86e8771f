/**
 * Whether a call runs in a sandbox, as the approval question and the audit line say it: the guard
 * takes it from the server's identity (createRunner's `identify`), with a fake tool host.
 */
import { describe, expect, it } from 'vitest';
import { describeApprovalRequest } from '../../src/cli/prompts/approval-prompt.js';
import type { ApprovalRequest } from '../../src/safety/approval.js';
import type { AuditEntry, AuditSink, ServerIdentity } from '../../src/safety/audit-log.js';
import { GuardedToolHost } from '../../src/safety/guarded-tool-host.js';
import { FakeToolHost } from '../support/fake-tool-host.js';

class MemoryAudit implements AuditSink {
  readonly entries: AuditEntry[] = [];
  record(entry: AuditEntry): void {
    this.entries.push(entry);
  }
  async flush(): Promise<void> {}
}

const IDENTITIES: Readonly<Record<string, ServerIdentity>> = {
  boxed: { command: 'node boxed.js', sandboxed: true },
  free: { command: 'node free.js', sandboxed: false },
  remote: { url: 'https://example.com/mcp' },
};

async function askAbout(server: string): Promise<{ request: ApprovalRequest; audit: AuditEntry }> {
  const asked: ApprovalRequest[] = [];
  const audit = new MemoryAudit();
  const guard = new GuardedToolHost({
    host: new FakeToolHost({ [`${server}__run`]: () => 'ran' }),
    locate: () => ({ server, tool: 'run' }),
    identify: (name) => IDENTITIES[name],
    safety: { approval: [{ source: 'test', rules: [{ server, decision: 'ask' }] }] },
    questions: {
      approveToolCall: async (request) => {
        asked.push(request);
        return { kind: 'allow-once' };
      },
    },
    audit,
  });
  const result = await guard.call({ type: 'tool-call', id: 'c1', name: `${server}__run`, input: {} });
  expect(result.isError).toBe(false);
  const [request] = asked;
  const [entry] = audit.entries;
  if (request === undefined || entry === undefined) throw new Error('no question or no audit line');
  return { request, audit: entry };
}

describe('sandboxed or not, in the approval question and the audit line', () => {
  it('says yes for a sandboxed server', async () => {
    const { request, audit } = await askAbout('boxed');
    expect(request.sandboxed).toBe(true);
    expect(describeApprovalRequest(request)).toContain('\n  sandbox:   yes\n');
    expect(audit.serverIdentity?.sandboxed).toBe(true);
  });

  it('says no, and what that means, for a local server without one', async () => {
    const { request, audit } = await askAbout('free');
    expect(request.sandboxed).toBe(false);
    expect(describeApprovalRequest(request)).toContain('\n  sandbox:   no (it runs with your full rights)\n');
    expect(audit.serverIdentity?.sandboxed).toBe(false);
  });

  it('says nothing for a server with no processes here', async () => {
    const { request, audit } = await askAbout('remote');
    expect(request).not.toHaveProperty('sandboxed');
    expect(describeApprovalRequest(request)).not.toContain('sandbox:');
    expect(audit.serverIdentity).not.toHaveProperty('sandboxed');
  });
});
