/**
 * The GuardedToolHost tests' set-up: a fake tool host over a fixed set of (server, tool) pairs, an
 * in-memory audit sink, `guarded()` to wrap them under approval rules, and a scripted approver.
 */
import { buildToolNameTable } from '../../src/mcp/naming.js';
import type { ApprovalDecision, ApprovalRequest } from '../../src/safety/approval.js';
import type { AuditEntry, AuditSink } from '../../src/safety/audit-log.js';
import {
  GuardedToolHost,
  type GuardedToolHostOptions,
  type ToolLocation,
} from '../../src/safety/guarded-tool-host.js';
import type { ApprovalRule } from '../../src/safety/policy.js';
import type { ToolCallBlock, ToolResultBlock } from '../../src/core/types.js';
import { FakeToolHost } from './fake-tool-host.js';

export class MemoryAudit implements AuditSink {
  readonly entries: AuditEntry[] = [];
  record(entry: AuditEntry): void {
    this.entries.push(entry);
  }
  async flush(): Promise<void> {}
}

/** Where each fake tool lives, as the pool's name table says (routing never splits names). */
export async function locate(name: string): Promise<ToolLocation | undefined> {
  const table = buildToolNameTable(KNOWN_TOOLS.map(([server, tool]) => ({ server, tool })));
  return table.lookup.get(name);
}

/** Every (server, tool) the tests call. */
const KNOWN_TOOLS: ReadonlyArray<readonly [string, string]> = [
  ['ansi', 'color'],
  ['big', 'dump'],
  ['browser', 'screenshot'],
  ['files', 'delete'],
  ['files', 'read'],
  ['files', 'write'],
  ['memory', 'store'],
];

export function fakeHost() {
  return new FakeToolHost({
    files__read: () => 'file content',
    files__write: (input) => `wrote ${String(input.path)}`,
    files__delete: () => 'deleted',
    memory__store: () => 'stored',
    big__dump: () => 'x'.repeat(5000),
    ansi__color: () => '\x1b[31mred\x1b[0m',
  });
}

export function guarded(rules: ApprovalRule[], options: Partial<Omit<GuardedToolHostOptions, 'host'>> = {}) {
  const host = fakeHost();
  const audit = new MemoryAudit();
  const guard = new GuardedToolHost({
    host,
    locate,
    audit,
    ...options,
    safety: {
      approval: [{ source: '/home/ada/.mcp.json', rules }],
      ...options.safety,
    },
  });
  return { guard, host, audit };
}

let nextId = 0;
export function call(name: string, input: Record<string, unknown> = {}): ToolCallBlock {
  nextId += 1;
  return { type: 'tool-call', id: `call-${nextId}`, name, input };
}

export function text(result: ToolResultBlock): string {
  return result.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

/** An approval handler that answers from a list and records what it was asked. */
export function scriptedApprover(...answers: ApprovalDecision[]) {
  const asked: ApprovalRequest[] = [];
  return {
    asked,
    approveToolCall: async (request: ApprovalRequest): Promise<ApprovalDecision> => {
      asked.push(request);
      const answer = answers.shift();
      if (answer === undefined) throw new Error(`not expected to be asked about ${request.call.name}`);
      return answer;
    },
  };
}

export const askWrites: ApprovalRule[] = [
  { tool: 'files__write', decision: 'ask', reason: 'it changes files' },
];
